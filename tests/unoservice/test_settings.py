"""The environment parsers and URL helpers that settings.py is built from."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from kombu import Connection, Exchange, Queue

from tests.support import settings_with
from unoservice.env import (
    BROKER_VISIBILITY_TIMEOUT,
    FILESYSTEM_EXCHANGES,
    broker_config,
    check_push_allow_http,
    check_secret_key,
    database_config,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
)


@pytest.mark.parametrize("word", ["1", "true", "True", "YES", "on", " yes "])
def test_env_bool_reads_true_words(monkeypatch, word):
    monkeypatch.setenv("FLAG", word)
    assert env_bool("FLAG", default=False) is True


@pytest.mark.parametrize("word", ["0", "false", "No", "OFF", ""])
def test_env_bool_reads_false_words(monkeypatch, word):
    monkeypatch.setenv("FLAG", word)
    assert env_bool("FLAG", default=True) is False


def test_env_bool_falls_back_to_the_default_when_unset(monkeypatch):
    monkeypatch.delenv("FLAG", raising=False)
    assert env_bool("FLAG", default=True) is True


def test_env_bool_refuses_anything_else(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG"):
        env_bool("FLAG", default=False)


def test_env_int_and_env_float_parse_numbers_and_default_when_blank(monkeypatch):
    monkeypatch.setenv("COUNT", " 42 ")
    monkeypatch.setenv("DELAY", "0.25")
    monkeypatch.setenv("BLANK", "")
    assert env_int("COUNT", 1) == 42
    assert env_float("DELAY", 1.0) == 0.25
    assert env_int("BLANK", 7) == 7
    assert env_float("BLANK", 1.5) == 1.5


@pytest.mark.parametrize("parse", [env_int, env_float])
def test_env_numbers_refuse_words(monkeypatch, parse):
    monkeypatch.setenv("NUMBER", "ten")
    with pytest.raises(ImproperlyConfigured, match="NUMBER"):
        parse("NUMBER", 1)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("HOSTS", " api.example.com, ,localhost,[::1] ")
    assert env_list("HOSTS", []) == ["api.example.com", "localhost", "[::1]"]


def test_env_list_default_is_a_copy(monkeypatch):
    monkeypatch.delenv("HOSTS", raising=False)
    default = ["localhost"]
    hosts = env_list("HOSTS", default)
    hosts.append("changed")
    assert default == ["localhost"]


def test_env_str_treats_blank_as_unset(monkeypatch):
    monkeypatch.setenv("NAME", "  ")
    assert env_str("NAME", "fallback") == "fallback"


def test_the_dev_secret_key_is_refused_when_debug_is_false():
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        check_secret_key("dev", debug=False, dev_default="dev")
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        check_secret_key("", debug=False, dev_default="dev")


def test_the_dev_secret_key_is_accepted_in_debug_and_a_real_key_always():
    check_secret_key("dev", debug=True, dev_default="dev")
    check_secret_key("a-private-random-value", debug=False, dev_default="dev")


def test_loopback_pushes_are_refused_in_production_unless_said_twice():
    with pytest.raises(ImproperlyConfigured, match="PUSH_ALLOW_HTTP_WITHOUT_DEBUG"):
        check_push_allow_http(True, debug=False, confirmed=False)
    assert check_push_allow_http(True, debug=False, confirmed=True)
    assert check_push_allow_http(True, debug=True, confirmed=False)
    assert not check_push_allow_http(False, debug=False, confirmed=True)


def test_a_deployment_that_allows_loopback_pushes_by_one_variable_does_not_start():
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "k" * 50, "PUSH_ALLOW_HTTP": "true"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**env, "DJANGO_SETTINGS_MODULE": "unoservice.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "PUSH_ALLOW_HTTP_WITHOUT_DEBUG" in done.stderr


def test_database_url_defaults_to_an_sqlite_file_under_var(tmp_path):
    config = database_config(None, tmp_path / "var")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(config["NAME"]) == tmp_path / "var" / "db.sqlite3"
    assert (tmp_path / "var").is_dir()
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def test_a_postgres_url_selects_postgresql_with_kept_healthy_connections(tmp_path):
    config = database_config("postgres://uno:secret@db.internal:6543/uno", tmp_path / "var")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert config["NAME"] == "uno"
    assert config["USER"] == "uno"
    assert config["PASSWORD"] == "secret"
    assert config["HOST"] == "db.internal"
    assert config["PORT"] == 6543
    assert config["CONN_MAX_AGE"] > 0
    assert config["CONN_HEALTH_CHECKS"] is True
    assert not (tmp_path / "var").exists()


def test_the_broker_defaults_to_the_file_system_transport_under_var(tmp_path):
    url, transport, options = broker_config(None, tmp_path / "var")
    assert url.startswith("filesystem://")
    assert transport == "unoservice.broker:Transport"
    assert options["data_folder_in"] == options["data_folder_out"]
    for key in ("data_folder_in", "processed_folder", "control_folder"):
        folder = Path(options[key])
        assert folder.is_dir()
        assert folder.is_relative_to(tmp_path / "var" / "broker")


def test_the_file_system_broker_starts_with_an_empty_table_for_each_exchange(tmp_path):
    _, _, options = broker_config(None, tmp_path / "var")
    control = Path(options["control_folder"])
    for exchange in FILESYSTEM_EXCHANGES:
        assert json.loads((control / f"{exchange}.exchange").read_text()) == []
    assert not [path for path in control.iterdir() if path.name.startswith(".")]


def test_an_exchange_table_in_use_is_left_as_it_is(tmp_path):
    _, _, options = broker_config(None, tmp_path / "var")
    table = Path(options["control_folder"]) / "celery.exchange"
    table.write_text('[["celery", "", "celery"]]')
    broker_config(None, tmp_path / "var")
    assert table.read_text() == '[["celery", "", "celery"]]'


def test_messages_go_through_the_file_system_broker_with_its_seeded_tables(
    tmp_path, fresh_broker_state
):
    url, transport, options = broker_config(None, tmp_path / "var")
    queue = Queue("celery", Exchange("celery", type="direct"), routing_key="celery")
    connection = Connection(url, transport=transport, transport_options=options)
    with connection as conn, conn.SimpleQueue(queue) as simple:
        simple.put({"n": 1})
        message = simple.get(timeout=5)
        message.ack()
    assert message.payload == {"n": 1}


def test_a_redis_broker_url_is_used_as_given_with_the_visibility_timeout(tmp_path):
    url, transport, options = broker_config("redis://cache.internal:6379/0", tmp_path / "var")
    assert url == "redis://cache.internal:6379/0"
    assert transport is None
    assert options == {
        "visibility_timeout": BROKER_VISIBILITY_TIMEOUT,
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
    }
    assert BROKER_VISIBILITY_TIMEOUT == 3600


@pytest.mark.parametrize(("visibility", "restore_every"), [(2, 1), (9, 2), (40, 10), (7200, 10)])
def test_workers_look_for_unacknowledged_tasks_every_quarter_of_the_visibility_timeout(
    tmp_path, visibility, restore_every
):
    _, _, options = broker_config(
        "redis://cache.internal:6379/0", tmp_path / "var", visibility_timeout=visibility
    )
    assert options["visibility_timeout"] == visibility
    assert options["unacked_restore_interval"] == restore_every


def test_the_visibility_timeout_comes_from_the_environment():
    env = {
        **os.environ,
        "CELERY_BROKER_URL": "redis://cache.internal:6379/0",
        "CELERY_VISIBILITY_TIMEOUT": "7",
    }
    options = settings_with(env, "s.CELERY_BROKER_TRANSPORT_OPTIONS")
    assert options["visibility_timeout"] == 7


@pytest.mark.parametrize("visibility", [1, 0, -5])
def test_a_visibility_timeout_under_two_seconds_is_refused(tmp_path, visibility):
    with pytest.raises(ImproperlyConfigured, match="CELERY_VISIBILITY_TIMEOUT"):
        broker_config("redis://h:6379/0", tmp_path / "var", visibility_timeout=visibility)


def test_var_dir_moves_every_development_file_out_of_the_checkout(tmp_path):
    probe = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.DATABASES['default']['NAME'], s.CELERY_BROKER_URL, "
        "s.CELERY_BROKER_TRANSPORT_OPTIONS['data_folder_in'], s.CELERY_BEAT_SCHEDULE_FILENAME, "
        "str(s.STATIC_ROOT)]))"
    )
    unset = {"DATABASE_URL", "CELERY_BROKER_URL"}
    env = {key: value for key, value in os.environ.items() if key not in unset}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=Path(settings.BASE_DIR),
        env={
            **env,
            "VAR_DIR": str(tmp_path / "run"),
            "DJANGO_SETTINGS_MODULE": "unoservice.settings",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    database, broker, queue, schedule, static = json.loads(done.stdout.strip().splitlines()[-1])
    assert broker.startswith("filesystem://")
    for path in (database, queue, schedule, static):
        assert Path(path).is_relative_to(tmp_path / "run"), path
    assert Path(database).parent.is_dir()
    assert Path(queue).is_dir()


def test_celery_is_configured_for_late_acks_and_one_task_at_a_time():
    from unoservice.celery import app

    assert app.conf.task_acks_late is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.task_ignore_result is True
    assert app.conf.task_always_eager is False
    assert app.conf.broker_transport_options["visibility_timeout"] == 3600
    assert app.conf.broker_url == settings.CELERY_BROKER_URL


def test_bot_think_seconds_is_a_float_setting():
    assert isinstance(settings.BOT_THINK_SECONDS, float)
