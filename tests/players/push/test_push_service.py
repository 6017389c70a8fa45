"""The local push service the push tests rely on reads Web Push as the RFCs write it:
it decrypts RFC 8291's own example, and refuses a VAPID token that is not the
application server's, not for its origin, or expired."""

from __future__ import annotations

import json
import time

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from tests.push_service import (
    Receiver,
    VapidRefused,
    b64url,
    unb64url,
    vapid_key_pair,
    verify_vapid,
)

# RFC 8291, Appendix A.
UA_PRIVATE = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
AUTH_SECRET = "BTBZMqHH6r4Tts7J_aSIgg"
BODY = (
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6Tlz"
    "AC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
)


def test_the_receiver_decrypts_the_example_of_rfc_8291():
    key = ec.derive_private_key(int.from_bytes(unb64url(UA_PRIVATE)), ec.SECP256R1())
    receiver = Receiver(key=key, auth=unb64url(AUTH_SECRET))
    assert receiver.decrypt(unb64url(BODY)) == b"When I grow up, I want to be a watermelon"


def test_a_changed_byte_of_the_body_is_refused():
    key = ec.derive_private_key(int.from_bytes(unb64url(UA_PRIVATE)), ec.SECP256R1())
    receiver = Receiver(key=key, auth=unb64url(AUTH_SECRET))
    body = bytearray(unb64url(BODY))
    body[-1] ^= 1
    with pytest.raises(Exception):  # noqa: B017, PT011  (AES-GCM's InvalidTag)
        receiver.decrypt(bytes(body))


def token(private: str, claims: dict[str, object]) -> str:
    key = ec.derive_private_key(int.from_bytes(unb64url(private)), ec.SECP256R1())
    header = b64url(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
    body = b64url(json.dumps(claims).encode())
    r, s = decode_dss_signature(key.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{header}.{body}.{b64url(r.to_bytes(32) + s.to_bytes(32))}"


ORIGIN = "http://127.0.0.1:8443"


def claims(**changes: object) -> dict[str, object]:
    return {
        "aud": ORIGIN,
        "exp": int(time.time()) + 3600,
        "sub": "mailto:ops@example.com",
        **changes,
    }


def test_a_token_of_the_application_servers_key_for_the_origin_is_accepted():
    public, private = vapid_key_pair()
    header = f"vapid t={token(private, claims())}, k={public}"
    assert (
        verify_vapid(header, audience=ORIGIN, public_key=public)["sub"] == "mailto:ops@example.com"
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"aud": "http://127.0.0.1:9999"},
        {"exp": int(time.time()) - 1},
        {"exp": int(time.time()) + 25 * 3600},
        {"sub": ""},
    ],
)
def test_a_token_for_another_origin_expired_too_long_or_without_contact_is_refused(changes):
    public, private = vapid_key_pair()
    header = f"vapid t={token(private, claims(**changes))}, k={public}"
    with pytest.raises(VapidRefused):
        verify_vapid(header, audience=ORIGIN, public_key=public)


def test_a_token_signed_by_another_key_is_refused():
    public, _ = vapid_key_pair()
    other_public, other_private = vapid_key_pair()
    with pytest.raises(VapidRefused):
        verify_vapid(
            f"vapid t={token(other_private, claims())}, k={public}",
            audience=ORIGIN,
            public_key=public,
        )
    with pytest.raises(VapidRefused):
        verify_vapid(
            f"vapid t={token(other_private, claims())}, k={other_public}",
            audience=ORIGIN,
            public_key=public,
        )
