"""Clients generated from the schema the service serves play a whole game against it:
a Python client from openapi-python-client, and TypeScript types from
openapi-typescript used with openapi-fetch (tests marked ``node``). Each program
(play.py, play.ts beside this file) signs up, creates a one-round game with a bot,
sends back moves of `you.legal_moves` until the game is over, and reads the events,
the log and the replay, with the generated types alone: type-checked strictly
(mypy, tsc), then run. A schema change that breaks a generated client fails here.

The service is the server command (tests/served.py) with a worker for the bot, both
started once for the module; the clients are generated anew into each test's
temporary folder. The TypeScript tools are installed with `npm ci` from
package-lock.json into node_modules here when what is there is not what it pins.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.served import Client, Served, serving
from tests.support import ROOT
from tests.workers import WITH_A_WORKER, CeleryProcesses, purge_broker

pytestmark = WITH_A_WORKER

HERE = ROOT / "tests" / "clients"
BIN = Path(sys.executable).parent
NODE_MODULES = HERE / "node_modules"
RUN_SECONDS = 300  # a deadline far above the usual few seconds, so that a hang fails


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[Served]:
    """The served service with a worker whose bots play at once."""
    folder = tmp_path_factory.mktemp("clients")
    purge_broker()
    workers = CeleryProcesses(folder, think_seconds=0.0)
    workers.start_worker()
    try:
        with serving(folder, {"BOT_THINK_SECONDS": "0"}) as served:
            yield served
    finally:
        workers.stop()


def run(argv: list[str | Path], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command to the end: its output, or the test fails with what it said."""
    done = subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"{argv[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def served_schema(service: Served, folder: Path) -> Path:
    """The schema as the service serves it, saved to `folder`."""
    answer = Client(service.port, "127.0.0.1").get("/api/v1/schema/?format=json")
    assert answer.status == 200, answer.raw[:500]
    path = folder / "schema.json"
    path.write_bytes(answer.raw)
    return path


def assert_played_a_whole_game(output: str) -> None:
    seen: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    assert seen["status"] == "finished"
    assert seen["winner"] in (0, 1)
    assert seen["moves"] >= 1
    last_seq = seen["last_seq"]
    assert len(seen["events"]) == last_seq
    assert seen["events"][0] == "player_joined"
    assert seen["events"][-1] == "game_ended"
    assert seen["log"] == list(range(1, last_seq + 1))
    assert seen["complete"] is True
    assert seen["replay_seq"] == last_seq


def test_a_generated_python_client_plays_a_whole_game(service: Served, tmp_path: Path):
    schema = served_schema(service, tmp_path)
    config = tmp_path / "generator.yaml"
    config.write_text("post_hooks: []\n")  # the generated code is used, not kept
    run(
        [
            BIN / "openapi-python-client",
            "generate",
            "--path",
            schema,
            "--config",
            config,
            "--meta",
            "none",
            "--output-path",
            tmp_path / "uno_api",
        ],
        cwd=tmp_path,
    )
    program = tmp_path / "play.py"
    shutil.copy(HERE / "play.py", program)
    # Strict, with the generated package's own findings left out: play.py must use
    # its models' types as they are.
    run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--config-file",
            "",
            "--cache-dir",
            tmp_path / ".mypy_cache",
            program,
        ],
        cwd=tmp_path,
    )
    output = run([sys.executable, program, service.url], cwd=tmp_path)
    assert_played_a_whole_game(output)


def installed_as_locked() -> bool:
    """Whether node_modules holds what package-lock.json pins: npm keeps a copy of
    the lockfile's packages there (`.package-lock.json`) when it installs."""
    installed = NODE_MODULES / ".package-lock.json"
    if not installed.exists():
        return False
    locked = json.loads((HERE / "package-lock.json").read_text())["packages"]
    wanted = {path: entry for path, entry in locked.items() if path}
    return bool(json.loads(installed.read_text())["packages"] == wanted)


@pytest.fixture(scope="session")
def node_tools() -> Path:
    """node_modules here, as package-lock.json pins it (`npm ci` when it does not)."""
    if not installed_as_locked():
        run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE)
    assert installed_as_locked()
    return NODE_MODULES


@pytest.mark.node
def test_generated_typescript_types_play_a_whole_game(
    service: Served, tmp_path: Path, node_tools: Path
):
    for name in ("play.ts", "tsconfig.json", "package.json"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(node_tools)
    tools = node_tools / ".bin"
    schema = served_schema(service, tmp_path)
    run([tools / "openapi-typescript", schema, "--output", tmp_path / "schema.d.ts"], cwd=tmp_path)
    run([tools / "tsc", "--project", tmp_path / "tsconfig.json"], cwd=tmp_path)
    output = run(["node", tmp_path / "out" / "play.js", service.url], cwd=tmp_path)
    assert_played_a_whole_game(output)
