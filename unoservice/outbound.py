"""The one way the service calls out over HTTP (push services now; identity providers
and mail later): a `requests` session that cannot be aimed inside the network, nor
held or flooded by whoever answers.

- Every address a host resolves to is checked when the connection is made, and the
  connection goes to the address checked (the TLS name and Host stay the host's):
  loopback, private, link-local, multicast, reserved and every other non-global
  range is refused, so a name that resolves inside the network (or is made to, by
  DNS answers that change) gets nowhere. Refused before any connection:
  `AddressRefused`.
- One deadline for the whole call, on the wall clock: resolving, connecting, TLS,
  sending, the status line and headers, the body. A watchdog shuts the connection's
  socket down when it passes, so a server sending a byte now and then cannot hold
  the caller past it: `DeadlineExceeded` (a `requests.Timeout`).
- At most `max_bytes` of an answer's body are read; a longer one is dropped unread
  with its connection: `AnswerTooLarge`. Bodies are asked for uncompressed and kept
  as they come (never decompressed), so the cap is on what is held.
- Redirects are never followed, whatever the caller asks (`allow_redirects`): a 3xx
  is the answer. Proxies from the environment are ignored (they would connect to
  the target unchecked).

`local=True` (development and tests only) also lets loopback addresses and plain
http through; every other non-global range stays refused.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError

READ_CHUNK = 16 * 1024
# Resolutions run here, so that a resolver that hangs is bounded by the deadline too.
_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="outbound-resolve")
_calls = threading.local()

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressRefused(requests.ConnectionError):
    """The host resolves to an address the service never calls (or the URL's scheme
    is refused); no connection was made."""


class DeadlineExceeded(requests.Timeout):
    """The call's deadline passed before the whole answer came."""


class AnswerTooLarge(requests.RequestException):
    """The answer's body is longer than the session reads."""


class _Refused(Exception):
    # Raised inside urllib3, which would wrap any OSError (requests' errors are) into
    # a retry of its own; turned into `AddressRefused` by the session.
    pass


def public(address: IPAddress) -> bool:
    """Whether `address` is on the public internet: global, not multicast, not
    reserved (an IPv4 address inside IPv6 judged as itself)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return public(embedded)
        if address.teredo is not None:
            return all(public(inner) for inner in address.teredo)
    return address.is_global and not address.is_multicast and not address.is_reserved


def allowed(address: IPAddress, *, local: bool) -> bool:
    return public(address) or (local and address.is_loopback)


class _Call:
    """One call's deadline and the sockets it reads, shut down when it passes."""

    def __init__(self, seconds: float, local: bool) -> None:
        self.deadline = time.monotonic() + seconds
        self.local = local
        self.expired = False
        self.lock = threading.Lock()
        # Duplicates of the connections' descriptors: shutting one down ends the
        # connection for every descriptor of it (TLS wrapping included), and, being
        # this call's own, its number cannot meanwhile be another socket's.
        self.watched: list[socket.socket] = []
        self.timer = threading.Timer(seconds, self.expire)
        self.timer.daemon = True

    def left(self) -> float:
        return max(self.deadline - time.monotonic(), 0.0)

    def watch(self, sock: socket.socket | None) -> None:
        if sock is None or sock.fileno() < 0:
            return
        duplicate = socket.socket(fileno=os.dup(sock.fileno()))
        with self.lock:
            self.watched.append(duplicate)
            if self.expired:
                _shut(duplicate)

    def expire(self) -> None:
        with self.lock:
            self.expired = True
            for sock in self.watched:
                _shut(sock)

    def close(self) -> None:
        self.timer.cancel()
        with self.lock:
            for sock in self.watched:
                sock.close()
            self.watched.clear()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _current() -> _Call:
    call: _Call | None = getattr(_calls, "call", None)
    if call is None:
        raise _Refused("outbound connections are made by unoservice.outbound.Session only")
    return call


