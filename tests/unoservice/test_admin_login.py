"""Guessing staff passwords at /admin/login/ is throttled (django-axes): too many
failures lock the username and, separately, the client address, for a cool-off,
and the client address is the one the API's rate limits see (NUM_PROXIES).

Every attack here is sent over HTTP to the login form, as an attacker would."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client, RequestFactory, override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import BaseThrottle

from tests.support import settings_with
from unoservice.client_address import client_address

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _quick_password_hashes(settings) -> None:
    """A test posts a dozen logins; each would spend most of a second in PBKDF2."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def boss(django_user_model):
    return django_user_model.objects.create_superuser("boss", password=PASSWORD)


@pytest.fixture
def deputy(django_user_model):
    return django_user_model.objects.create_superuser("deputy", password=PASSWORD)


def log_in(
    username: str, password: str, *, address: str, forwarded: str | None = None
) -> tuple[Client, int]:
    """A fresh browser posting the admin's login form; the client and the status."""
    client = Client()
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    answer = client.post(
        LOGIN,
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
        headers=headers,
    )
    return client, answer.status_code


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def limit() -> int:
    return int(settings.AXES_FAILURE_LIMIT)


def lockout_settings(**env: str) -> list[object]:
    """The lockout settings that settings.py makes of `env` (ADMIN_LOGIN_* only)."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("ADMIN_LOGIN_")}
    return settings_with(  # type: ignore[no-any-return]
        {**inherited, **env},
        "[s.AXES_FAILURE_LIMIT, s.AXES_COOLOFF_TIME.total_seconds(), "
        "s.AXES_LOCKOUT_PARAMETERS, s.AXES_RESET_ON_SUCCESS]",
    )


def test_by_default_five_failures_lock_for_fifteen_minutes_by_username_or_address():
    assert lockout_settings() == [5, 15 * 60, ["username", "ip_address"], True]


def test_the_limit_and_the_cool_off_are_read_from_the_environment():
    limit, cool_off, *_ = lockout_settings(
        ADMIN_LOGIN_FAILURE_LIMIT="3", ADMIN_LOGIN_COOLOFF_MINUTES="60"
    )
    assert (limit, cool_off) == (3, 60 * 60)


def test_the_right_password_works_while_the_failures_stay_under_the_limit(boss):
    for _ in range(limit() - 1):
        client, status = log_in("boss", "guess", address="10.0.0.1")
        assert status == 200  # the form again, with its error
        assert not logged_in(client)
    client, status = log_in("boss", PASSWORD, address="10.0.0.1")
    assert status == 302
    assert logged_in(client)


def test_after_too_many_wrong_passwords_even_the_right_one_is_refused(boss):
    for _ in range(limit()):
        log_in("boss", "guess", address="10.0.0.1")
    client = Client()
    answer = client.post(LOGIN, {"username": "boss", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    assert answer.status_code == 429
    assert "too many login attempts" in answer.content.decode()
    assert not logged_in(client)


def test_wrong_passwords_for_many_usernames_from_one_address_lock_that_address(boss):
    for n in range(limit()):
        log_in(f"someone{n}", "guess", address="10.0.0.1")
    client, status = log_in("boss", PASSWORD, address="10.0.0.1")
    assert status == 429
    assert not logged_in(client)
    # The username itself was never guessed at: from elsewhere it still logs in.
    client, status = log_in("boss", PASSWORD, address="10.0.0.2")
    assert status == 302
    assert logged_in(client)


def test_wrong_passwords_spread_over_many_addresses_lock_that_username(boss, deputy):
    for n in range(limit()):
        log_in("boss", "guess", address=f"10.0.1.{n + 1}")
    client, status = log_in("boss", PASSWORD, address="10.0.2.1")
    assert status == 429
    assert not logged_in(client)
    # Another account, from an address that made no guess, is not locked with it.
    client, status = log_in("deputy", PASSWORD, address="10.0.3.1")
    assert status == 302
    assert logged_in(client)


@override_settings(NUM_PROXIES=0)
def test_a_forged_x_forwarded_for_does_not_escape_the_address_lock(boss):
    for n in range(limit()):
        log_in(f"someone{n}", "guess", address="10.0.0.1", forwarded=f"192.0.2.{n + 1}")
    client, status = log_in("boss", PASSWORD, address="10.0.0.1", forwarded="198.51.100.7")
    assert status == 429
    assert not logged_in(client)


@override_settings(NUM_PROXIES=1)
def test_behind_a_trusted_proxy_each_forwarded_client_is_counted_on_its_own(boss):
    proxy = "10.9.9.9"
    for n in range(limit()):
        # A client's own X-Forwarded-For entries (left of the proxy's) count for nothing.
        log_in(f"someone{n}", "guess", address=proxy, forwarded=f"192.0.2.{n}, 203.0.113.5")
    client, status = log_in("boss", PASSWORD, address=proxy, forwarded="198.51.100.1, 203.0.113.5")
    assert status == 429
    assert not logged_in(client)
    client, status = log_in("boss", PASSWORD, address=proxy, forwarded="203.0.113.6")
    assert status == 302
    assert logged_in(client)


@override_settings(NUM_PROXIES=1)
def test_behind_a_trusted_proxy_the_addresses_of_one_ipv6_network_share_a_lock(boss):
    proxy = "10.9.9.9"
    for n in range(limit()):
        log_in(f"someone{n}", "guess", address=proxy, forwarded=f"2001:db8:1:2:{n}::{n + 1}")
    client, status = log_in("boss", PASSWORD, address=proxy, forwarded="2001:db8:1:2::beef")
    assert status == 429
    assert not logged_in(client)
    # Another /64 is another client, as another IPv4 address is.
    client, status = log_in("boss", PASSWORD, address=proxy, forwarded="2001:db8:1:3::1")
    assert status == 302
    assert logged_in(client)


def test_the_lock_ends_after_the_cool_off(boss):
    for _ in range(limit()):
        log_in("boss", "guess", address="10.0.0.1")
    assert log_in("boss", PASSWORD, address="10.0.0.1")[1] == 429
    earlier = settings.AXES_COOLOFF_TIME + timedelta(minutes=1)
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= earlier
        attempt.save(update_fields=["attempt_time"])
    client, status = log_in("boss", PASSWORD, address="10.0.0.1")
    assert status == 302
    assert logged_in(client)


def test_a_successful_login_forgets_the_earlier_failures(boss):
    for _ in range(limit() - 1):
        log_in("boss", "typo", address="10.0.0.1")
    assert log_in("boss", PASSWORD, address="10.0.0.1")[1] == 302
    for _ in range(limit() - 1):
        log_in("boss", "typo", address="10.0.0.1")
    client, status = log_in("boss", PASSWORD, address="10.0.0.1")
    assert status == 302
    assert logged_in(client)


def test_the_json_api_still_answers_a_locked_out_address(boss):
    for n in range(limit()):
        log_in(f"someone{n}", "guess", address="10.0.0.1")
    assert log_in("boss", PASSWORD, address="10.0.0.1")[1] == 429
    api = APIClient(REMOTE_ADDR="10.0.0.1")
    created = api.post("/api/v1/players", {"name": "Ann"}, format="json")
    assert created.status_code == 201, created.content
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {created.json()['token']}")
    me = api.get("/api/v1/players/me")
    assert me.status_code == 200
    assert me.json()["name"] == "Ann"
    api.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    refused = api.get("/api/v1/players/me")
    assert refused.status_code == 401
    assert refused["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("num_proxies", [0, 1, 2])
@pytest.mark.parametrize(
    "forwarded",
    [None, "203.0.113.5", "192.0.2.1, 203.0.113.5", " 192.0.2.1 ,198.51.100.2, 203.0.113.5"],
)
def test_the_admin_and_the_api_see_the_same_client_address(num_proxies, forwarded):
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    request = RequestFactory().get("/", REMOTE_ADDR="10.9.9.9", headers=headers)
    rest = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}
    with override_settings(NUM_PROXIES=num_proxies, REST_FRAMEWORK=rest):
        assert client_address(request) == BaseThrottle().get_ident(request)
