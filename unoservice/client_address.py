"""The client address that per-address limits count by, for code outside DRF.

DRF's throttles find it from ``REST_FRAMEWORK["NUM_PROXIES"]``; the admin's login
lockout (django-axes) calls `client_address`; the limit of wrong invite codes per
address, the caps on open streams and the refusals the ASGI layer repeats call
`address_in` (they count where there is no Django request too): all apply the same
rule to the ``NUM_PROXIES`` setting, so all count a client under the same address.
"""

from __future__ import annotations

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
