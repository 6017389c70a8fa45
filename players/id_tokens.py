"""Signing in with Google or Apple by an OpenID Connect ID token the app already holds.

An ID token is trusted only when all of this holds:

- it is a JWT signed with RS256 or ES256 (never "none", never HMAC: a token "signed"
  with HS256 using a provider's public key as the secret would otherwise pass) by a
  key the provider publishes at its JWKS URL, named by the token's `kid`;
- its `iss` is one of the provider's issuers and its `aud` one of this service's
  client ids (a token issued to another app proves nothing to this one);
- it carries `exp`, `iat` and `sub`, and is within its lifetime, give or take
  LEEWAY_SECONDS of clock skew;
- when the caller passes the nonce it asked for, the token's `nonce` is that nonce
  or its SHA-256 in hex (Apple's apps hand Apple the hash and keep the raw value);
- a token's nonce is used once: remembered in Django's cache (shared by every
  process) until the token expires, so a token caught in transit cannot be replayed.

A provider's keys are fetched through `unoservice.outbound` (one deadline, a cap on
the answer, public addresses only) and held in this process for the answer's
Cache-Control max-age. A token naming a key not held brings one fetch at most every
ID_TOKEN_KEYS_REFRESH_SECONDS per provider, so made-up key ids cannot make the
service call out at will. The token itself is never logged nor echoed back.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jwt
import requests
from django.conf import settings
from django.core.cache import cache

from unoservice import outbound
from unoservice.errors import CredentialsRefused, ProviderOff

log = logging.getLogger(__name__)

PROVIDERS: tuple[str, ...] = ("google", "apple")
ALGORITHMS = ("RS256", "ES256")
LEEWAY_SECONDS = 30
MOST_TOKEN_CHARS = 8 * 1024
MOST_NONCE_CHARS = 256
MOST_SUBJECT_CHARS = 255
# How long a provider's keys are held when its answer says nothing, and the bounds on
# what it may say: keys re-read at least daily, and not on every sign-in.
KEYS_DEFAULT_SECONDS = 3600
KEYS_LEAST_SECONDS = 300
KEYS_MOST_SECONDS = 24 * 3600
MAX_AGE = re.compile(r"(?:^|[,\s])max-age\s*=\s*\"?(\d+)", re.IGNORECASE)

MESSAGES = {
    "malformed": "the ID token is not a well-formed JWT signed with RS256 or ES256",
    "unknown_key": "the ID token names a key {name} does not publish (kid)",
    "signature": "the ID token's signature does not match {name}'s keys",
    "issuer": "the ID token was not issued by {name} (issuer)",
    "audience": "the ID token was issued to another app (audience)",
    "expired": "the ID token has expired",
    "not_yet_valid": "the ID token is not valid yet; check the device's clock",
    "missing_claim": "the ID token lacks a claim it must carry (exp, iat, sub, iss, aud)",
    "nonce_mismatch": "the ID token's nonce is not the nonce given with it",
    "nonce_missing": "the ID token carries a nonce: send the nonce it was asked for with it",
    "nonce_replayed": "the ID token's nonce has been used already; sign in again",
    "keys_unavailable": "{name}'s keys could not be fetched; try again",
}


@dataclass(frozen=True)
class VerifiedIdToken:
    provider: str
    subject: str
    # Only an address the provider says it verified; "" otherwise.
    email: str


def provider_enabled(provider: str) -> bool:
    config = _config(provider)
    return config is not None and bool(config.get("client_ids"))


def enabled_providers() -> list[str]:
    return [provider for provider in PROVIDERS if provider_enabled(provider)]


def verify_id_token(*, provider: str, id_token: str, nonce: str | None = None) -> VerifiedIdToken:
    """The identity `id_token` proves for `provider`; `CredentialsRefused` saying why
    not, `ProviderOff` when this service does not take that provider's tokens."""
    config = _config(provider)
    if config is None:
        raise ProviderOff(
            f"{str(provider)[:40]!r} is not a sign-in provider ({', '.join(PROVIDERS)})",
            details={"provider": provider},
        )
    name = str(config.get("name") or provider)
    client_ids = [str(client) for client in config.get("client_ids") or ()]
    if not client_ids:
        raise ProviderOff(f"{name} sign-in is off on this service", details={"provider": provider})

    def refuse(reason: str) -> CredentialsRefused:
        return CredentialsRefused(
            MESSAGES[reason].format(name=name), details={"reason": reason, "provider": provider}
        )

    # Bounded before any parsing: nothing a client sends is decoded at any length.
    if not isinstance(id_token, str) or len(id_token) > MOST_TOKEN_CHARS:
        raise refuse("malformed")
    if nonce is not None and (not isinstance(nonce, str) or len(nonce) > MOST_NONCE_CHARS):
        raise refuse("malformed")
    try:
        header = jwt.get_unverified_header(id_token)
    except (jwt.PyJWTError, ValueError, TypeError):
        raise refuse("malformed") from None
    alg, kid = header.get("alg"), header.get("kid")
    if alg not in ALGORITHMS or not isinstance(kid, str) or not kid:
        raise refuse("malformed")

    key = _key(provider, str(config["jwks_url"]), kid, refuse)
    try:
        claims = jwt.decode(
            id_token,
            key,
            algorithms=[alg],
            audience=client_ids,
            issuer=[str(issuer) for issuer in config.get("issuers") or ()],
            leeway=LEEWAY_SECONDS,
            options={"require": ["exp", "iat", "sub", "iss", "aud"]},
        )
    except jwt.ExpiredSignatureError:
        raise refuse("expired") from None
    except jwt.ImmatureSignatureError:
        raise refuse("not_yet_valid") from None
    except jwt.InvalidAudienceError:
        raise refuse("audience") from None
    except jwt.InvalidIssuerError:
        raise refuse("issuer") from None
    except jwt.MissingRequiredClaimError:
        raise refuse("missing_claim") from None
    except (jwt.InvalidSignatureError, jwt.InvalidAlgorithmError):
        # InvalidAlgorithmError: the kid names a key of the other algorithm.
        raise refuse("signature") from None
    except (jwt.PyJWTError, ValueError, TypeError):
        raise refuse("malformed") from None

    subject = claims["sub"]
    if not isinstance(subject, str) or not subject:
        raise refuse("missing_claim")
    if len(subject) > MOST_SUBJECT_CHARS:
        raise refuse("malformed")
    carried = claims.get("nonce")
    if carried is not None and not isinstance(carried, str):
        raise refuse("malformed")
    if nonce is not None:
        if carried is None or not _nonce_matches(carried, nonce):
            raise refuse("nonce_mismatch")
    elif carried is not None:
        raise refuse("nonce_missing")
    # Last, so that a token refused for any other reason leaves its nonce unspent.
    if carried is not None and not _spend_nonce(provider, carried, int(claims["exp"])):
        raise refuse("nonce_replayed")

    email = claims.get("email")
    verified = claims.get("email_verified") in (True, "true")
    return VerifiedIdToken(
        provider=provider,
        subject=subject,
        email=email if verified and isinstance(email, str) else "",
    )


