"""scripts/run_all.py: the API, a worker and beat in the foreground, and every one of
their processes gone within 10 s however the runner is stopped.

Each test starts the real script on a free port with the development defaults (an
SQLite file and the file-system broker) in a directory of its own (``VAR_DIR``),
waits until ``/healthz`` says all is well (so the worker's pool and the server's
worker are up), stops it one way, and then watches ``/proc``: the runner must have
exited, and no process it started, nor any process of their sessions, be left.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
STOP_WITHIN = 10.0
START_WITHIN = 120.0
# Variables of the shell that would take the runner off the development defaults.
NOT_PASSED_ON = {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "VAR_DIR", "HOST"}


def development_env(var_dir: Path) -> dict[str, str]:
    """This environment with the development defaults kept in `var_dir`."""
    env = {key: value for key, value in os.environ.items() if key not in NOT_PASSED_ON}
    return {**env, "VAR_DIR": str(var_dir), "DJANGO_SETTINGS_MODULE": "unoservice.settings"}


@dataclass(frozen=True)
class Proc:
    """One process as /proc shows it; (pid, started) names it even if pids are reused."""

    pid: int
    started: int
    ppid: int
    session: int
    zombie: bool


def read_proc(pid: int) -> Proc | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name, in parentheses, may hold spaces: the fields start after it.
    fields = stat[stat.rindex(")") + 2 :].split()
    return Proc(
        pid=pid,
        started=int(fields[19]),
        ppid=int(fields[1]),
        session=int(fields[3]),
        zombie=fields[0] in ("Z", "X"),
    )


def all_procs() -> list[Proc]:
    procs = (read_proc(int(entry)) for entry in os.listdir("/proc") if entry.isdigit())
    return [proc for proc in procs if proc is not None]


def descendants(root: int) -> set[Proc]:
    procs = all_procs()
    found: set[Proc] = set()
    parents = {root}
    while True:
        more = {proc for proc in procs if proc.ppid in parents and proc not in found}
        if not more:
            return found
        found |= more
        parents = {proc.pid for proc in more}


class Runner:
    """run_all.py, its output read from a pipe of the test's own (which it may close),
    and every process it was seen to start."""

    def __init__(self, var_dir: Path, port: int, *, host: str | None = None) -> None:
        self.port = port
        self.output = bytearray()
        self.seen: set[Proc] = set()
        reading, writing = os.pipe()
        with (var_dir / f"run_all-{port}.stderr").open("wb") as errors:
            self.process = subprocess.Popen(
                [sys.executable, "scripts/run_all.py", "--port", str(port)],
                cwd=ROOT,
                env={**development_env(var_dir), **({"HOST": host} if host else {})},
                stdout=writing,
                stderr=errors,
                start_new_session=True,
            )
        os.close(writing)
        self._reading = reading
        self._close = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while not self._close.is_set():
                ready, _, _ = select.select([self._reading], [], [], 0.05)
                if ready:
                    chunk = os.read(self._reading, 65536)
                    if not chunk:
                        return
                    self.output += chunk
        finally:
            os.close(self._reading)

    def close_output(self) -> None:
        """The reader of the runner's output goes away, as `head` does."""
        self._close.set()
        self._reader.join(timeout=5)

    def look(self) -> None:
        self.seen |= descendants(self.process.pid)

    def health(self) -> dict[str, object] | None:
        url = f"http://127.0.0.1:{self.port}/healthz"
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return dict(json.load(answer))
        except urllib.error.HTTPError as refused:
            return dict(json.load(refused))
        except OSError:
            return None

    def wait_until_healthy(self) -> None:
        deadline = time.monotonic() + START_WITHIN
        while time.monotonic() < deadline:
            self.look()
            assert self.process.poll() is None, self.log()
            answer = self.health()
            if answer is not None and answer.get("status") == "ok":
                self.look()
                return
            time.sleep(0.5)
        pytest.fail(f"run_all not healthy within {START_WITHIN} s: {answer}\n{self.log()}")

    def left(self) -> list[Proc]:
        """What still runs of the runner, what it started and their sessions."""
        sessions = {proc.session for proc in self.seen} | {self.process.pid}
        named = {(proc.pid, proc.started) for proc in self.seen}
        return [
            proc
            for proc in all_procs()
            if not proc.zombie
            and (proc.session in sessions or (proc.pid, proc.started) in named)
            and proc.pid != os.getpid()
        ]

    def stopped_within(self, seconds: float) -> float:
        """Seconds until the runner exited and nothing of it was left; fails past `seconds`."""
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            if self.process.poll() is not None and not self.left():
                return time.monotonic() - started
            time.sleep(0.05)
        pytest.fail(
            f"still there after {seconds} s: runner exit {self.process.poll()}, "
            f"left {self.left()}\n{self.log()}"
        )

    def kill_everything(self) -> None:
        for proc in self.left():
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self.close_output()

    def log(self) -> str:
        return self.output.decode(errors="replace")[-6000:]

    def pid_of(self, command_part: str) -> int:
        """The runner's direct child whose command line holds `command_part`."""
        for proc in self.seen:
            if proc.ppid == self.process.pid:
                command = Path(f"/proc/{proc.pid}/cmdline").read_bytes().replace(b"\0", b" ")
                if command_part.encode() in command:
                    return proc.pid
        raise AssertionError(f"no child running {command_part!r}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def var_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The development defaults in a directory of their own, migrated (as `make run`
    does before it starts the runner)."""
    folder = tmp_path_factory.mktemp("run_all")
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=development_env(folder),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture
def runner(var_dir: Path) -> Iterator[Runner]:
    started = Runner(var_dir, free_port())
    try:
        started.wait_until_healthy()
        yield started
    finally:
        started.kill_everything()


def close_the_output(runner: Runner) -> None:
    runner.close_output()


def send(signum: signal.Signals) -> Callable[[Runner], None]:
    def stop(runner: Runner) -> None:
        os.kill(runner.process.pid, signum)

    return stop


def kill_the_api(runner: Runner) -> None:
    # The server's master dies at once; its worker, left behind, must go too.
    os.kill(runner.pid_of("unoservice.serve"), signal.SIGKILL)


def kill_the_worker(runner: Runner) -> None:
    os.kill(runner.pid_of("celery -A unoservice worker"), signal.SIGKILL)


@pytest.mark.parametrize(
    ("stop", "clean_exit"),
    [
        pytest.param(close_the_output, True, id="the reader of its output exits"),
        pytest.param(send(signal.SIGTERM), True, id="SIGTERM"),
        pytest.param(send(signal.SIGINT), True, id="Ctrl-C"),
        pytest.param(kill_the_api, False, id="the API dies"),
        pytest.param(kill_the_worker, False, id="the worker dies"),
    ],
)
def test_run_all_leaves_no_process_behind_within_ten_seconds(
    runner: Runner, stop: Callable[[Runner], None], clean_exit: bool
) -> None:
    # The server's master and worker, Celery's worker and its pool, beat.
    assert len(runner.seen) >= 5, runner.seen
    stop(runner)
    took = runner.stopped_within(STOP_WITHIN)
    print(f"run_all stopped in {took:.2f} s")
    assert runner.process.returncode == (0 if clean_exit else 128 + signal.SIGKILL), runner.log()


def listening_addresses(port: int) -> set[str]:
    """The IPv4 addresses on which a socket of this machine listens on TCP `port`."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        address, _, hex_port = fields[1].partition(":")
        if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


