"""Changes to accounts: codes mailed, signing in with an identity, linking one, a
password. Each takes the player's row lock where it changes the player's."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from players import sessions
from players.accounts import email_codes, limits, mail
from players.accounts.proofs import Proof, prove, prove_own
from players.models import Identity, IdentityKind, Player
from unoservice.errors import (
    CredentialsRefused,
    IdentityTaken,
    InvalidRequest,
    NoEmailLinked,
    PlayerDisabled,
    TooManyIdentities,
)

# Identities one player may link: a few addresses and accounts, not a collection.
MAX_IDENTITIES = 10


def email_code_send(*, email: str, player: Player | None, meta: Mapping[str, Any]) -> None:
    """Mail a new code to `email` (replacing the one it had), once it commits: to
    sign in with it when an account has the address, to link it when `player` (the
    caller, if signed in) asks. An address no account has, asked for by no player,
    gets a code that is never sent: the request is answered, counted and timed as
    any other, so that nobody learns which addresses have accounts. `RateLimited`
    past the limits (`limits.count_code_mail`). Locks the address's code row (its
    upsert) and nothing else."""
    limits.count_code_mail(email=email, meta=meta)
    known = Identity.objects.filter(kind=IdentityKind.EMAIL, subject=email).exists()
    with transaction.atomic():
        code = email_codes.code_issue(email=email)
        mail.send_code_later(email, code if known or player is not None else None)


def sign_in(
    *, proof: Proof, device: str, network: str, meta: Mapping[str, Any]
) -> tuple[Player, str]:
    """Sign in on a new device with an identity a player has linked: a new session
    (named `device`, used from `network`), returned with its token, shown only this
    once. `CredentialsRefused` when the proof fails or no player has the identity;
    `PlayerDisabled` for a disabled player. Locks the player row."""
    proven = prove(proof, meta=meta)
    if proven.identity is None:
        what = "email address" if proven.kind == IdentityKind.EMAIL else "account"
        raise CredentialsRefused(
            f"no player has linked this {what}: play as a guest and link it",
            details={"reason": "not_linked"},
        )
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=proven.identity.player_id)
        if player.disabled_at is not None:
            raise PlayerDisabled("this player is disabled")
        Identity.objects.filter(pk=proven.identity.pk).update(last_used_at=timezone.now())
        session, token = sessions.session_open(player=player, name=device, network=network)
    player.session = session
    return player, token


def identity_link(
    *, player_id: uuid.UUID | str, proof: Proof, meta: Mapping[str, Any]
) -> tuple[Identity, bool]:
    """Link the identity `proof` shows (an email by its code, or a provider's account
    by an ID token) to the player, who can then sign in with it on any device;
    returns it, and whether it is new (linking one already theirs changes nothing).
    `IdentityTaken` when another player has it. Locks the player row."""
    if proof.by_password:
        raise InvalidRequest(
            "link an email address with the code sent to it, not a password",
            details={"fields": {"password": ["not taken here: send the code"]}},
        )
    proven = prove(proof, meta=meta)
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        if proven.identity is not None:
            if proven.identity.player_id != player.pk:
                raise IdentityTaken(_taken_message(proven.kind))
            return proven.identity, False
        if Identity.objects.filter(player=player).count() >= MAX_IDENTITIES:
            raise TooManyIdentities(f"a player links at most {MAX_IDENTITIES} identities")
        try:
            with transaction.atomic():
                identity = Identity.objects.create(
                    player=player, kind=proven.kind, subject=proven.subject, email=proven.email
                )
        except IntegrityError:
            # Linked by another player in the moment since it was proven.
            raise IdentityTaken(_taken_message(proven.kind)) from None
    return identity, True


def _taken_message(kind: str) -> str:
    what = "email address" if kind == IdentityKind.EMAIL else "account"
    return f"another player has linked this {what}: sign in with it instead"


def password_set(
    *, player_id: uuid.UUID | str, new_password: str, proof: Proof, meta: Mapping[str, Any]
) -> None:
    """Set the player's password, which signs in with their verified email address,
    on a fresh proof of their account (a code, the current password, an ID token).
    Django's password validators judge it; it is kept as an Argon2id hash. Locks
    the player row."""
    player = Player.objects.get(pk=player_id)
    email = (
        Identity.objects.filter(player=player, kind=IdentityKind.EMAIL)
        .values_list("email", flat=True)
        .first()
    )
    if email is None:
        raise NoEmailLinked("link an email address first: a password signs in together with it")
    try:
        # The validators compare it with a user's attributes: an unsaved user with
        # the player's name and address stands for the player. Judged before the
        # proof, which a weak password would otherwise use up (a code is used once).
        validate_password(new_password, get_user_model()(username=player.name, email=email))
    except ValidationError as refused:
        raise InvalidRequest(
            "the new password is too weak: " + " ".join(refused.messages),
            details={"fields": {"new_password": list(refused.messages)}},
        ) from None
    prove_own(player, proof, meta=meta)
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player_id)
        locked.password = make_password(new_password)
        locked.save(update_fields=["password"])


def identities_unlink_all(*, player_id: uuid.UUID | str) -> int:
    """An operator unlinks every identity of the player, and their password with them
    (it signs in only with an address); returns how many went. The player's sessions
    stay. Locks the player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        unlinked, _ = Identity.objects.filter(player=player).delete()
        player.password = ""
        player.save(update_fields=["password"])
    return unlinked