def forget_keys() -> None:
    """Drop every provider's keys held in this process (tests)."""
    with _memory_lock:
        _memory.clear()


# --- Nonces ---------------------------------------------------------------------------


def _nonce_matches(carried: str, given: str) -> bool:
    hashed = hashlib.sha256(given.encode()).hexdigest()
    return hmac.compare_digest(carried.encode(), given.encode()) or hmac.compare_digest(
        carried.encode(), hashed.encode()
    )


def _spend_nonce(provider: str, carried: str, expires: int) -> bool:
    """Whether this is the nonce's first use; remembered while a token could carry it."""
    digest = hashlib.sha256(carried.encode()).hexdigest()
    seconds = max(math.ceil(expires + LEEWAY_SECONDS - time.time()), 1)
    return bool(cache.add(f"id-token-nonce:{provider}:{digest}", 1, timeout=seconds))


# --- Keys -----------------------------------------------------------------------------


@dataclass
class _Keys:
    """One provider's keys as last fetched, and when they were fetched."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    keys: dict[str, jwt.PyJWK] = field(default_factory=dict)
    stale_at: float = 0.0
    tried_at: float = -math.inf
    # Counted under `lock`: a verifier that waited on it sees whether another fetched
    # meanwhile, and uses that fetch's keys rather than fetching again.
    fetches: int = 0


class _Unavailable(Exception):
    pass


_memory: dict[tuple[str, str], _Keys] = {}
_memory_lock = threading.Lock()


def _config(provider: str) -> dict[str, Any] | None:
    configured: Any = settings.ID_TOKEN_PROVIDERS
    if provider not in PROVIDERS or not isinstance(configured.get(provider), dict):
        return None
    config: dict[str, Any] = configured[provider]
    return config


def _session() -> outbound.Session:
    """This thread's session for the current settings (connections are reused)."""
    return outbound.thread_session(
        deadline=float(settings.ID_TOKEN_KEYS_TIMEOUT_SECONDS),
        max_bytes=int(settings.ID_TOKEN_KEYS_MAX_BYTES),
        local=bool(settings.ID_TOKEN_KEYS_ALLOW_HTTP),
    )