def resolve(host: str, port: int, *, seconds: float) -> list[tuple[Any, ...]]:
    """getaddrinfo's TCP entries for (host, port), given up after `seconds`."""
    future = _resolver.submit(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    try:
        return future.result(timeout=seconds)
    except FutureTimeout:
        raise TimeoutError(f"resolving {host} took longer than the deadline") from None


class _CheckedConnection(HTTPConnection):
    """Connects only to addresses `allowed`, resolved here and checked all together
    (one inside the network refuses the host), and puts the socket under the call's
    watchdog."""

    def _new_conn(self) -> socket.socket:
        call = _current()
        host = self._dns_host.strip("[]")
        try:
            infos = resolve(host, self.port, seconds=call.left())
        except socket.gaierror as error:
            raise NameResolutionError(self.host, self, error) from error
        except TimeoutError as error:
            raise ConnectTimeoutError(self, str(error)) from error
        for *_, sockaddr in infos:
            address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
            if not allowed(address, local=call.local):
                raise _Refused(f"{self.host} resolves to {address}, which is not public")
        last: OSError | None = None
        for family, kind, proto, _, sockaddr in infos:
            sock = socket.socket(family, kind, proto)
            try:
                for option in self.socket_options or ():
                    sock.setsockopt(*option)
                timeout = self.timeout if isinstance(self.timeout, int | float) else None
                sock.settimeout(min(timeout or call.left(), call.left()))
                call.watch(sock)
                sock.connect(sockaddr)
                return sock
            except TimeoutError as error:
                sock.close()
                raise ConnectTimeoutError(self, f"connecting to {self.host} timed out") from error
            except OSError as error:
                sock.close()
                last = error
        raise NewConnectionError(self, f"Failed to establish a new connection: {last}")

    def request(self, *args: Any, **kwargs: Any) -> None:
        # A connection kept from an earlier call is watched by this one.
        _current().watch(self.sock)
        super().request(*args, **kwargs)


class _CheckedHTTPSConnection(_CheckedConnection, HTTPSConnection):
    pass


class _CheckedPool(HTTPConnectionPool):
    ConnectionCls = _CheckedConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class _Adapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _CheckedPool, "https": _CheckedHTTPSPool}


class Session(requests.Session):
    """A requests session for calling out: `deadline` seconds for each whole call,
    at most `max_bytes` of each answer read, no redirect followed, only public
    addresses (loopback and plain http too with `local`). Each call's answer has
    its body read already (`.content`, `.text` and `.json()` read what was kept)."""

    def __init__(self, *, deadline: float, max_bytes: int, local: bool = False) -> None:
        super().__init__()
        self.deadline = deadline
        self.max_bytes = max_bytes
        self.local = local
        self.max_redirects = 0
        self.trust_env = False
        self.headers["Accept-Encoding"] = "identity"
        for scheme in ("http://", "https://"):
            self.mount(scheme, _Adapter())

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        # Never followed, whichever way the call was made: a 3xx is the answer.
        return None

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        if not (request.url or "").lower().startswith("https://" if not self.local else "http"):
            raise AddressRefused(f"only https URLs are called: {request.url}", request=request)
        call = _Call(self.deadline, self.local)
        kwargs.update(
            allow_redirects=False, stream=True, proxies={}, timeout=(call.left(), call.left())
        )
        _calls.call = call
        call.timer.start()
        try:
            response = super().send(request, **kwargs)
            self._read(response, call)
            if call.expired:
                # The watchdog's shutdown can look like the end of a body of no length.
                raise DeadlineExceeded(
                    f"no whole answer within {self.deadline:g} s", request=request
                )
            return response
        except _Refused as error:
            raise AddressRefused(str(error), request=request) from None
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as error:
            # Every timeout given to the socket is what was left of the deadline, so one
            # that fires is the deadline too, even a moment before the watchdog's.
            timed_out = (requests.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)
            if call.expired or isinstance(error, timed_out):
                raise DeadlineExceeded(
                    f"no whole answer within {self.deadline:g} s", request=request
                ) from error
            if isinstance(error, requests.RequestException):
                raise
            raise requests.ConnectionError(error, request=request) from error
        finally:
            _calls.call = None
            call.close()

    def _read(self, response: requests.Response, call: _Call) -> None:
        body = bytearray()
        raw = response.raw
        while len(body) <= self.max_bytes:
            chunk = raw.read(min(READ_CHUNK, self.max_bytes + 1 - len(body)), decode_content=False)
            if not chunk:
                break
            body += chunk
        if len(body) > self.max_bytes:
            # The rest is never read: the connection goes with it.
            raw.close()
            raise AnswerTooLarge(
                f"the answer is longer than {self.max_bytes} bytes", response=response
            )
        response._content = bytes(body)
        response._content_consumed = True  # type: ignore[attr-defined]
        raw.release_conn()


_kept = threading.local()


def thread_session(*, deadline: float, max_bytes: int, local: bool = False) -> Session:
    """This thread's `Session` with these limits, made once: its connections to a
    host are reused from one call to the next (requests' sessions are not shared
    between threads)."""
    key = (deadline, max_bytes, local)
    kept: dict[tuple[float, int, bool], Session] = getattr(_kept, "sessions", None) or {}
    _kept.sessions = kept
    if key not in kept:
        kept[key] = Session(deadline=deadline, max_bytes=max_bytes, local=local)
    return kept[key]
