"""Google and Apple ID tokens (`players.id_tokens`), checked against a real local
OpenID issuer: its own keys, its JWKS served over HTTP from a thread, its fetches
counted. Google's settings are pointed at it for each test."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.cache import cache
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from players import id_tokens
from players.id_tokens import VerifiedIdToken, verify_id_token
from tests.oidc_issuer import (
    CLIENT_ID,
    Issuer,
    b64url,
    new_rsa_key,
)
from unoservice.errors import CredentialsRefused, ProviderOff


def verify(token: str, nonce: str | None = None) -> VerifiedIdToken:
    return verify_id_token(provider="google", id_token=token, nonce=nonce)


def refused(token: str, nonce: str | None = None) -> str:
    """The reason the token is refused for."""
    with pytest.raises(CredentialsRefused) as caught:
        verify(token, nonce)
    assert caught.value.details["provider"] == "google"
    reason: str = caught.value.details["reason"]
    return reason


def forged(header: dict[str, Any], claims: dict[str, Any], sign: Any) -> str:
    signing_input = ".".join(
        b64url(json.dumps(part).encode()) for part in (header, claims)
    ).encode()
    return f"{signing_input.decode()}.{b64url(sign(signing_input))}"


# --- Valid tokens --------------------------------------------------------------------


@pytest.mark.parametrize("verified", [True, "true"])
def test_a_valid_token_gives_its_subject_and_verified_email(
    issuer: Issuer, verified: object
) -> None:
    found = verify(issuer.token(email_verified=verified))

    assert found == VerifiedIdToken(
        provider="google", subject="001234.subject", email="ann@example.com"
    )


@pytest.mark.parametrize("verified", [False, "false", None])
def test_an_email_the_provider_has_not_verified_is_not_given(
    issuer: Issuer, verified: object
) -> None:
    found = verify(issuer.token(email_verified=verified))

    assert found.subject == "001234.subject"
    assert found.email == ""


def test_a_token_with_a_list_audience_naming_this_app_verifies(issuer: Issuer) -> None:
    assert verify(issuer.token(aud=["other.app", CLIENT_ID])).subject == "001234.subject"


def test_an_es256_token_verifies_with_an_ec_key(issuer: Issuer) -> None:
    issuer.keys["ec-1"] = ec.generate_private_key(ec.SECP256R1())

    assert verify(issuer.token(kid="ec-1", algorithm="ES256")).subject == "001234.subject"


def test_a_token_a_little_early_by_the_clock_is_within_the_leeway(issuer: Issuer) -> None:
    assert verify(issuer.token(iat=int(time.time()) + 20)).subject == "001234.subject"


# --- Claims --------------------------------------------------------------------------


def test_a_token_for_another_app_is_refused_as_the_wrong_audience(issuer: Issuer) -> None:
    assert refused(issuer.token(aud="another.app")) == "audience"


def test_a_token_from_another_issuer_is_refused(issuer: Issuer) -> None:
    assert refused(issuer.token(iss="https://elsewhere.example")) == "issuer"


def test_an_expired_token_is_refused(issuer: Issuer) -> None:
    now = int(time.time())

    assert refused(issuer.token(iat=now - 3600, exp=now - 120)) == "expired"


def test_a_token_issued_in_the_future_is_not_yet_valid(issuer: Issuer) -> None:
    assert refused(issuer.token(iat=int(time.time()) + 600)) == "not_yet_valid"


@pytest.mark.parametrize("claim", ["exp", "iat", "sub"])
def test_a_token_lacking_a_required_claim_is_refused(issuer: Issuer, claim: str) -> None:
    missing: dict[str, Any] = {claim: None}

    assert refused(issuer.token(**missing)) == "missing_claim"


def test_the_refusal_says_in_plain_words_what_is_wrong(issuer: Issuer) -> None:
    with pytest.raises(CredentialsRefused) as caught:
        verify(issuer.token(aud="another.app"))

    assert caught.value.message == "the ID token was issued to another app (audience)"
    assert caught.value.status == 403


# --- Signatures and algorithms -------------------------------------------------------


def test_a_token_signed_by_another_key_with_the_same_kid_is_refused(issuer: Issuer) -> None:
    with pytest.raises(CredentialsRefused) as caught:
        verify(issuer.token(key=new_rsa_key()))

    assert caught.value.details["reason"] == "signature"
    assert caught.value.message == "the ID token's signature does not match Google's keys"


def test_a_token_naming_a_key_the_issuer_does_not_publish_is_refused(issuer: Issuer) -> None:
    assert refused(issuer.token(kid="made-up", key=new_rsa_key())) == "unknown_key"


def test_a_token_signed_with_hs256_using_the_public_key_as_secret_is_refused(
    issuer: Issuer,
) -> None:
    public_pem = (
        issuer.keys[issuer.kid]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    token = forged(
        {"alg": "HS256", "typ": "JWT", "kid": issuer.kid},
        issuer.claims(),
        lambda signing_input: hmac.new(public_pem, signing_input, hashlib.sha256).digest(),
    )

    assert refused(token) == "malformed"
    assert issuer.fetches == 0


def test_a_token_with_alg_none_is_refused(issuer: Issuer) -> None:
    token = forged({"alg": "none", "kid": issuer.kid}, issuer.claims(), lambda _: b"")

    assert refused(token) == "malformed"
    assert refused(token.rsplit(".", 1)[0] + ".") == "malformed"


def test_a_token_claiming_es256_for_an_rsa_key_is_refused(issuer: Issuer) -> None:
    token = forged({"alg": "ES256", "kid": issuer.kid}, issuer.claims(), lambda _: b"\x01" * 64)

    assert refused(token) == "signature"


def test_an_over_long_token_is_refused_as_malformed_without_a_fetch(issuer: Issuer) -> None:
    token = issuer.token(padding="x" * 9000)

    assert refused(token) == "malformed"
    assert issuer.fetches == 0


def test_a_nonce_longer_than_256_characters_is_refused_as_malformed(issuer: Issuer) -> None:
    assert refused(issuer.token(nonce="n"), nonce="n" * 257) == "malformed"


garbage = st.one_of(
    st.text(max_size=300),
    st.from_regex(
        r"[A-Za-z0-9_=-]{0,40}\.[A-Za-z0-9_=-]{0,40}\.[A-Za-z0-9_=-]{0,40}", fullmatch=True
    ),
    st.builds(
        lambda header, payload, signature: ".".join(
            [b64url(json.dumps(header).encode()), b64url(payload), b64url(signature)]
        ),
        st.dictionaries(
            st.sampled_from(["alg", "kid", "typ", "crit", "b64"]),
            st.one_of(
                st.sampled_from(["RS256", "ES256", "HS256", "none", "key-1"]),
                st.integers(),
                st.none(),
                st.lists(st.text(max_size=3), max_size=2),
            ),
        ),
        st.binary(max_size=200),
        st.binary(max_size=260),
    ),
)


@hypothesis_settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=garbage, nonce=st.one_of(st.none(), st.text(max_size=300)))
def test_garbage_is_only_ever_refused_as_credentials(
    issuer: Issuer, token: str, nonce: str | None
) -> None:
    with pytest.raises(CredentialsRefused):
        verify(token, nonce)


# --- Nonces --------------------------------------------------------------------------


def test_a_nonce_is_accepted_once_and_a_replay_refused(issuer: Issuer) -> None:
    token = issuer.token(nonce="n-0123456789")

    assert verify(token, nonce="n-0123456789").subject == "001234.subject"
    assert refused(token, nonce="n-0123456789") == "nonce_replayed"


def test_the_raw_nonce_matches_a_token_carrying_its_sha256(issuer: Issuer) -> None:
    raw = "raw-nonce-kept-by-the-app"
    token = issuer.token(nonce=hashlib.sha256(raw.encode()).hexdigest())

    assert verify(token, nonce=raw).subject == "001234.subject"


def test_a_token_carrying_another_nonce_is_refused(issuer: Issuer) -> None:
    assert refused(issuer.token(nonce="theirs"), nonce="mine") == "nonce_mismatch"


def test_a_token_carrying_no_nonce_when_one_is_given_is_refused(issuer: Issuer) -> None:
    assert refused(issuer.token(), nonce="mine") == "nonce_mismatch"


def test_a_token_carrying_a_nonce_needs_the_nonce_passed(issuer: Issuer) -> None:
    assert refused(issuer.token(nonce="theirs")) == "nonce_missing"


def test_an_invalid_token_does_not_spend_its_nonce(issuer: Issuer) -> None:
    assert refused(issuer.token(nonce="once", aud="another.app"), nonce="once") == "audience"
    assert refused(issuer.token(nonce="once", key=new_rsa_key()), nonce="once") == "signature"

    assert verify(issuer.token(nonce="once"), nonce="once").subject == "001234.subject"


def test_a_nonce_is_remembered_until_the_token_expires(issuer: Issuer, monkeypatch: Any) -> None:
    added: list[tuple[str, int]] = []
    real_add = cache.add

    def add(key: str, value: object, timeout: int) -> bool:
        added.append((key, timeout))
        return bool(real_add(key, value, timeout=timeout))

    monkeypatch.setattr(cache, "add", add)
    verify(issuer.token(nonce="n", exp=int(time.time()) + 100), nonce="n")

    ((key, timeout),) = added
    assert key.endswith(hashlib.sha256(b"n").hexdigest())
    assert 125 <= timeout <= 131


# --- The provider's keys -------------------------------------------------------------


def test_keys_are_kept_between_verifications(issuer: Issuer) -> None:
    for number in range(5):
        verify(issuer.token(sub=f"subject-{number}"))

    assert issuer.fetches == 1


def test_concurrent_verifiers_fetch_the_keys_once(issuer: Issuer) -> None:
    issuer.delay = 0.3
    tokens = [issuer.token(sub=f"subject-{number}") for number in range(8)]
    found: list[str] = []

    def run(token: str) -> None:
        found.append(verify(token).subject)

    threads = [threading.Thread(target=run, args=(token,)) for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(found) == sorted(f"subject-{number}" for number in range(8))
    assert issuer.fetches == 1


def test_a_rotated_key_is_picked_up_with_one_more_fetch(issuer: Issuer, settings: Any) -> None:
    settings.ID_TOKEN_KEYS_REFRESH_SECONDS = 0
    verify(issuer.token())
    assert issuer.fetches == 1

    issuer.rotate()

    assert verify(issuer.token()).subject == "001234.subject"
    assert issuer.fetches == 2


def test_unknown_kids_within_the_refresh_window_cause_no_fetch(issuer: Issuer) -> None:
    verify(issuer.token())

    for number in range(5):
        assert refused(issuer.token(kid=f"made-up-{number}", key=new_rsa_key())) == "unknown_key"

    assert issuer.fetches == 1


def test_held_keys_keep_working_when_a_refresh_fails(issuer: Issuer, settings: Any) -> None:
    settings.ID_TOKEN_KEYS_REFRESH_SECONDS = 0
    verify(issuer.token())
    issuer.status = 500

    assert refused(issuer.token(kid="new", key=new_rsa_key())) == "keys_unavailable"
    assert issuer.fetches == 2
    assert verify(issuer.token(sub="still")).subject == "still"


@pytest.mark.parametrize(
    ("cache_control", "held_seconds"),
    [
        ("public, max-age=600, must-revalidate", 600),
        (None, 3600),
        ("max-age=5", 300),
        ("max-age=9999999", 24 * 3600),
    ],
)
def test_keys_are_held_for_their_max_age_within_bounds(
    issuer: Issuer, monkeypatch: Any, cache_control: str | None, held_seconds: int
) -> None:
    issuer.cache_control = cache_control
    offset = [0.0]
    clock = SimpleNamespace(monotonic=lambda: time.monotonic() + offset[0], time=time.time)
    monkeypatch.setattr(id_tokens, "time", clock)
    verify(issuer.token())

    offset[0] = held_seconds - 5
    verify(issuer.token())
    assert issuer.fetches == 1

    offset[0] = held_seconds + 5
    verify(issuer.token())
    assert issuer.fetches == 2


def too_large(issuer: Issuer) -> None:
    issuer.body = issuer.jwks()[:-1] + b" " * (64 * 1024) + b"}"


@pytest.mark.parametrize(
    "breakage",
    [
        lambda issuer: setattr(issuer, "status", 500),
        too_large,
        lambda issuer: setattr(issuer, "body", b"{not json"),
        lambda issuer: setattr(issuer, "body", b'{"keys": []}'),
        lambda issuer: setattr(issuer, "body", b"[1, 2]"),
    ],
    ids=["server-error", "over-the-cap", "not-json", "no-keys", "not-an-object"],
)
def test_keys_that_cannot_be_fetched_refuse_the_token_as_keys_unavailable(
    issuer: Issuer, breakage: Any
) -> None:
    breakage(issuer)

    with pytest.raises(CredentialsRefused) as caught:
        verify(issuer.token())

    assert caught.value.details == {"reason": "keys_unavailable", "provider": "google"}
    assert caught.value.message == "Google's keys could not be fetched; try again"
    assert issuer.fetches == 1


def test_a_redirecting_keys_url_is_not_followed(issuer: Issuer) -> None:
    issuer.redirect = True

    assert refused(issuer.token()) == "keys_unavailable"
    assert issuer.elsewhere_fetches == 0


def test_keys_over_plain_http_are_refused_unless_allowed(issuer: Issuer, settings: Any) -> None:
    settings.ID_TOKEN_KEYS_ALLOW_HTTP = False

    assert refused(issuer.token()) == "keys_unavailable"
    assert issuer.fetches == 0


# --- Providers -----------------------------------------------------------------------


def test_a_provider_without_client_ids_is_off(issuer: Issuer, settings: Any) -> None:
    settings.ID_TOKEN_PROVIDERS = {
        **settings.ID_TOKEN_PROVIDERS,
        "apple": {**settings.ID_TOKEN_PROVIDERS["apple"], "client_ids": []},
    }

    with pytest.raises(ProviderOff) as caught:
        verify_id_token(provider="apple", id_token=issuer.token())

    assert caught.value.message == "Apple sign-in is off on this service"
    assert caught.value.details == {"provider": "apple"}
    assert id_tokens.enabled_providers() == ["google"]
    assert not id_tokens.provider_enabled("apple")


def test_an_unknown_provider_is_off(issuer: Issuer) -> None:
    with pytest.raises(ProviderOff) as caught:
        verify_id_token(provider="facebook", id_token=issuer.token())

    assert "facebook" in caught.value.message
    assert caught.value.details == {"provider": "facebook"}
    assert not id_tokens.provider_enabled("facebook")
    assert issuer.fetches == 0