def _key(
    provider: str, url: str, kid: str, refuse: Callable[[str], CredentialsRefused]
) -> jwt.PyJWK:
    with _memory_lock:
        held = _memory.setdefault((provider, url), _Keys())
    seen = held.fetches
    with held.lock:
        now = time.monotonic()
        fetched_meanwhile = held.fetches != seen
        due = now - held.tried_at >= settings.ID_TOKEN_KEYS_REFRESH_SECONDS
        if not held.keys:
            fetch = not fetched_meanwhile
        else:
            fetch = (now >= held.stale_at or kid not in held.keys) and due and not fetched_meanwhile
        failed = False
        if fetch:
            held.fetches += 1
            held.tried_at = now
            try:
                keys, seconds = _fetch(provider, url)
            except _Unavailable:
                # Keys held from before keep serving tokens signed with them.
                failed = True
            else:
                held.keys, held.stale_at = keys, time.monotonic() + seconds
        key = held.keys.get(kid)
    if key is not None:
        return key
    raise refuse("keys_unavailable" if failed or not held.keys else "unknown_key")


def _fetch(provider: str, url: str) -> tuple[dict[str, jwt.PyJWK], float]:
    """The provider's signing keys by kid, and how many seconds to hold them."""
    try:
        answer = _session().get(url, headers={"Accept": "application/json"})
        if answer.status_code != 200:
            raise _Unavailable(f"status {answer.status_code}")
        body = answer.json()
        if not isinstance(body, dict):
            raise _Unavailable("the answer is not a JSON object")
        found = jwt.PyJWKSet.from_dict(body)
    except _Unavailable as error:
        log.warning("%s's keys at %s could not be used: %s", provider, url, error)
        raise
    # A broken or hostile answer can fail in the key parser in more ways than PyJWT's own.
    except (requests.RequestException, jwt.PyJWTError, ValueError, TypeError, LookupError) as error:
        log.warning("%s's keys at %s could not be fetched: %r", provider, url, error)
        raise _Unavailable(str(error)) from error
    keys = {
        key.key_id: key
        for key in found
        if isinstance(key.key_id, str)
        and key.algorithm_name in ALGORITHMS
        and key.public_key_use in (None, "sig")
    }
    if not keys:
        log.warning("%s's keys at %s hold no RS256 or ES256 signing key", provider, url)
        raise _Unavailable("no usable key")
    return keys, _held_seconds(answer.headers.get("Cache-Control", ""))


def _held_seconds(cache_control: str) -> float:
    found = MAX_AGE.search(cache_control)
    if found is None:
        return KEYS_DEFAULT_SECONDS
    return float(min(max(int(found.group(1)), KEYS_LEAST_SECONDS), KEYS_MOST_SECONDS))
