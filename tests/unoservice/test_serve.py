"""The server command and the limits counted in the cache: several processes that
would each count them alone are refused in production, unless that is what is asked
for (docs/operations.md, "The processes")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.served import Served, serving
from tests.support import free_port, run_python, stop_groups, wait_until

pytestmark = pytest.mark.slow

PRODUCTION = {"DEBUG": "false", "SECRET_KEY": "serve-" + "k" * 50}
# What `serving` reads as no cache URL: the memory of each process.
NO_CACHE = {"CACHE_URL": ""}


def serve(folder: Path, workers: int, env: dict[str, str]) -> tuple[int, str]:
    """The server command run with `env` alone until it exits: its code and stderr."""
    argv = ["-m", "unoservice.serve", "--port", str(free_port()), "--workers", str(workers)]
    done = run_python(*argv, env={"VAR_DIR": str(folder), **env}, timeout=60)
    return done.returncode, done.stderr


def log_of(served: Served) -> str:
    return (served.folder / "api.log").read_text(errors="replace")


def test_several_processes_without_a_shared_cache_are_refused_in_production_with_the_reason(
    tmp_path: Path,
) -> None:
    code, stderr = serve(tmp_path, 2, PRODUCTION)
    assert code != 0
    [line] = stderr.strip().splitlines()
    assert line.startswith("unoservice.serve: refusing to start: 2 worker processes")
    assert "CACHE_URL" in line
    assert "PER_PROCESS_LIMITS=true" in line


def test_a_flag_that_is_not_a_boolean_stops_the_command_too(tmp_path: Path) -> None:
    code, stderr = serve(tmp_path, 2, {**PRODUCTION, "PER_PROCESS_LIMITS": "maybe"})
    assert code != 0
    assert "PER_PROCESS_LIMITS='maybe' is not a boolean" in stderr


@pytest.mark.parametrize(
    ("workers", "env"),
    [
        (2, {**NO_CACHE, "PER_PROCESS_LIMITS": "true"}),
        (2, {}),  # `serving` gives its processes a cache in Redis
        (1, NO_CACHE),
    ],
    ids=["per-process limits asked for", "a shared cache", "one process"],
)
def test_the_server_starts_in_production_when_its_limits_are_what_it_says(
    tmp_path: Path, django_db_setup: None, workers: int, env: dict[str, str]
) -> None:
    with serving(tmp_path, env, workers=workers) as served:
        wait_until(lambda: len(served.worker_pids()) == workers, "the workers", 30)
        assert served.request("GET", "/healthz")[0] == 200
        assert "unoservice.serve:" not in log_of(served)


def test_in_development_several_processes_without_a_shared_cache_start_with_a_warning(
    tmp_path: Path, django_db_setup: None
) -> None:
    with serving(tmp_path, {**NO_CACHE, "DEBUG": "true"}, workers=2) as served:
        wait_until(lambda: len(served.worker_pids()) == 2, "the workers", 30)
        assert served.request("GET", "/healthz")[0] == 200
        assert "unoservice.serve: warning: 2 worker processes without CACHE_URL" in log_of(served)


def test_a_new_server_listens_beside_the_old_one_with_reuse_port_and_serves_once_it_stops(
    tmp_path: Path, django_db_setup: None
) -> None:
    port = free_port()
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    with (
        serving(tmp_path / "old", port=port, options=["--reuse-port"]) as old,
        serving(tmp_path / "new", port=port, options=["--reuse-port"]) as new,
    ):
        stop_groups([old.process], grace=10)
        assert old.process.poll() is not None
        answers = [new.request("GET", "/livez")[0] for _ in range(20)]
    assert answers == [200] * 20
    assert "Connection in use" not in log_of(new)
