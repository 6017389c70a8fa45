"""The engine is pure Python: importing it must not pull in Django or any service."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_engine_loads_no_django_module() -> None:
    code = (
        "import json, sys\n"
        "import games.engine, games.engine.position, games.bots\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = json.loads(result.stdout)
    assert "games.engine.rules" in loaded
    forbidden = ("django", "rest_framework", "celery", "kombu", "psycopg")
    offenders = [name for name in loaded if name.split(".")[0] in forbidden]
    assert offenders == []
