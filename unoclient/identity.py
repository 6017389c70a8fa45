"""Who the player is between runs: the token of the player signed up on a server,
kept in a file of the user's configuration directory (one file per server URL,
readable by its owner alone) and reused on the next run; linking an email address
to that player, and signing in with one (a code mailed to it) on this machine."""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import platform
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from unoclient.api import Api, ApiError


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/unoclient`, else `~/.config/unoclient`."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "unoclient"


def login_name() -> str:
    """The name a new player gets without `--name`: the user's login name."""
    return getpass.getuser()[:32] or "Player"


def token_file(directory: Path, server: str) -> Path:
    """The file of `server`'s player: readable host and port, and a digest of the
    whole URL so that two servers never share a file."""
    url = server.rstrip("/")
    readable = "".join(c if c.isalnum() or c in ".-" else "_" for c in url.split("://")[-1])
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return directory / f"{readable[:60]}-{digest}.json"


def _load(path: Path) -> dict[str, Any] | None:
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or not isinstance(saved.get("token"), str):
        return None
    return saved


def _save(path: Path, saved: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.chmod(path, 0o600)  # a file that existed keeps its old mode through os.open
    with os.fdopen(descriptor, "w") as out:
        json.dump(saved, out)


def sign_in(api: Api, *, name: str, directory: Path, fresh: bool = False) -> dict[str, Any]:
    """The player `api` now speaks for (`{"id", "name"}`), its token set on `api`.

    The player saved for this server is reused unless `fresh` is set, there is none,
    or the server no longer knows its token (401); then a new player named `name`
    signs up and replaces the saved one. The token is never shown.
    """
    server = api.base.removesuffix("/api/v1")
    path = token_file(directory, server)
    saved = None if fresh else _load(path)
    if saved is not None:
        api.token = saved["token"]
        try:
            me = api.get("/players/me")
        except ApiError as error:
            if error.status != 401:
                raise
        else:
            return {"id": me["id"], "name": me["name"], "returning": True}
    api.token = None
    player = api.post("/players", {"name": name})
    api.token = player["token"]
    _save(path, {"server": server, **player})
    return {"id": player["id"], "name": player["name"], "returning": False}


def device_name() -> str:
    """What the player's session list calls this machine."""
    return f"Terminal on {platform.node() or 'this computer'}"[:64]


def _mailed_code(api: Api, email: str, ask: Callable[[str], str]) -> str:
    api.post("/players/email-codes", {"email": email})
    return ask(f"A code was mailed to {email} (it is good for 10 minutes). Code: ").strip()


def sign_in_by_email(
    api: Api, *, email: str, directory: Path, ask: Callable[[str], str]
) -> dict[str, Any]:
    """Sign this machine in as the player who linked `email`: a code is mailed there,
    `ask` gets it from the person, and the new session's token replaces the player
    saved for this server. The token is never shown."""
    server = api.base.removesuffix("/api/v1")
    api.token = None
    code = _mailed_code(api, email, ask)
    player = api.post("/players/sign-in", {"email": email, "code": code, "device": device_name()})
    api.token = player["token"]
    _save(token_file(directory, server), {"server": server, **player})
    return {"id": player["id"], "name": player["name"], "returning": True}


def link_email(
    api: Api, *, email: str, name: str, directory: Path, ask: Callable[[str], str]
) -> dict[str, Any]:
    """Link `email` to the player saved for this server (signed up now if there is
    none), by a code mailed there that `ask` gets from the person: the player can then
    sign in with it anywhere. Returns the identity linked."""
    sign_in(api, name=name, directory=directory)
    code = _mailed_code(api, email, ask)
    linked: dict[str, Any] = api.post("/players/me/identities", {"email": email, "code": code})
    return linked
