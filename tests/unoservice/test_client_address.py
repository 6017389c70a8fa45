"""The per-address rate limit (sign-ups) counts the real client address: a client
cannot write its way past it in X-Forwarded-For unless the service is told how many
proxies in front of it to trust (``NUM_PROXIES``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.settings import api_settings
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.views import APIView

from players.models import Player
from tests.factories import API, assert_error
from unoservice.idempotency import http as idempotency_http
from unoservice.throttling import AnonymousRateThrottle

ATTACKER = "198.51.100.23"
PROXY = "10.0.0.2"


@pytest.fixture
def three_signups_a_minute(monkeypatch: pytest.MonkeyPatch, db: None) -> None:
    monkeypatch.setattr(AnonymousRateThrottle, "rate", "3/min", raising=False)


def sign_up(remote_addr: str, forwarded_for: str | None = None) -> Any:
    headers = {} if forwarded_for is None else {"X-Forwarded-For": forwarded_for}
    return APIClient().post(
        API + "/players", {"name": "Ann"}, format="json", headers=headers, REMOTE_ADDR=remote_addr
    )


@pytest.fixture
def num_proxies(settings: Any) -> Iterator[Callable[[int], None]]:
    """Set NUM_PROXIES as a deployment would: the service's setting, and DRF's, which
    the settings make of it."""

    def use(count: int) -> None:
        settings.NUM_PROXIES = count
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": count}
        api_settings.reload()

    yield use
    api_settings.reload()


def test_forged_forwarded_addresses_do_not_escape_the_sign_up_limit(three_signups_a_minute):
    for _ in range(3):
        assert sign_up(ATTACKER).status_code == 201
    assert_error(sign_up(ATTACKER), 429, "rate_limited")
    # The attack: a fresh made-up X-Forwarded-For on every request.
    for n in range(20):
        assert_error(sign_up(ATTACKER, f"192.0.2.{n}"), 429, "rate_limited")
    assert Player.objects.count() == 3


def test_the_service_trusts_no_forwarded_address_by_default(settings):
    assert settings.NUM_PROXIES == 0
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0


def test_behind_one_trusted_proxy_each_client_behind_it_has_a_limit_of_its_own(
    three_signups_a_minute, num_proxies
):
    num_proxies(1)
    for _ in range(3):
        assert sign_up(PROXY, "203.0.113.1").status_code == 201
    assert_error(sign_up(PROXY, "203.0.113.1"), 429, "rate_limited")
    assert sign_up(PROXY, "203.0.113.2").status_code == 201


def test_behind_one_trusted_proxy_only_the_address_it_appended_counts(
    three_signups_a_minute, num_proxies
):
    num_proxies(1)
    # A client's own X-Forwarded-For entries come first; the proxy appends the
    # address it saw last, and only that one is trusted.
    for n in range(3):
        assert sign_up(PROXY, f"192.0.2.{n}, {ATTACKER}").status_code == 201
    assert_error(sign_up(PROXY, f"192.0.2.99, {ATTACKER}"), 429, "rate_limited")


def test_behind_one_trusted_proxy_the_addresses_of_one_ipv6_network_share_a_limit(
    three_signups_a_minute, num_proxies
):
    num_proxies(1)
    # Three hosts' worth of addresses in one /64 get one address's sign-ups.
    for host in range(3):
        assert sign_up(PROXY, f"2001:db8:1:2::{host + 1}").status_code == 201
    for host in range(10):
        assert_error(sign_up(PROXY, f"2001:db8:1:2:{host}::7"), 429, "rate_limited")
    # Another /64 has a limit of its own, as another IPv4 address does.
    assert sign_up(PROXY, "2001:db8:1:3::1").status_code == 201
    assert Player.objects.count() == 4


def test_an_ipv4_mapped_address_shares_the_limit_of_its_ipv4_address(
    three_signups_a_minute, num_proxies
):
    num_proxies(1)
    for _ in range(3):
        assert sign_up(PROXY, "203.0.113.7").status_code == 201
    assert_error(sign_up(PROXY, "::ffff:203.0.113.7"), 429, "rate_limited")


def test_requests_without_a_token_from_one_ipv6_network_share_their_idempotency_keys(
    num_proxies,
):
    num_proxies(1)

    def owner(forwarded: str) -> str:
        request = APIView().initialize_request(
            APIRequestFactory().post("/", REMOTE_ADDR=PROXY, headers={"X-Forwarded-For": forwarded})
        )
        request.user = None
        return idempotency_http._owner(request)[1]

    # A host retrying from another of its temporary addresses finds its key again.
    assert owner("2001:db8:1:2::1") == owner("2001:db8:1:2:aaaa::9")
    assert owner("2001:db8:1:2::1") != owner("2001:db8:1:3::1")
    assert owner("203.0.113.7") != owner("203.0.113.8")
