"""Sessions: each device a player signs in on holds a token of its own
(`PlayerSession`), listed for the player and signed out one at a time; a new token
(`players.services.player_new_token`) signs out every other.

A token that stops working takes its stream tickets and open streams with it, in
every server process, when the change commits (`players.signals.token_revoked`,
received by the games app). A session unused for ``SESSION_IDLE_DAYS`` is expired:
refused, then deleted by the periodic purge."""

from __future__ import annotations

import datetime as dt
import secrets
import uuid
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from players.models import Player, PlayerSession, hash_token
from players.signals import token_revoked
from unoservice.errors import InvalidRequest, NotFound

# A player's sessions at once: signing in on one more device ends the one used
# longest ago. Bounds the list, and what a revocation carries (`games.services.notify`).
MAX_SESSIONS = 20
MAX_SESSION_NAME_LENGTH = 64
# `last_used_at` (and `network`) move on at most this often: a request does not
# write for it more often than that.
TOUCH_SECONDS = 300


def clean_session_name(raw: object) -> str:
    """What a client calls its device: up to 64 printable characters after
    trimming, or nothing."""
    if raw is None:
        return ""
    name = raw.strip() if isinstance(raw, str) else None
    if name is None or len(name) > MAX_SESSION_NAME_LENGTH or not name.isprintable():
        message = f"up to {MAX_SESSION_NAME_LENGTH} printable characters"
        raise InvalidRequest(f"device must be {message}", details={"fields": {"device": [message]}})
    return name


def idle_cutoff() -> dt.datetime:
    """Sessions last used before this are expired."""
    return timezone.now() - dt.timedelta(days=settings.SESSION_IDLE_DAYS)


def is_expired(session: PlayerSession) -> bool:
    return session.last_used_at < idle_cutoff()


def revoke(player: Player, token_hashes: Iterable[str]) -> None:
    """In the caller's transaction: these tokens of the player stop working, with
    their stream tickets and, once it commits, their open streams."""
    hashes = sorted(set(token_hashes))
    if hashes:
        token_revoked.send(sender=Player, player=player, token_hashes=hashes)


def session_open(*, player: Player, name: str, network: str) -> tuple[PlayerSession, str]:
    """In the caller's transaction, which has locked the player's row: a new session
    of `player` on a device called `name`, used from `network`; returned with its
    token, shown only this once. Past `MAX_SESSIONS`, the ones used longest ago are
    signed out."""
    token = secrets.token_urlsafe(32)
    session = PlayerSession.objects.create(
        player=player, token_hash=hash_token(token), name=name, network=network
    )
    surplus = list(
        PlayerSession.objects.filter(player=player)
        .order_by("-last_used_at", "-created_at")
        .values_list("pk", "token_hash")[MAX_SESSIONS:]
    )
    if surplus:
        PlayerSession.objects.filter(pk__in=[pk for pk, _ in surplus]).delete()
        revoke(player, [token_hash for _, token_hash in surplus])
    return session, token


def session_end(*, player_id: uuid.UUID | str, session_id: uuid.UUID | str) -> None:
    """Sign one of the player's devices out: its token stops working, with its
    tickets and open streams; `NotFound` for a session that is not theirs (or is
    gone). Locks the player row."""
    try:
        pk = uuid.UUID(str(session_id))
    except ValueError:
        raise NotFound("no such session") from None
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        session = PlayerSession.objects.filter(pk=pk, player=player).first()
        if session is None:
            raise NotFound("no such session")
        session.delete()
        revoke(player, [session.token_hash])


def sessions_end_all(*, player_id: uuid.UUID | str) -> int:
    """Sign the player out of every device (an operator's doing: a stolen phone, a
    leaked token): every token stops working, with its tickets and open streams;
    the player signs up or in afresh. Returns how many sessions ended. Locks the
    player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        return len(end_every_session(player))


def end_every_session(player: Player) -> list[PlayerSession]:
    """In the caller's transaction, which has locked the player's row: every session
    of `player` ends, with its token (`revoke`); returns them as they were."""
    ended = list(PlayerSession.objects.filter(player=player))
    PlayerSession.objects.filter(pk__in=[s.pk for s in ended]).delete()
    revoke(player, [s.token_hash for s in ended])
    return ended


def sessions_of(player_id: uuid.UUID | str) -> list[PlayerSession]:
    """The player's sessions that are not expired, the one used last first."""
    return list(PlayerSession.objects.filter(player_id=player_id, last_used_at__gte=idle_cutoff()))


def touch(session: PlayerSession, network: str) -> None:
    """Note that `session` was used now from `network`, unless its use was noted less
    than `TOUCH_SECONDS` ago. One UPDATE when due, outside any transaction."""
    now = timezone.now()
    if now - session.last_used_at < dt.timedelta(seconds=TOUCH_SECONDS):
        return
    PlayerSession.objects.filter(pk=session.pk).update(last_used_at=now, network=network)
    session.last_used_at, session.network = now, network


def sessions_purge() -> int:
    """Delete the expired sessions; returns how many went. Locks nothing: their
    tokens are refused already."""
    expired = PlayerSession.objects.filter(last_used_at__lt=idle_cutoff())
    deleted, _ = expired.delete()
    return deleted