@pytest.mark.parametrize(
    ("host", "listening"),
    [(None, {"127.0.0.1"}), ("0.0.0.0", {"0.0.0.0"})],
    ids=["by default", "with HOST=0.0.0.0"],
)
def test_the_api_listens_on_the_loopback_address_unless_host_says_otherwise(
    var_dir: Path, host: str | None, listening: set[str]
) -> None:
    started = Runner(var_dir, free_port(), host=host)
    try:
        started.wait_until_healthy()
        assert listening_addresses(started.port) == listening
        # What to open is said as a browser opens it, whatever the address listened on.
        assert f"the web client: http://localhost:{started.port}/play/" in started.log()
    finally:
        started.kill_everything()


@pytest.mark.parametrize(
    ("environment", "arguments", "host"),
    [
        ({}, [], "127.0.0.1"),
        ({"HOST": "0.0.0.0"}, [], "0.0.0.0"),
        ({}, ["HOST=0.0.0.0"], "0.0.0.0"),
    ],
    ids=["by default", "HOST in the environment", "HOST on the command line"],
)
def test_make_run_hands_the_runner_the_loopback_address_unless_host_says_otherwise(
    environment: dict[str, str], arguments: list[str], host: str
) -> None:
    env = {**{k: v for k, v in os.environ.items() if k != "HOST"}, **environment}
    done = subprocess.run(
        ["make", "--dry-run", "run", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    [command] = [line for line in done.stdout.splitlines() if "scripts/run_all.py" in line]
    assert f" --host {host} " in command


# A test of the developer's own, run by `make test` beside `make run`: it sends a bot
# turn for real, as the worker-marked tests do, and says where it went.
PROBE = """
import json
import os

from django.conf import settings

from games import dispatch


def test_send_a_bot_turn():
    game_id = "00000000-0000-0000-0000-000000000000"
    dispatch.send(dispatch.BOT_TURN, [game_id, 1], countdown=None, eta=None)
    queue = settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_out"]
    seen = {"var_dir": str(settings.VAR_DIR), "queue": queue, "queued": os.listdir(queue)}
    print("PROBE " + json.dumps(seen))
"""


def test_the_tests_keep_off_a_service_running_from_the_same_checkout(
    runner: Runner, var_dir: Path, tmp_path: Path
) -> None:
    # The shell that started the service still says where its files are.
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    # The checkout's configuration, as `make test` reads it; the probe lies outside.
    pytest_argv = ["-c", "pyproject.toml", "--rootdir", ".", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(probe), "-q", "-s", *pytest_argv],
        cwd=ROOT,
        env=development_env(var_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("PROBE "))
    seen = json.loads(line.removeprefix("PROBE "))
    assert not Path(seen["var_dir"]).is_relative_to(var_dir)
    assert not Path(seen["queue"]).is_relative_to(var_dir)
    assert [name.endswith(".celery.msg") for name in seen["queued"]] == [True]
    # The test run's folder is gone with it, and the service runs on.
    assert not Path(seen["var_dir"]).exists()
    assert runner.health() is not None
    assert runner.health()["status"] == "ok", runner.log()
