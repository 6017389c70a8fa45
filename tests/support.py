"""Processes, ports and waiting, for the tests that run servers of their own (the live
ASGI server, a Celery worker and beat, a fault drill's deployment) or read the
settings in a fresh Python process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

# The tests take processes and ports from here, shared with the benchmarks.
from bench.processes import ROOT as ROOT
from bench.processes import free_port as free_port
from bench.processes import spawn as spawn
from bench.processes import stop_groups as stop_groups
from bench.processes import wait_until as wait_until

SETTINGS_MODULE = "unoservice.settings"


# -- server processes --------------------------------------------------------------


def celery_worker(hostname: str, queues: Sequence[str] = ("celery", "push")) -> list[str]:
    """The command of a Celery worker of the service named `hostname` consuming
    `queues`: two pool processes, and no gossip or mingle, as there are no other
    workers to meet."""
    return [
        *_celery(),
        "worker",
        "--loglevel=INFO",
        "--concurrency=2",
        "--without-gossip",
        "--without-mingle",
        "--hostname",
        hostname,
        "-Q",
        ",".join(queues),
    ]


def celery_beat(schedule: Path) -> list[str]:
    """The command of Celery beat, its schedule kept in the file `schedule`."""
    return [*_celery(), "beat", "--loglevel=INFO", "--schedule", str(schedule)]


def _celery() -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "unoservice"]


def log_tails(folder: Path, chars: int = 4000) -> str:
    """The end of every log file in `folder`, for a failing test's message."""
    return "\n".join(
        f"--- {path.name}\n{path.read_text(errors='replace')[-chars:]}"
        for path in sorted(folder.glob("*.log"))
    )


# -- fresh Python processes --------------------------------------------------------


def run_python(
    *args: str, env: Mapping[str, str], timeout: float | None = 120
) -> subprocess.CompletedProcess[str]:
    """`python *args` in a fresh process at the project's root, with the environment
    `env` and the service's settings: what a deployment with that environment does,
    untouched by anything the test process changed."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def settings_with(env: Mapping[str, str], expression: str) -> Any:
    """`expression`, over the settings as `s`, when the service starts with the
    environment `env`: read in a fresh process, as JSON."""
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        f"print(json.dumps({expression}))"
    )
    done = run_python("-c", code, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def database_url_named(name: str) -> str:
    """DATABASE_URL with its database swapped for `name`: a benchmark's own database,
    dropped and made again by every run (not the test database, and not the
    `uno_bench` of a full benchmark someone may be running by hand)."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit((*parts[:2], f"/{name}", "", ""))
