"""The counts of wrong invite codes (`unoservice.throttling.count_invite_code_attempt`):
per player and per address, counted before the code is judged, refused attempts and
right codes taken back."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.conf import settings

from tests.factories import PlayerFactory
from unoservice.client_address import address_group
from unoservice.errors import RateLimited
from unoservice.throttling import (
    CountedAttempt,
    FailedInviteCodeAddressThrottle,
    FailedInviteCodeThrottle,
    count_invite_code_attempt,
)

pytestmark = pytest.mark.django_db

PER_PLAYER, PER_ADDRESS = 3, 5


@pytest.fixture(autouse=True)
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FailedInviteCodeThrottle, "rate", f"{PER_PLAYER}/min", raising=False)
    monkeypatch.setattr(
        FailedInviteCodeAddressThrottle, "rate", f"{PER_ADDRESS}/min", raising=False
    )


def request_of(player: Any, address: str = "192.0.2.7", **meta: str) -> dict[str, Any]:
    """What the counts read of a request: its player and its WSGI variables."""
    return {"player": player, "meta": {"REMOTE_ADDR": address, **meta}}


def attempts(request: dict[str, Any], times: int) -> list[CountedAttempt | RateLimited]:
    found: list[CountedAttempt | RateLimited] = []
    for _ in range(times):
        try:
            found.append(count_invite_code_attempt(**request))
        except RateLimited as refused:
            found.append(refused)
    return found


def refusals(found: list[CountedAttempt | RateLimited]) -> int:
    return sum(isinstance(item, RateLimited) for item in found)


def test_the_rates_come_from_the_settings():
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert (rates["invite_code"], rates["invite_code_address"]) == ("10/min", "30/min")


def test_a_player_is_refused_after_their_rate_of_wrong_codes_with_the_wait():
    found = attempts(request_of(PlayerFactory()), PER_PLAYER + 2)
    assert refusals(found) == 2
    refused = found[-1]
    assert isinstance(refused, RateLimited)
    assert refused.details["retry_after"] >= 1


def test_right_codes_are_taken_back_and_do_not_count():
    request = request_of(PlayerFactory())
    for _ in range(PER_PLAYER * 3):
        count_invite_code_attempt(**request).release()
    assert refusals(attempts(request, PER_PLAYER)) == 0


def test_refused_attempts_are_taken_back_from_the_other_count():
    """A player refused by their own count does not use up their address's."""
    address = "192.0.2.8"
    assert refusals(attempts(request_of(PlayerFactory(), address), PER_PLAYER + 10)) == 10
    others = attempts(request_of(PlayerFactory(), address), PER_PLAYER)
    assert len(others) - refusals(others) == PER_ADDRESS - PER_PLAYER


def test_many_players_from_one_address_share_its_count():
    found = [
        item
        for _ in range(4)
        for item in attempts(request_of(PlayerFactory(), "192.0.2.9"), PER_PLAYER)
    ]
    assert len(found) - refusals(found) == PER_ADDRESS
    assert refusals(attempts(request_of(PlayerFactory(), "192.0.2.10"), 1)) == 0


def test_the_addresses_of_one_ipv6_network_share_a_count():
    found = [
        item
        for host in range(4)
        for item in attempts(request_of(PlayerFactory(), f"2001:db8:1:2::{host + 1}"), 2)
    ]
    assert len(found) - refusals(found) == PER_ADDRESS


def test_behind_a_proxy_the_address_is_the_forwarded_one(settings):
    settings.NUM_PROXIES = 1
    found = [
        item
        for _ in range(3)
        for item in attempts(
            request_of(PlayerFactory(), "10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.4"),
            PER_PLAYER,
        )
    ]
    assert len(found) - refusals(found) == PER_ADDRESS
    other = request_of(PlayerFactory(), "10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.5")
    assert refusals(attempts(other, 1)) == 0


def test_attempts_at_once_are_let_through_exactly_to_the_rate():
    request = request_of(PlayerFactory())
    barrier = threading.Barrier(40)
    found: list[CountedAttempt | RateLimited] = []
    lock = threading.Lock()

    def attempt() -> None:
        barrier.wait(timeout=30)
        item = attempts(request, 1)[0]
        with lock:
            found.append(item)

    threads = [threading.Thread(target=attempt) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(found) == 40
    assert len(found) - refusals(found) == PER_PLAYER


@pytest.mark.parametrize(
    ("address", "counted_as"),
    [
        ("192.0.2.1", "192.0.2.1"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::99", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("not an address", "not an address"),
        ("", ""),
    ],
)
def test_an_address_is_counted_as_itself_or_its_ipv6_network(address, counted_as):
    assert address_group(address) == counted_as
