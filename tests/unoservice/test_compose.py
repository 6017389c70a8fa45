"""docker-compose.yml stays in step with the settings: the services, their commands,
one shared environment of variables the settings read, and URLs that point at the
services the file defines. (No Docker engine is needed: the file is parsed.)"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tests.support import ROOT, settings_with

APP_SERVICES = ("api", "worker", "beat")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def environment(compose: dict[str, Any], service: str) -> dict[str, str]:
    return {k: str(v) for k, v in compose["services"][service]["environment"].items()}


def as_compose_runs_it(env: dict[str, str]) -> dict[str, str]:
    """`env` with each ``${NAME:-default}`` resolved as compose does when NAME is unset."""
    return {k: re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", v) for k, v in env.items()}


def command(compose: dict[str, Any], service: str) -> str:
    raw = compose["services"][service]["command"]
    return raw if isinstance(raw, str) else " ".join(raw)


def variables_the_settings_read() -> set[str]:
    source = (ROOT / "unoservice" / "settings.py").read_text()
    return set(re.findall(r'(?:environ\.get|env_[a-z]+)\(\s*"([A-Z_]+)"', source))


def test_the_file_defines_the_database_the_broker_the_api_the_worker_and_beat(compose):
    assert set(compose["services"]) == {"postgres", "redis", *APP_SERVICES}


def test_the_api_migrates_then_serves_with_the_services_own_server_command(compose):
    text = command(compose, "api")
    assert text.index("manage.py migrate --noinput") < text.index("python -m unoservice.serve")
    assert "--host 0.0.0.0 --port 8000" in text
    assert "8000:8000" in compose["services"]["api"]["ports"]


def test_the_worker_and_beat_run_this_projects_celery_app(compose):
    assert command(compose, "worker").startswith("celery -A unoservice worker")
    assert command(compose, "beat").startswith("celery -A unoservice beat")


def test_the_api_worker_and_beat_share_one_environment_and_image(compose):
    envs = [environment(compose, s) for s in APP_SERVICES]
    assert envs[0] == envs[1] == envs[2]
    assert {compose["services"][s]["image"] for s in APP_SERVICES} == {"unoservice:latest"}


def test_every_variable_is_one_the_settings_read(compose):
    env = environment(compose, "api")
    assert set(env) <= variables_the_settings_read()
    assert {"DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"} <= set(env)
    assert env["DEBUG"] == "false"
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")  # never a key in the file


def test_https_is_a_setting_the_service_reads_and_is_off_unless_the_shell_sets_it(compose):
    env = environment(compose, "api")
    assert "HTTPS" in variables_the_settings_read()
    assert env["HTTPS"] == "${HTTPS:-false}"  # plain http://localhost out of the box


def test_the_urls_point_at_the_services_defined_here(compose):
    env = environment(compose, "api")
    database = urlsplit(env["DATABASE_URL"])
    postgres = compose["services"]["postgres"]["environment"]
    assert database.scheme == "postgres"
    assert database.hostname == "postgres"
    assert database.username == postgres["POSTGRES_USER"]
    assert database.password == postgres["POSTGRES_PASSWORD"]
    assert database.path.lstrip("/") == postgres["POSTGRES_DB"]
    for name in ("CELERY_BROKER_URL", "CACHE_URL"):
        url = urlsplit(env[name])
        assert (url.scheme, url.hostname) == ("redis", "redis"), name


def test_everything_has_a_health_check_or_waits_for_one(compose):
    services = compose["services"]
    for name in ("postgres", "redis", "api", "worker"):
        assert services[name]["healthcheck"]["test"], name
    assert services["api"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    for name in ("worker", "beat"):
        assert services[name]["depends_on"] == {"api": {"condition": "service_healthy"}}


def test_the_settings_accept_the_files_environment(compose):
    """The settings loaded with exactly the file's environment (and a real key)."""
    env = {
        **as_compose_runs_it(environment(compose, "api")),
        "SECRET_KEY": "k" * 50,
        "PATH": "/usr/bin:/bin",
    }
    probe = (
        "[s.DATABASES['default']['ENGINE'], s.DATABASES['default']['HOST'], "
        "s.DATABASES['default']['NAME'], "
        "s.CELERY_BROKER_URL, s.DEBUG, s.CACHES['default']['BACKEND'], s.ALLOWED_HOSTS, "
        "s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE]"
    )
    engine, host, name, broker, debug, cache, hosts, redirect, secure_cookie = settings_with(
        env, probe
    )
    assert (engine, host, name) == ("django.db.backends.postgresql", "postgres", "uno")
    assert broker == "redis://redis:6379/0"
    assert debug is False
    assert cache == "django.core.cache.backends.redis.RedisCache"
    assert "api" in hosts
    assert (redirect, secure_cookie) == (False, False)


def test_the_image_installs_only_the_runtime_and_collects_static_files():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install -r requirements-runtime.txt" in dockerfile
    assert "collectstatic --noinput" in dockerfile
    runtime = (ROOT / "requirements-runtime.txt").read_text()
    assert "pytest" not in runtime
    assert "-r requirements-runtime.txt" in (ROOT / "requirements.txt").read_text()
