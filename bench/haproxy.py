"""The balancer's configuration (deploy/haproxy.cfg), read as its sections, and made
into one that runs here: the same options and timeouts in front of local servers
instead of the replicas Docker's DNS names."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path

from bench.processes import ROOT

CONFIG = ROOT / "deploy" / "haproxy.cfg"
SECTION = re.compile(r"^(global|defaults|frontend|backend|listen|resolvers|peers)\b")


def haproxy() -> str | None:
    """Debian's haproxy (.ci/run installs it), if this machine has one."""
    return shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy",) if Path(p).exists()), None
    )


def sections(text: str | None = None) -> dict[str, list[str]]:
    """Each section's header ("backend nodes") -> its lines, comments left out."""
    found: dict[str, list[str]] = {}
    current: list[str] = []
    for raw in (CONFIG.read_text() if text is None else text).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if SECTION.match(raw):
            current = found.setdefault(" ".join(line.split()), [])
        else:
            current.append(" ".join(line.split()))
    return found


def seconds(value: str) -> float:
    """An HAProxy time ("5s", "1h", "500ms"; milliseconds without a unit)."""
    number, unit = re.fullmatch(r"(\d+)(us|ms|s|m|h|d)?", value).groups()  # type: ignore[union-attr]
    scale = {"us": 1e-6, "ms": 1e-3, None: 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400}
    return int(number) * scale[unit]


def local_config(listen_port: int, servers: Sequence[int], admin_socket: Path | None = None) -> str:
    """deploy/haproxy.cfg listening on `listen_port` of 127.0.0.1, with a server on
    each local port of `servers` where it discovers the replicas through Docker's
    DNS. Each answer names its server in `X-Served-By`, for a test to see where a
    request went. With `admin_socket`, the runtime API listens there (`runtime`)."""
    text = CONFIG.read_text()
    if admin_socket is not None:
        stats = f"global\n    stats socket {admin_socket} mode 600 level admin\n"
        text = re.sub(r"(?m)^global\n", stats, text, count=1)
    text = re.sub(r"(?ms)^resolvers docker\n.*?(?=^\S)", "", text)
    text = text.replace("bind :8000", f"bind 127.0.0.1:{listen_port}")
    local = "\n".join(
        f"    server node{n} 127.0.0.1:{port} check" for n, port in enumerate(servers, 1)
    )
    text, replaced = re.subn(r"(?m)^\s*server-template .*$", local, text)
    assert replaced == 1, "deploy/haproxy.cfg has no server-template line"
    return text + "    http-response set-header X-Served-By %s\n"


def check(path: Path) -> subprocess.CompletedProcess[str]:
    """`haproxy -c -f path`: does HAProxy accept the file?"""
    binary = haproxy()
    assert binary is not None, "haproxy is not installed (apt-get install haproxy)"
    return subprocess.run([binary, "-c", "-f", str(path)], capture_output=True, text=True)


def runtime(admin_socket: Path, command: str) -> str:
    """One command of HAProxy's runtime API (`add server`, `enable server`, `show
    stat`...): what it answered."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(10)
        sock.connect(str(admin_socket))
        sock.sendall(command.encode() + b"\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.decode()
