"""A test run of its own, apart from a service running from the same checkout, and
each of pytest-xdist's workers apart from the others.

pytest loads this module (``-p tests.isolation`` in pyproject.toml) before Django's
settings, so the settings read what is chosen here:

- The run's SQLite file, file-system broker and beat schedule live in a fresh
  temporary folder, whatever ``VAR_DIR`` the shell holds for ``make run``. Servers
  and workers that tests start inherit it through the environment.
- The service's ports are never used: every server a test starts takes a free port.
- A read replica named in the shell (``REPLICA_DATABASE_URL``) is not the test
  database's: the run has none, but where a test adds one.
- Under xdist, worker ``gwN`` moves each Redis URL N databases further, so that
  workers purging the broker or flushing the cache do not meet. pytest-django gives
  each worker its own test database, and with it its own LISTEN/NOTIFY channel.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from urllib.parse import urlsplit, urlunsplit

REDIS_URLS = ("CELERY_BROKER_URL", "CACHE_URL", "REDIS_URL")


def redis_database_moved(url: str, by: int) -> str:
    """`url` with its Redis database number `by` higher; other URLs unchanged."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or by == 0:
        return url
    database = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{database + by}"))


def xdist_worker_number() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ...
    return int(worker[2:]) if worker.startswith("gw") else 0


RUN_DIR = tempfile.mkdtemp(prefix="uno-test-run-")
os.environ["VAR_DIR"] = RUN_DIR
atexit.register(shutil.rmtree, RUN_DIR, True)

for name in REDIS_URLS:
    if os.environ.get(name):
        os.environ[name] = redis_database_moved(os.environ[name], xdist_worker_number())

os.environ.pop("REPLICA_DATABASE_URL", None)
