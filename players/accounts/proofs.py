"""Proofs of who a player is, as sign-in, linking, a new password and deleting an
account take them: a code mailed to an email address, an email's password, or a
Google or Apple ID token. `prove` judges one and says whose identity it shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.hashers import check_password

from players import id_tokens
from players.accounts import email_codes, limits
from players.models import Identity, IdentityKind, Player
from unoservice.errors import CredentialsRefused


@dataclass(frozen=True)
class Proof:
    """One of: `email` with `code`; `email` with `password`; `provider` with
    `id_token` (and the `nonce` the app asked the provider for, if any). The email
    is normalized already (`email_codes.normalized_email`)."""

    email: str = ""
    code: str = ""
    password: str = ""
    provider: str = ""
    id_token: str = ""
    nonce: str | None = None

    @property
    def by_password(self) -> bool:
        return bool(self.password)


@dataclass(frozen=True)
class Proven:
    """An identity a proof shows: its kind and subject, the address to show, and
    the player's identity it is, if any player has it."""

    kind: str
    subject: str
    email: str
    identity: Identity | None

    @property
    def player(self) -> Player | None:
        return None if self.identity is None else self.identity.player


def _identity(kind: str, subject: str) -> Identity | None:
    return Identity.objects.select_related("player").filter(kind=kind, subject=subject).first()


def prove(proof: Proof, *, meta: Mapping[str, Any]) -> Proven:
    """Judge `proof`, or raise `CredentialsRefused` (`RateLimited` past the limits on
    wrong codes and passwords, counted before each is judged; a right one is taken
    back). A wrong code and a code for an address no account has are refused
    alike, and a password is checked against a stand-in hash when the address has
    no password, so that neither the answer nor its time tells whether an address
    is known. `meta`: the request's WSGI variables (its client address)."""
    if proof.id_token:
        verified = id_tokens.verify_id_token(
            provider=proof.provider, id_token=proof.id_token, nonce=proof.nonce
        )
        return Proven(
            proof.provider,
            verified.subject,
            verified.email,
            _identity(proof.provider, verified.subject),
        )
    attempt = limits.count_guess(email=proof.email, meta=meta)
    identity = _identity(IdentityKind.EMAIL, proof.email)
    if proof.by_password:
        hashed = identity.player.password if identity is not None else ""
        if not check_password(proof.password, hashed):
            raise CredentialsRefused(
                "the email address or the password is wrong",
                details={"reason": "wrong_password"},
            )
    elif not email_codes.code_check(email=proof.email, code=proof.code):
        raise CredentialsRefused(
            "the code is wrong, used or expired: ask for a new one",
            details={"reason": "wrong_code"},
        )
    attempt.release()
    return Proven(IdentityKind.EMAIL, proof.email, proof.email, identity)


def prove_own(player: Player, proof: Proof, *, meta: Mapping[str, Any]) -> Proven:
    """`prove`, for a proof that must be of one of `player`'s own identities."""
    proven = prove(proof, meta=meta)
    if proven.identity is None or proven.identity.player_id != player.pk:
        raise CredentialsRefused(
            "that proves an identity this account has not linked",
            details={"reason": "not_linked"},
        )
    return proven
