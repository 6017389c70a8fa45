"""A guest links an email address by the code mailed to it and signs in with it on
another device, by a new code or a password; codes are used once, expire, die after
five wrong tries; nobody learns whether an address has an account."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from players.models import Identity
from tests.factories import Persona, assert_error
from tests.players.accounts.conftest import Mailbox, ask_code

pytestmark = pytest.mark.django_db

API = "/api/v1"
ANN = "ann@example.com"


def link_email(persona: Persona, mailbox: Mailbox, email: str = ANN) -> dict[str, Any]:
    assert ask_code(persona.client, email).status_code == 202
    answer = persona.post(
        "/players/me/identities", {"email": email, "code": mailbox.last_code_to(email)}
    )
    assert answer.status_code == 201, answer.json()
    return answer.json()  # type: ignore[no-any-return]


def new_device(address: str = "198.51.100.20") -> APIClient:
    return APIClient(REMOTE_ADDR=address)


def sign_in(client: APIClient, **proof: Any) -> Any:
    return client.post(f"{API}/players/sign-in", proof, format="json")


def test_a_guest_links_an_email_by_the_mailed_code_and_becomes_recoverable(
    host: Persona, mailbox: Mailbox
):
    assert host.get("/players/me").json()["recoverable"] is False

    sent = ask_code(host.client, "  Ann@Example.COM ")
    assert sent.status_code == 202
    assert sent.json() == {"email": ANN, "expires_in": 600, "resend_after": 60}
    code = mailbox.last_code_to(ANN)
    linked = host.post("/players/me/identities", {"email": "ANN@example.com", "code": code})

    assert linked.status_code == 201, linked.json()
    assert linked.json()["kind"] == "email"
    assert linked.json()["email"] == ANN
    me = host.get("/players/me").json()
    assert me["recoverable"] is True
    assert [i["email"] for i in me["identities"]] == [ANN]
    assert host.get("/players/me/identities").json() == [linked.json()]


def test_the_mail_carries_the_code_in_its_subject_and_body(host: Persona, mailbox: Mailbox):
    from django.core import mail

    ask_code(host.client, ANN)
    (message,) = mail.outbox
    code = mailbox.last_code_to(ANN)
    assert message.subject == f"{code} is your UNO code"
    assert code in message.body
    assert "10 minutes" in message.body


def test_a_new_device_signs_in_by_a_new_code_with_a_session_of_its_own(
    host: Persona, mailbox: Mailbox
):
    link_email(host, mailbox)
    laptop = new_device()
    assert ask_code(laptop, ANN).status_code == 202

    answer = sign_in(laptop, email=ANN, code=mailbox.last_code_to(ANN), device="Ann's laptop")

    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["id"] == str(host.player.pk)
    assert body["token"] != host.token
    laptop.credentials(HTTP_AUTHORIZATION=f"Bearer {body['token']}")
    devices = laptop.get(f"{API}/players/me/sessions").json()
    assert sorted(d["device"] for d in devices) == ["", "Ann's laptop"]
    assert [d["id"] for d in devices if d["current"]] == [body["session"]]
    # The first device is still signed in.
    assert host.get("/players/me").status_code == 200


def test_a_code_signs_in_once(host: Persona, mailbox: Mailbox):
    link_email(host, mailbox)
    ask_code(new_device(), ANN)
    code = mailbox.last_code_to(ANN)
    assert sign_in(new_device(), email=ANN, code=code).status_code == 200

    again = sign_in(new_device(), email=ANN, code=code)

    assert assert_error(again, 403, "credentials_refused")["details"]["reason"] == "wrong_code"


def test_a_new_code_replaces_the_last(host: Persona, mailbox: Mailbox, monkeypatch: Any):
    codes = iter(["111111", "222222"])
    monkeypatch.setattr("secrets.randbelow", lambda _: int(next(codes)))
    link_email(host, mailbox)
    ask_code(new_device(), ANN)

    assert_error(sign_in(new_device(), email=ANN, code="111111"), 403, "credentials_refused")
    assert sign_in(new_device(), email=ANN, code="222222").status_code == 200


def test_an_expired_code_is_refused(host: Persona, mailbox: Mailbox):
    link_email(host, mailbox)
    ask_code(new_device(), ANN)
    code = mailbox.last_code_to(ANN)

    with time_machine.travel(timezone.now() + dt.timedelta(minutes=10, seconds=1)):
        answer = sign_in(new_device(), email=ANN, code=code)

    assert assert_error(answer, 403, "credentials_refused")["details"]["reason"] == "wrong_code"


def test_a_code_dies_after_five_wrong_tries(host: Persona, mailbox: Mailbox):
    link_email(host, mailbox)
    ask_code(new_device(), ANN)
    code = mailbox.last_code_to(ANN)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        assert_error(sign_in(new_device(), email=ANN, code=wrong), 403, "credentials_refused")

    answer = sign_in(new_device(), email=ANN, code=code)

    assert_error(answer, 403, "credentials_refused")


def test_an_address_no_account_has_gets_the_same_answer_and_no_mail(
    host: Persona, mailbox: Mailbox
):
    link_email(host, mailbox)
    mailed = len(mailbox)
    known = ask_code(new_device("198.51.100.1"), ANN)
    unknown = ask_code(new_device("198.51.100.2"), "nobody@example.com")

    assert (known.status_code, unknown.status_code) == (202, 202)
    assert set(known.json()) == set(unknown.json())
    assert {k: v for k, v in known.json().items() if k != "email"} == {
        k: v for k, v in unknown.json().items() if k != "email"
    }
    assert len(mailbox) == mailed + 1
    assert mailbox.codes_to("nobody@example.com") == []
    # Signing in with it is refused as a wrong code is.
    refused = sign_in(new_device(), email="nobody@example.com", code="123456")
    assert assert_error(refused, 403, "credentials_refused")["details"]["reason"] == "wrong_code"


def test_a_signed_in_player_gets_a_code_for_a_new_address_to_link_it(
    host: Persona, mailbox: Mailbox
):
    ask_code(host.client, "new@example.com")
    assert len(mailbox.codes_to("new@example.com")) == 1


def test_a_second_code_within_a_minute_is_refused_whether_or_not_the_address_is_known(
    host: Persona, mailbox: Mailbox
):
    link_email(host, mailbox)
    for email in (ANN, "nobody@example.com"):
        ask_code(new_device("198.51.100.3"), email)
        again = ask_code(new_device("198.51.100.4"), email, a_minute_later=False)
        error = assert_error(again, 429, "rate_limited")
        assert 1 <= error["details"]["retry_after"] <= 60
        assert 1 <= int(again["Retry-After"]) <= 60


def test_codes_asked_from_one_network_are_limited(mailbox: Mailbox, monkeypatch: Any):
    from players.accounts.limits import CodeMailAddressThrottle

    monkeypatch.setattr(CodeMailAddressThrottle, "rate", "3/hour", raising=False)
    device = new_device("198.51.100.9")
    answers = [ask_code(device, f"p{n}@example.com").status_code for n in range(5)]
    assert answers == [202, 202, 202, 429, 429]


def test_a_password_signs_in_with_the_email_and_a_wrong_one_is_refused_as_an_unknown_address(
    host: Persona, mailbox: Mailbox
):
    link_email(host, mailbox)
    ask_code(host.client, ANN)
    answer = host.client.put(
        f"{API}/players/me/password",
        {"new_password": "purple-otter-cards", "email": ANN, "code": mailbox.last_code_to(ANN)},
        format="json",
    )
    assert answer.status_code == 204, answer.content
    assert host.get("/players/me").json()["password_set"] is True

    signed = sign_in(new_device(), email=ANN, password="purple-otter-cards", device="tablet")
    assert signed.status_code == 200, signed.json()
    assert signed.json()["id"] == str(host.player.pk)

    wrong = assert_error(sign_in(new_device(), email=ANN, password="nope-nope-nope"), 403, None)
    unknown = assert_error(
        sign_in(new_device(), email="who@example.com", password="nope-nope-nope"), 403, None
    )
    assert wrong == unknown


def test_the_password_is_kept_as_an_argon2_hash(host: Persona, mailbox: Mailbox):
    link_email(host, mailbox)
    ask_code(host.client, ANN)
    host.client.put(
        f"{API}/players/me/password",
        {"new_password": "purple-otter-cards", "email": ANN, "code": mailbox.last_code_to(ANN)},
        format="json",
    )
    host.player.refresh_from_db()
    assert host.player.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert "purple-otter-cards" not in host.player.password


@pytest.mark.parametrize(
    ("password", "why"),
    [("short", "too short"), ("12345678901", "entirely numeric"), ("password123", "too common")],
)
def test_a_weak_password_is_refused_with_the_validators_reasons(
    host: Persona, mailbox: Mailbox, password: str, why: str
):
    link_email(host, mailbox)
    ask_code(host.client, ANN)
    answer = host.client.put(
        f"{API}/players/me/password",
        {"new_password": password, "email": ANN, "code": mailbox.last_code_to(ANN)},
        format="json",
    )
    error = assert_error(answer, 400, "invalid_request")
    assert why in " ".join(error["details"]["fields"]["new_password"])
    host.player.refresh_from_db()
    assert host.player.password == ""
    # The code is still good for a password that passes.
    answer = host.client.put(
        f"{API}/players/me/password",
        {"new_password": "purple-otter-cards", "email": ANN, "code": mailbox.last_code_to(ANN)},
        format="json",
    )
    assert answer.status_code == 204


def test_a_password_needs_a_linked_email_and_a_fresh_proof_of_the_account(
    host: Persona, guest: Persona, mailbox: Mailbox
):
    no_email = host.client.put(
        f"{API}/players/me/password",
        {"new_password": "purple-otter-cards", "email": ANN, "password": "x"},
        format="json",
    )
    assert_error(no_email, 409, "no_email_linked")

    link_email(host, mailbox)
    link_email(guest, mailbox, "bob@example.com")
    ask_code(guest.client, "bob@example.com")
    # A proof of Bob's address does not set Ann's password.
    answer = host.client.put(
        f"{API}/players/me/password",
        {
            "new_password": "purple-otter-cards",
            "email": "bob@example.com",
            "code": mailbox.last_code_to("bob@example.com"),
        },
        format="json",
    )
    assert assert_error(answer, 403, "credentials_refused")["details"]["reason"] == "not_linked"


def test_an_address_another_player_linked_is_refused_as_taken(
    host: Persona, guest: Persona, mailbox: Mailbox
):
    link_email(host, mailbox)
    ask_code(guest.client, ANN)

    answer = guest.post("/players/me/identities", {"email": ANN, "code": mailbox.last_code_to(ANN)})

    assert_error(answer, 409, "identity_taken")
    assert Identity.objects.get(subject=ANN).player == host.player


def test_linking_an_address_twice_changes_nothing(host: Persona, mailbox: Mailbox):
    first = link_email(host, mailbox)
    ask_code(host.client, ANN)
    again = host.post("/players/me/identities", {"email": ANN, "code": mailbox.last_code_to(ANN)})
    assert again.status_code == 200
    assert again.json()["id"] == first["id"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"email": ANN},
        {"email": ANN, "code": "12345"},
        {"email": ANN, "code": "12a456"},
        {"email": ANN, "code": 123456},
        {"email": "not an address", "code": "123456"},
        {"email": ANN, "code": "123456", "password": "x"},
        {"provider": "google"},
        {"provider": "facebook", "id_token": "x"},
        {"email": ANN, "code": "123456", "extra": 1},
        {"email": "a" * 400 + "@example.com", "code": "123456"},
        [],
        "text",
    ],
)
def test_a_malformed_sign_in_is_refused_and_signs_nobody_in(body: Any):
    answer = new_device().post(f"{API}/players/sign-in", body, format="json")
    assert_error(answer, 400, "invalid_request")


def test_a_password_does_not_link_an_address(host: Persona):
    answer = host.post("/players/me/identities", {"email": ANN, "password": "whatever-it-is"})
    assert_error(answer, 400, "invalid_request")


def test_a_disabled_player_cannot_sign_in(host: Persona, mailbox: Mailbox):
    from players import services

    link_email(host, mailbox)
    services.player_disable(player_id=host.player.pk, by="ops", reason="abuse")
    ask_code(new_device(), ANN)

    answer = sign_in(new_device(), email=ANN, code=mailbox.last_code_to(ANN))

    assert_error(answer, 401, "player_disabled")


def test_the_ways_to_sign_in_name_the_providers_with_client_ids(anonymous: Any, settings: Any):
    settings.ID_TOKEN_PROVIDERS = {
        **settings.ID_TOKEN_PROVIDERS,
        "google": {**settings.ID_TOKEN_PROVIDERS["google"], "client_ids": ["web.example"]},
        "apple": {**settings.ID_TOKEN_PROVIDERS["apple"], "client_ids": []},
    }
    answer = anonymous.get(f"{API}/players/sign-in/methods")
    assert answer.json() == {
        "email_code": True,
        "password": True,
        "providers": [
            {
                "id": "google",
                "name": "Google",
                "client_ids": ["web.example"],
                "authorize_url": "https://accounts.google.com/o/oauth2/v2/auth",
            }
        ],
    }


def test_a_retried_code_request_with_its_idempotency_key_mails_no_second_code(
    host: Persona, mailbox: Mailbox
):
    first = host.post("/players/email-codes", {"email": ANN}, **{"Idempotency-Key": "k-1"})
    again = host.post("/players/email-codes", {"email": ANN}, **{"Idempotency-Key": "k-1"})

    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert len(mailbox.codes_to(ANN)) == 1


def test_a_sign_in_is_never_replayed_for_its_idempotency_key(host: Persona, mailbox: Mailbox):
    link_email(host, mailbox)
    ask_code(new_device(), ANN)
    device = new_device()
    body = {"email": ANN, "code": mailbox.last_code_to(ANN)}
    first = device.post(f"{API}/players/sign-in", body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    again = device.post(f"{API}/players/sign-in", body, format="json", HTTP_IDEMPOTENCY_KEY="k")

    assert first.status_code == 200
    # The code was used up by the first: the retry is judged afresh, not handed the token.
    assert_error(again, 403, "credentials_refused")
