"""Reading configuration from the environment (12-factor).

Small parsers for plain values plus the two URL-shaped settings: the database
(``DATABASE_URL``) and the Celery broker (``CELERY_BROKER_URL``). Each URL helper
takes the URL and the directory of runtime data (``VAR_DIR``, ``var/`` in the
checkout by default) and returns ready-to-use settings, so the defaults for
development (an SQLite file and a file-system broker, both in that directory) need
no server at all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})

# Seconds a PostgreSQL connection is kept open between requests (0 would close it
# after every request). Health checks make a kept connection safe to reuse after the
# server restarted.
POSTGRES_CONN_MAX_AGE = 60

# DATABASE_POOLER: what stands between the service and PostgreSQL on DATABASE_URL.
# "none", PostgreSQL itself (or a pooler in session mode); "transaction", a pooler in
# transaction mode, such as PgBouncer with `pool_mode = transaction`.
NO_POOLER = "none"
TRANSACTION_POOLER = "transaction"
DATABASE_POOLERS = (NO_POOLER, TRANSACTION_POOLER)

# Seconds before Redis hands a task a worker took but has not acknowledged to a
# worker again (CELERY_VISIBILITY_TIMEOUT). A worker holds a task with an ETA
# unacknowledged until it runs, so the timers' countdowns are kept well short of it
# (games.services.saving.longest_countdown); later deadlines are the sweeper's.
BROKER_VISIBILITY_TIMEOUT = 3600
# The most seconds between two looks for such tasks, each a Redis scan: kombu's own
# default waits up to 100 s past the visibility timeout.
BROKER_RESTORE_EVERY = 10


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str) -> str:
    value = _raw(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true/false, 1/0, yes/no)")


def env_int(name: str, default: int) -> int:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None


def env_float(name: str, default: float) -> float:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number") from None


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    """One of `choices`, in any case."""
    value = _raw(name)
    if value is None or value == "":
        return default
    if value.lower() not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of {', '.join(choices)}")
    return value.lower()


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks around items and empty items are dropped."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def check_secret_key(secret_key: str, *, debug: bool, dev_default: str) -> None:
    """Refuse to run outside development with a missing or the published key."""
    if debug:
        return
    if not secret_key or secret_key == dev_default:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set to a private random value when DEBUG is false"
        )


def check_push_allow_http(allow: bool, *, debug: bool, confirmed: bool) -> bool:
    """PUSH_ALLOW_HTTP lets push requests reach loopback addresses: refused with DEBUG
    off unless PUSH_ALLOW_HTTP_WITHOUT_DEBUG confirms it (test servers run so)."""
    if allow and not debug and not confirmed:
        raise ImproperlyConfigured(
            "PUSH_ALLOW_HTTP is for development and tests: with DEBUG false it also needs "
            "PUSH_ALLOW_HTTP_WITHOUT_DEBUG=true"
        )
    return allow


def https_settings(enabled: bool, hsts_seconds: int) -> dict[str, Any]:
    """Django's HTTPS settings, all on when the service is reached over HTTPS.

    HTTPS is expected to end at a proxy in front of the service, which must set
    X-Forwarded-Proto itself (overwriting the client's): Django then knows which
    requests came in over HTTPS, redirects the others, sends HSTS and keeps the
    session and CSRF cookies off plain HTTP. Off, everything stays on plain HTTP, as
    on http://localhost, where a redirect or secure cookies would break the admin.
    """
    return {
        "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https") if enabled else None,
        "SECURE_SSL_REDIRECT": enabled,
        # Health probes (Docker's, a load balancer's) and Prometheus's scrape ask the
        # service itself over plain HTTP; a redirect to HTTPS would break both.
        "SECURE_REDIRECT_EXEMPT": [r"^healthz$", r"^metrics$"],
        "SESSION_COOKIE_SECURE": enabled,
        "CSRF_COOKIE_SECURE": enabled,
        "SECURE_HSTS_SECONDS": hsts_seconds if enabled else 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": enabled,
        "SECURE_HSTS_PRELOAD": enabled,
    }


def database_config(url: str | None, var_dir: Path, *, pooler: str = NO_POOLER) -> dict[str, Any]:
    """Django ``DATABASES["default"]`` for ``url``; no URL means ``db.sqlite3`` in
    ``var_dir``. `pooler` is `TRANSACTION_POOLER` when ``url`` reaches PostgreSQL
    through a pooler in transaction mode (see `DATABASE_POOLERS`)."""
    if not url:
        db_file = var_dir / "db.sqlite3"
        db_file.parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{db_file}"
    config: dict[str, Any] = dict(dj_database_url.parse(url))
    if config["ENGINE"] != "django.db.backends.postgresql" and pooler != NO_POOLER:
        raise ImproperlyConfigured(f"DATABASE_POOLER={pooler} needs a PostgreSQL DATABASE_URL")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # API, worker and beat write from separate processes: take the write lock
        # when a transaction starts (no deadlocked upgrades), wait for it instead
        # of failing at once, and let readers run beside the writer (WAL).
        config["CONN_MAX_AGE"] = 0
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    else:
        config["CONN_MAX_AGE"] = POSTGRES_CONN_MAX_AGE
        config["CONN_HEALTH_CHECKS"] = True
        if pooler == TRANSACTION_POOLER:
            config.update(pooled_options(config.get("OPTIONS", {})))
    return config


def pooled_options(options: dict[str, Any]) -> dict[str, Any]:
    """What a connection through a transaction pooler must not rely on: each
    transaction may run on another server session, so nothing may outlive one.

    - Prepared statements: with server-side binding (OPTIONS `server_side_binding`)
      psycopg prepares a query run `prepare_threshold` times on the session, and
      the next transaction's session has never seen it (PgBouncer keeps them apart
      only from 1.21, with `max_prepared_statements`; Debian 12 ships 1.18). None:
      never prepared, whatever the binding. Django's default, pinned here over any
      OPTIONS in the URL.
    - Server-side cursors: `QuerySet.iterator()` in autocommit opens a cursor WITH
      HOLD, read over many transactions.

    Django's own session settings pass: the ``SET TIME ZONE`` of a new connection
    whose server reports another zone changes a parameter PgBouncer tracks per
    client and sets again on whichever server session the client gets.

    Kept connections are the pooler's clients, not server sessions: cheap to keep,
    and checked before reuse (a restarted pooler drops them). Transaction-level
    advisory locks and ``pg_notify`` end with their transaction and pass; ``LISTEN``
    does not (`LISTEN_DATABASE_URL`)."""
    return {
        "OPTIONS": {**options, "prepare_threshold": None},
        "DISABLE_SERVER_SIDE_CURSORS": True,
    }


def listen_database_url(url: str | None, pooler: str) -> str | None:
    """The URL of the live hub's ``LISTEN`` connection (`games.live.hub`): `url`
    (LISTEN_DATABASE_URL), straight to PostgreSQL; None uses the connection
    parameters of DATABASES["default"]. A transaction pooler would hand the
    listening session to others between statements and lose the notifications, so
    with one the URL must be given."""
    if not url:
        if pooler == TRANSACTION_POOLER:
            raise ImproperlyConfigured(
                "DATABASE_POOLER=transaction needs LISTEN_DATABASE_URL, a URL of the same"
                " database that reaches PostgreSQL directly (LISTEN cannot pass the pooler)"
            )
        return None
    if not url.startswith(("postgres://", "postgresql://")):
        raise ImproperlyConfigured(f"LISTEN_DATABASE_URL must be a postgres:// URL, not {url!r}")
    return url


# Seconds to wait for the read replica to take a connection (libpq's least is 2):
# a replica out of reach then costs a request this much once, not a TCP timeout.
REPLICA_CONNECT_TIMEOUT = 2


def replica_database_config(url: str, var_dir: Path) -> dict[str, Any]:
    """Django ``DATABASES["replica"]`` for ``url``, a PostgreSQL read replica of the
    default database (see ``unoservice.replica``). Tests read the test database
    through it (a mirror), as they have no replica."""
    config = database_config(url, var_dir)
    if config["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("REPLICA_DATABASE_URL must be a postgres:// URL")
    config["OPTIONS"] = {**config.get("OPTIONS", {}), "connect_timeout": REPLICA_CONNECT_TIMEOUT}
    config["TEST"] = {"MIRROR": "default"}
    return config


def broker_config(
    url: str | None, var_dir: Path, *, visibility_timeout: int = BROKER_VISIBILITY_TIMEOUT
) -> tuple[str, str | None, dict[str, Any]]:
    """Celery broker URL, transport (None: the URL's) and transport options for ``url``.

    No URL means the file-system transport of ``unoservice.broker`` under ``broker/``
    in ``var_dir``: it needs no server and, being plain files, is shared by the API,
    the worker and beat. Redis hands a task taken but not acknowledged within
    `visibility_timeout` seconds to a worker again; workers look for such tasks
    every quarter of it, and at least every `BROKER_RESTORE_EVERY` seconds.
    """
    if visibility_timeout < 2:
        raise ImproperlyConfigured(
            f"CELERY_VISIBILITY_TIMEOUT={visibility_timeout} must be at least 2 (seconds)"
        )
    if not url:
        root = var_dir / "broker"
        folders = {
            "data_folder_in": root / "queue",
            "data_folder_out": root / "queue",
            "processed_folder": root / "processed",
            "control_folder": root / "control",
        }
        for folder in folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        seed_exchange_tables(folders["control_folder"])
        options: dict[str, Any] = {key: str(path) for key, path in folders.items()}
        options["visibility_timeout"] = visibility_timeout
        # The directory is polled: every 0.1 s keeps a bot's reply prompt.
        options["polling_interval"] = 0.1
        return "filesystem://localhost//", FILESYSTEM_TRANSPORT, options
    restore_every = max(1, min(BROKER_RESTORE_EVERY, visibility_timeout // 4))
    return (
        url,
        None,
        {
            "visibility_timeout": visibility_timeout,
            # Every look scans: the interval alone says how often.
            "unacked_restore_interval": restore_every,
            "unacked_restore_throttle": 1,
        },
    )


# kombu's file-system transport with messages written whole (unoservice/broker.py);
# named, not imported, so that reading the settings imports no broker code.
FILESYSTEM_TRANSPORT = "unoservice.broker:Transport"

# The exchanges Celery uses: its default queue's, the push queue's, and the control
# broadcast and its replies (pings, inspect).
FILESYSTEM_EXCHANGES = ("celery", "push", "celery.pidbox", "reply.celery.pidbox")


def seed_exchange_tables(control_folder: Path) -> None:
    """Create each exchange's table of bound queues, empty, unless it exists.

    kombu's file-system transport creates a missing table by truncating the file
    and only then locking it: a process starting at the same moment (the API, the
    worker and beat start together) can read the empty file, and fails on it as on
    bad JSON, the worker for good. A table that exists is only ever read and
    rewritten under its lock. Each is written whole beside its place and linked
    into it, so that no process ever sees it empty.
    """
    for exchange in FILESYSTEM_EXCHANGES:
        table = control_folder / f"{exchange}.exchange"
        if table.exists():
            continue
        draft = control_folder / f".{exchange}.{os.getpid()}.draft"
        draft.write_text("[]")
        try:
            os.link(draft, table)
        except FileExistsError:
            pass  # another process was first
        finally:
            draft.unlink()


# Django's cache without CACHE_URL: memory of each process.
LOCAL_CACHE = "django.core.cache.backends.locmem.LocMemCache"


def cache_config(url: str | None) -> dict[str, Any]:
    """Django's cache: Redis at `url` (redis://...), else memory local to the process."""
    if not url:
        return {"BACKEND": LOCAL_CACHE}
    if not url.startswith(("redis://", "rediss://")):
        raise ImproperlyConfigured(f"CACHE_URL={url!r} must be a redis:// URL")
    return {"BACKEND": "unoservice.redis_cache.RedisCache", "LOCATION": url}
