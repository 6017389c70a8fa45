"""Google and Apple accounts, by the ID token the app holds, through the API: linked
to a guest, then signing in on a new device; every fault of a token refused with
its reason (the checks themselves: tests/players/test_id_tokens.py)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from players.models import Identity
from tests.factories import Persona, assert_error
from tests.oidc_issuer import Issuer, new_rsa_key

pytestmark = pytest.mark.django_db

API = "/api/v1"


def sign_in(**body: Any) -> Any:
    client = APIClient(REMOTE_ADDR="198.51.100.30")
    return client.post(f"{API}/players/sign-in", body, format="json")


def link(persona: Persona, token: str, **more: Any) -> Any:
    return persona.post("/players/me/identities", {"provider": "google", "id_token": token, **more})


def test_a_guest_links_google_and_signs_in_with_it_on_a_new_device(host: Persona, issuer: Issuer):
    linked = link(host, issuer.token(nonce="n-1"), nonce="n-1")
    assert linked.status_code == 201, linked.json()
    assert (linked.json()["kind"], linked.json()["email"]) == ("google", "ann@example.com")
    assert host.get("/players/me").json()["recoverable"] is True

    answer = sign_in(
        provider="google", id_token=issuer.token(nonce="n-2"), nonce="n-2", device="tv"
    )

    assert answer.status_code == 200, answer.json()
    assert answer.json()["id"] == str(host.player.pk)
    assert Identity.objects.get(kind="google").last_used_at is not None


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (lambda issuer: issuer.token(aud="another.app"), "audience"),
        (lambda issuer: issuer.token(exp=int(time.time()) - 120), "expired"),
        (lambda issuer: issuer.token(key=new_rsa_key()), "signature"),
        (lambda issuer: issuer.token(kid="made-up", key=new_rsa_key()), "unknown_key"),
    ],
    ids=["wrong-audience", "expired", "bad-signature", "unknown-key-id"],
)
def test_a_faulty_token_is_refused_with_its_reason(
    host: Persona, issuer: Issuer, fault: Any, reason: str
):
    link(host, issuer.token())

    answer = sign_in(provider="google", id_token=fault(issuer))

    error = assert_error(answer, 403, "credentials_refused")
    assert error["details"]["reason"] == reason
    assert error["message"]


def test_a_replayed_nonce_is_refused(host: Persona, issuer: Issuer):
    link(host, issuer.token())
    token = issuer.token(nonce="once")
    assert sign_in(provider="google", id_token=token, nonce="once").status_code == 200

    again = sign_in(provider="google", id_token=token, nonce="once")

    assert assert_error(again, 403, "credentials_refused")["details"]["reason"] == "nonce_replayed"


def test_a_rotated_key_is_picked_up(host: Persona, issuer: Issuer, settings: Any):
    settings.ID_TOKEN_KEYS_REFRESH_SECONDS = 0
    link(host, issuer.token())
    issuer.rotate()

    assert sign_in(provider="google", id_token=issuer.token()).status_code == 200
    assert issuer.fetches == 2


def test_an_account_nobody_linked_does_not_sign_in(issuer: Issuer):
    answer = sign_in(provider="google", id_token=issuer.token())
    assert assert_error(answer, 403, "credentials_refused")["details"]["reason"] == "not_linked"


def test_an_account_another_player_linked_is_taken(host: Persona, guest: Persona, issuer: Issuer):
    link(host, issuer.token())
    assert_error(link(guest, issuer.token()), 409, "identity_taken")


def test_a_provider_without_client_ids_is_off(host: Persona, settings: Any):
    settings.ID_TOKEN_PROVIDERS = {
        **settings.ID_TOKEN_PROVIDERS,
        "apple": {**settings.ID_TOKEN_PROVIDERS["apple"], "client_ids": []},
    }
    answer = sign_in(provider="apple", id_token="a.b.c")
    assert_error(answer, 404, "provider_off")
