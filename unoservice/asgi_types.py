"""The ASGI types the service's own ASGI code is written with (the server, its
guards, the streams): plain aliases, as the ASGI specification describes them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

Scope: TypeAlias = dict[str, Any]
Message: TypeAlias = dict[str, Any]
Receive: TypeAlias = Callable[[], Awaitable[Message]]
Send: TypeAlias = Callable[[Message], Awaitable[None]]
ASGIApp: TypeAlias = Callable[[Scope, Receive, Send], Awaitable[None]]
