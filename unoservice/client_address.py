"""The client address, and the group of addresses that per-address limits count by.

`address_in` finds the address a request came from, by the ``NUM_PROXIES`` setting
(DRF's own rule); `address_group` decides what it counts as: an IPv4 address
itself, an IPv6 address its /64 network, which one host (one home, one server)
usually holds whole and can spread its requests over. Every per-address count goes
through `group_in` (or `client_group` for a Django request): the API's anonymous
rate limits (sign-ups), the wrong invite codes, the caps on open streams and the
refusals the ASGI layer repeats, the idempotency keys of requests without a token,
and the admin's login lockout (django-axes, `client_group_address`). The cap on
connections per peer (`unoservice.connections`) groups its peer the same way.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The address that sent `request`, as DRF's ``BaseThrottle.get_ident`` finds it
    (`address_in`)."""
    return address_in(request.META)


def address_in(meta: Mapping[str, Any]) -> str:
    """The client address of a request with these WSGI variables.

    With no trusted proxy, REMOTE_ADDR: X-Forwarded-For is then whatever the client
    wrote. Behind ``NUM_PROXIES`` proxies, each appends the address it received from,
    so the client is that many entries from the right; the entries further left were
    written by the client and are ignored. A shorter header means the request passed
    fewer proxies, and its leftmost entry was still written by one of ours.
    """
    remote_addr = meta.get("REMOTE_ADDR", "")
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    num_proxies = int(settings.NUM_PROXIES)
    if num_proxies == 0 or forwarded is None:
        return str(remote_addr)
    entries = str(forwarded).split(",")
    return entries[-min(num_proxies, len(entries))].strip()


def meta_of(scope: Mapping[str, Any]) -> dict[str, Any]:
    """The WSGI variables `address_in` reads, from an ASGI scope, as the WSGI bridge
    (a2wsgi) builds them for Django: repeated X-Forwarded-For headers joined by
    commas. For what is answered outside Django (streams, view reads, the ASGI
    layer's early refusals), so that it counts a client where Django would."""
    client = scope.get("client") or ("", 0)
    meta: dict[str, Any] = {"REMOTE_ADDR": client[0]}
    forwarded = [value for name, value in scope["headers"] if name == b"x-forwarded-for"]
    if forwarded:
        meta["HTTP_X_FORWARDED_FOR"] = b",".join(forwarded).decode("latin1")
    return meta


def group_in(meta: Mapping[str, Any]) -> str:
    """The group (`address_group`) of the client address of a request with these
    WSGI variables: what its per-address limits count by."""
    return address_group(address_in(meta))


def client_group(request: HttpRequest) -> str:
    """The group of the address that sent `request` (`group_in`)."""
    return group_in(request.META)


def client_group_address(request: HttpRequest) -> str:
    """One address standing for the group of `request`'s client: the address itself
    for IPv4, the first address of its /64 for IPv6. For django-axes, which stores
    and compares the addresses it locks in an IP address column, where a network does
    not fit."""
    group = client_group(request)
    try:
        return str(ipaddress.ip_network(group).network_address)
    except ValueError:
        return group


# Parsed for every request and stream; the same few addresses come again and again.
@functools.lru_cache(maxsize=4096)
def address_group(address: str) -> str:
    """What per-address limits count `address` by: an IPv4 address itself (an
    IPv4-mapped IPv6 one as IPv4), an IPv6 address's /64 network."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
