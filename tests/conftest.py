"""Shared test configuration: Hypothesis profiles and the external-service markers.

Markers (registered in pyproject.toml):

- ``@pytest.mark.postgres``: the test needs the default database to be PostgreSQL.
- ``@pytest.mark.redis``: the test needs a Redis server, at ``CELERY_BROKER_URL``
  when that is a Redis URL, else at ``REDIS_URL``. The ``redis_url`` fixture gives it.
- ``@pytest.mark.browser``: the test drives Debian's headless Chromium.
- ``@pytest.mark.node``: the test runs Node.js and npm (TypeScript tools).
- ``@pytest.mark.drill``: the test builds a private deployment (its own PostgreSQL
  cluster and Redis) and breaks it.

When the service is missing, the test is skipped on a developer's machine but fails
when the environment variable ``CI`` is set, so that CI cannot pass by skipping.
"""

from __future__ import annotations

import atexit
import datetime as dt
import functools
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
import redis
from django.conf import settings
from hypothesis import settings as hypothesis_settings

if TYPE_CHECKING:
    from rest_framework.test import APIClient

    from tests.factories import Persona

# --- Metrics ----------------------------------------------------------------------

# Each test process counts in a folder of its own (servers and workers the tests
# start inherit it), so that a scrape sees this run's counts only. Nothing has been
# counted yet: every metric family is labelled, and opens its file when it counts.
METRICS_DIR = tempfile.mkdtemp(prefix="uno-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = METRICS_DIR
atexit.register(shutil.rmtree, METRICS_DIR, True)

# --- Round breaks -----------------------------------------------------------------

# Rounds follow each other at once in the tests, here (the settings are loaded by
# now) and in the servers and workers they start (which inherit the variable); the
# tests of the break itself set their own.
os.environ.setdefault("ROUND_BREAK_SECONDS", "0")
settings.ROUND_BREAK_SECONDS = float(os.environ["ROUND_BREAK_SECONDS"])

# --- Hypothesis -------------------------------------------------------------------

hypothesis_settings.register_profile("dev", max_examples=100)
hypothesis_settings.register_profile("ci", max_examples=500, deadline=None, derandomize=False)
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)

# --- External services ------------------------------------------------------------

REDIS_SCHEMES = ("redis://", "rediss://")


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def configured_redis_url() -> str | None:
    """The Redis the tests may use: the Celery broker when it is Redis, else REDIS_URL."""
    broker = str(settings.CELERY_BROKER_URL)
    if broker.startswith(REDIS_SCHEMES):
        return broker
    return os.environ.get("REDIS_URL") or None


def postgres_missing() -> str | None:
    """Why the default database is not PostgreSQL, or None when it is."""
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine != "django.db.backends.postgresql":
        return f"needs PostgreSQL as the default database (DATABASE_URL); it is {engine}"
    return None


@functools.cache
def redis_missing() -> str | None:
    """Why no Redis can be reached, or None when one answers PING."""
    url = configured_redis_url()
    if url is None:
        return "needs Redis: set CELERY_BROKER_URL or REDIS_URL to redis://..."
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping()
    except redis.RedisError as exc:
        return f"needs Redis at {url}: {exc}"
    return None


CHROMIUM = "/usr/bin/chromium"  # Debian's package; a browser test never downloads one


def chromium_missing() -> str | None:
    """Why no headless Chromium can be launched, or None when Debian's is installed."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"needs Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def node_missing() -> str | None:
    """Why no TypeScript tools can run, or None when node and npm are on the PATH."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        return f"needs {' and '.join(missing)} on the PATH (Node.js 20)"
    return None


def drill_tools_missing() -> str | None:
    """Why a private deployment cannot be built: PostgreSQL's and Redis's servers."""
    from tests.drills.deployment import postgres_bin

    if postgres_bin() is None:
        return "needs PostgreSQL's server binaries (/usr/lib/postgresql/*/bin)"
    if shutil.which("redis-server") is None:
        return "needs redis-server on the PATH"
    return None


