"""unoservice.outbound, the one way the service calls out: only public addresses,
checked where the connection goes; one deadline for the whole call; a cap on the
answer read; no redirect followed. The bounds asserted are the deadline's, given
generous slack."""

from __future__ import annotations

import ipaddress
import socket
import time

import pytest
import requests

from unoservice import outbound

CAP = 64 * 1024
DEADLINE = 2.0
SLACK = 3.0


def local_session(deadline: float = DEADLINE) -> outbound.Session:
    return outbound.Session(deadline=deadline, max_bytes=CAP, local=True)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "2002:7f00:1::",
    ],
)
def test_no_address_inside_the_network_or_reserved_is_public(address):
    assert not outbound.public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["142.250.74.10", "2a00:1450:4001:80b::200a"])
def test_addresses_on_the_internet_are_public(address):
    assert outbound.public(ipaddress.ip_address(address))


def test_local_lets_loopback_through_and_nothing_else_inside_the_network():
    for address in ("127.0.0.1", "::1"):
        assert outbound.allowed(ipaddress.ip_address(address), local=True)
        assert not outbound.allowed(ipaddress.ip_address(address), local=False)
    for address in ("10.0.0.1", "169.254.169.254", "192.168.0.1"):
        assert not outbound.allowed(ipaddress.ip_address(address), local=True)


def test_a_name_that_resolves_inside_the_network_is_refused_before_any_connection(
    monkeypatch, hostile_service
):
    port = int(hostile_service.origin.rsplit(":", 1)[1])

    def resolves_to_loopback(host, port_, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port_))]

    connects: list[object] = []
    monkeypatch.setattr(socket, "getaddrinfo", resolves_to_loopback)
    monkeypatch.setattr(socket.socket, "connect", lambda self, addr: connects.append(addr))
    session = outbound.Session(deadline=DEADLINE, max_bytes=CAP)
    with pytest.raises(outbound.AddressRefused, match=r"127\.0\.0\.1"):
        session.post(f"https://fcm.googleapis.com:{port}/push/x", data=b"x")
    assert connects == []
    assert hostile_service.hits == {}


def test_one_address_inside_the_network_among_public_ones_refuses_the_name(monkeypatch):
    def mixed(host, port, *args, **kwargs):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("142.250.74.10", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", mixed)
    with pytest.raises(outbound.AddressRefused, match=r"10\.0\.0\.7"):
        outbound.Session(deadline=DEADLINE, max_bytes=CAP).get("https://push.example.com/")


def test_loopback_is_refused_unless_the_session_is_local(hostile_service):
    with pytest.raises(outbound.AddressRefused):
        outbound.Session(deadline=DEADLINE, max_bytes=CAP).post(
            f"{hostile_service.origin}/push/x".replace("http://", "https://")
        )
    assert local_session().post(f"{hostile_service.origin}/push/x").status_code == 201


def test_plain_http_is_refused_unless_the_session_is_local():
    with pytest.raises(outbound.AddressRefused, match="https"):
        outbound.Session(deadline=DEADLINE, max_bytes=CAP).get("http://push.example.com/")


@pytest.mark.parametrize("follow", [True, False])
def test_a_redirect_is_the_answer_and_its_target_is_never_asked(hostile_service, follow):
    response = local_session().post(
        f"{hostile_service.origin}/push/redirect", data=b"secret", allow_redirects=follow
    )
    assert response.status_code == 307
    assert hostile_service.hits["target"] == 0


def test_a_server_dripping_its_headers_is_given_up_at_the_deadline(hostile_service):
    start = time.monotonic()
    with pytest.raises(outbound.DeadlineExceeded):
        local_session().post(f"{hostile_service.origin}/push/drip", timeout=60)
    assert time.monotonic() - start < DEADLINE + SLACK
    assert hostile_service.hits["drip"] == 1


def test_a_huge_answer_is_read_no_further_than_the_cap_and_its_connection_dropped(
    hostile_service,
):
    with pytest.raises(outbound.AnswerTooLarge):
        local_session(deadline=30).post(f"{hostile_service.origin}/push/huge")
    time.sleep(0.5)
    # What the socket buffers took before the connection went, not 300 MiB.
    assert hostile_service.sent_bytes < 32 * 1024 * 1024


def test_an_answer_as_long_as_the_cap_is_read_whole_and_kept(hostile_service):
    response = local_session().get(f"{hostile_service.origin}/sized/{CAP}")
    assert response.content == b"y" * CAP
    assert response.text == "y" * CAP


def test_requests_errors_still_reach_the_caller_as_requests_errors():
    with pytest.raises(requests.ConnectionError):
        local_session().get("http://127.0.0.1:1/")
