"""The production server: the whole HTTP API, streams included, on one port.

    python -m unoservice.serve --host 0.0.0.0 --port 8000 --workers 2 [--threads 4]
        [--match-threads 16] [--reuse-port]

gunicorn manages the processes (one per core is the rule: each holds its own
listener and thousands of streams), each running uvicorn with the ASGI application
of `unoservice.asgi`: streams and waiting long polls as coroutines, the REST API on
`--threads` threads. The compose file, the benchmarks and the fault drills all
serve through this command, so what is measured is what ships.

Rate limits, presence and the caps on open streams are counted in the cache: with
several processes and no `CACHE_URL`, each would count alone and a client would get
every limit once per process. With DEBUG off the command then refuses to start,
unless `PER_PROCESS_LIMITS=true` says that this is wanted; with DEBUG on it warns.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter

# uvicorn-worker ships no type information: its worker class is Any to mypy.
from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]

from unoservice.env import LOCAL_CACHE

# Seconds a stopping worker gives open streams before it closes them: clients
# reconnect (with Last-Event-ID) to a worker that is still up.
STREAM_CLOSE_SECONDS = 3


class StreamClosingServer(uvicorn.Server):
    """uvicorn's server, which on a stop signal also ends the open streams itself,
    so that they close cleanly instead of being cancelled at the grace's end."""

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        from django.conf import settings
        from django.utils.module_loading import import_string

        for stopping in settings.SERVER_STOPPING:  # the apps' own (the streams)
            import_string(stopping)()


class Worker(UvicornWorker):  # type: ignore[misc]  # (UvicornWorker is Any: untyped)
    async def _serve(self) -> None:  # UvicornWorker's, with the server above
        self.config.app = self.wsgi
        server = StreamClosingServer(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)

    CONFIG_KWARGS = {
        "loop": "uvloop",
        # httptools, with limits on what a connection may cost (unoservice.connections).
        "http": "unoservice.connections:GuardedHttpToolsProtocol",
        "lifespan": "on",
        # The service finds client addresses itself, trusting exactly NUM_PROXIES
        # proxies; uvicorn's own X-Forwarded-For handling would trust any local peer.
        "proxy_headers": False,
        "timeout_graceful_shutdown": STREAM_CLOSE_SECONDS,
        # Formatting a line per request costs CPU even when no handler prints it:
        # only with --access-log (which sets UNO_ACCESS_LOG).
        "access_log": os.environ.get("UNO_ACCESS_LOG") == "1",
    }


class Server(BaseApplication):
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from unoservice.asgi import application

        return application


def _raise_open_file_limit() -> None:
    """Lift the open-file limit to its hard limit, for this process and its workers:
    each connection is an open file, and each worker's connection cap is set below
    this limit (`unoservice.connections.connection_cap`)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# glibc's mallopt parameter for the size from which blocks come from mmap.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 128 * 1024


def _return_large_blocks_to_the_system() -> None:
    """Fix glibc's mmap threshold, for this process and the workers it forks.

    glibc serves blocks of 128 KiB and more from mmap, and gives them back to the
    system when freed, until it frees one: the threshold then rises to that block's
    size (up to 32 MiB), and request bodies of a few MB come from the heap, where a
    burst of them leaves the process larger for good. A threshold set once stays."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: its allocator has its own policy
        return
    libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)


def _worker_exited(server: Any, worker: Any) -> None:
    """gunicorn's child_exit hook: the streams a worker held closed with it."""
    from unoservice import metrics

    metrics.process_exited(worker.pid)


def per_process_limits_problem(workers: int) -> str | None:
    """What is wrong with serving from `workers` processes with this configuration's
    cache, or None: without a shared cache each process counts its clients alone."""
    from django.conf import settings

    shared = settings.CACHES["default"]["BACKEND"] != LOCAL_CACHE
    if workers <= 1 or shared or settings.PER_PROCESS_LIMITS:
        return None
    return (
        f"{workers} worker processes without CACHE_URL would each count rate limits, "
        f"stream caps and presence alone (a client would get {workers} times every limit); "
        "set CACHE_URL=redis://..., or --workers 1, or PER_PROCESS_LIMITS=true "
        "if limits per process are what you want"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--threads", type=int, default=4, help="REST API threads per worker")
    parser.add_argument(
        "--match-threads", type=int, default=16, help="quick-match threads per worker"
    )
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="listen with SO_REUSEPORT, so that a new server can listen on the port before "
        "this one stops (docs/operations.md, restarting without refusing anyone)",
    )
    parser.add_argument(
        "--access-log",
        action="store_true",
        help="also gunicorn's and uvicorn's access lines (the service logs each request itself)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "unoservice.settings")
    from django.conf import settings

    settings.METRICS_DIR  # noqa: B018  (reading a setting loads them: the metrics folder)
    problem = per_process_limits_problem(args.workers)
    if problem is not None and not settings.DEBUG:
        sys.exit(f"unoservice.serve: refusing to start: {problem}")
    if problem is not None:
        print(f"unoservice.serve: warning: {problem} (refused with DEBUG off)", file=sys.stderr)
    from unoservice import metrics

    # Live gauges of servers no longer running are stale (this host's earlier ones,
    # replicas since removed); this one holds its host's lock from now on.
    metrics.forget_live_gauges()
    _raise_open_file_limit()
    _return_large_blocks_to_the_system()
    os.environ["UNO_API_THREADS"] = str(args.threads)
    os.environ["UNO_MATCH_THREADS"] = str(args.match_threads)
    options: dict[str, Any] = {
        "bind": f"{args.host}:{args.port}",
        "workers": args.workers,
        "worker_class": "unoservice.serve.Worker",
        "graceful_timeout": STREAM_CLOSE_SECONDS + 5,
        "timeout": 30,
        "keepalive": 5,
        "backlog": 4096,
        # No control socket: several servers (tests, benchmarks) run side by side.
        "control_socket_disable": True,
        "child_exit": _worker_exited,
    }
    if args.reuse_port:
        # Each worker then listens on a socket of its own, and the kernel spreads the
        # connections over every socket on the port, this server's and its successor's.
        options["reuse_port"] = True
    if args.access_log:
        options["accesslog"] = "-"
        os.environ["UNO_ACCESS_LOG"] = "1"
    sys.argv = sys.argv[:1]  # gunicorn reads its own command line otherwise
    Server(options).run()


if __name__ == "__main__":
    main()