SERVICE_CHECKS = {
    "postgres": postgres_missing,
    "redis": redis_missing,
    "browser": chromium_missing,
    "node": node_missing,
    "drill": drill_tools_missing,
}


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, missing in SERVICE_CHECKS.items():
        if item.get_closest_marker(marker) is None:
            continue
        reason = missing()
        if reason is None:
            continue
        if in_ci():
            pytest.fail(f"{reason} (CI is set, so a missing service fails the test)")
        pytest.skip(reason)


@pytest.fixture
def redis_url() -> str:
    """The URL of the Redis that a ``@pytest.mark.redis`` test may use."""
    url = configured_redis_url()
    if url is None:  # only reached by a test that forgot the marker
        pytest.fail("the redis_url fixture needs @pytest.mark.redis")
    return url


# --- Personas ---------------------------------------------------------------------


@pytest.fixture
def host(db: None) -> Persona:
    from tests.factories import make_persona

    return make_persona("Host")


@pytest.fixture
def guest(db: None) -> Persona:
    from tests.factories import make_persona

    return make_persona("Guest")


@pytest.fixture
def outsider(db: None) -> Persona:
    from tests.factories import make_persona

    return make_persona("Outsider")


@pytest.fixture
def staff(db: None) -> Persona:
    """A player linked to a staff user, as an operator's is: they read complete logs
    and replays, and may choose a game's seed."""
    from django.contrib.auth import get_user_model

    from players.services import player_link_user
    from tests.factories import make_persona

    persona = make_persona("Operator")
    user = get_user_model().objects.create_user("operator", password="x", is_staff=True)
    persona.player = player_link_user(player_id=persona.player.pk, user=user)
    return persona


@pytest.fixture
def anonymous() -> APIClient:
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def rate_limits_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """No rate limit for players or addresses: for tests that play whole games through
    the API in seconds, far faster than any client would, and do not test limits."""
    from unoservice.throttling import AnonymousRateThrottle, PlayerRateThrottle

    for throttle in (PlayerRateThrottle, AnonymousRateThrottle):
        monkeypatch.setattr(throttle, "THROTTLE_RATES", {"player": None, "anonymous": None})


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Rate-limit counters, presence and the last health answer live in memory: no
    test inherits another's."""
    from django.core.cache import cache

    from unoservice import health, presence, shedding, stream_caps

    cache.clear()
    presence.forget()
    stream_caps.forget()
    health.last_answer.forget()
    shedding.forget()


# --- Tasks ------------------------------------------------------------------------


@dataclass
class SentTask:
    name: str
    game_id: str
    version: int  # the second argument: the version of a game's task
    countdown: float | None
    eta: dt.datetime | None
    args: tuple[object, ...] = ()


@pytest.fixture(autouse=True)
def sent_tasks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> list[SentTask]:
    """The tasks the code under test sent to the broker, kept here instead.

    Tests marked ``worker`` send them for real, to the worker they run. Others set
    no bot think time, as a developer running the service would not want in tests.
    """
    sent: list[SentTask] = []
    if request.node.get_closest_marker("worker") is not None:
        return sent
    from django.conf import settings as django_settings

    from games import dispatch

    def record(
        name: str, args: list[object], *, countdown: float | None, eta: dt.datetime | None
    ) -> None:
        game_id, version = args[:2]
        assert isinstance(version, int)
        sent.append(SentTask(name, str(game_id), version, countdown, eta, tuple(args)))

    monkeypatch.setattr(dispatch, "send", record)
    monkeypatch.setattr(django_settings, "BOT_THINK_SECONDS", 0.0)
    return sent


# --- A real worker (tests marked ``worker``) --------------------------------------

# --- Push notifications: a local Web Push service and a fake of FCM ------------------
from tests.fcm_service import fcm_service  # noqa: E402, F401  (registers the fixtures)
from tests.hostile_service import hostile_service  # noqa: E402, F401
from tests.oidc_issuer import issuer  # noqa: E402, F401  (registers the fixture)
from tests.push_service import push_service, push_tasks, vapid_keys  # noqa: E402, F401
from tests.smtp_server import mail_server  # noqa: E402, F401  (registers the fixture)
from tests.workers import celery_processes  # noqa: E402, F401  (registers the fixture)
