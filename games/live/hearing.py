"""How the hub hears of changes (`games.live.hub`): PostgreSQL's ``LISTEN`` on a
connection of its own, and the catch-up that reads back, in one query each, what a
listener may have missed (the watched games' seqs, the followed players' open games,
the signed-in players' tokens) when it connects, at each heal, or at each poll
without PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection

from games import selectors
from games.live.channels import PlayerChannel
from games.live.sessions import usable_tokens
from games.live.talk import messages_since
from games.services.notify import (
    parse_payload,
    parse_player_payload,
    parse_revoke_payload,
)
from games.talk.wire import parse_talk
from unoservice.notices import CHANNEL, parse_note

if TYPE_CHECKING:
    from games.live.hub import Hub

log = logging.getLogger("games.live.hub")  # the hub's lines, under the name they had


async def listen_postgres(live: Hub) -> None:
    import psycopg

    while True:
        try:
            conninfo = await live.read(_conninfo)
            async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as listener:
                await listener.execute(f"LISTEN {CHANNEL}")
                live.listening.set()
                # Anything committed while no one listened is read back now, and the
                # notes of changed table-talk choices that may have been missed are
                # made up for by reading every reader's choices again.
                live.talk_readers.forget_all()
                await catch_up(live)
                async for note in listener.notifies():
                    live.notifications += 1
                    parsed = parse_payload(note.payload)
                    if parsed is not None:
                        live.heard(*parsed)
                        continue
                    said = parse_talk(note.payload)
                    if said is not None:
                        live.heard_talk(*said)
                        continue
                    noted = parse_note(note.payload)
                    if noted is not None:
                        live.heard_note(*noted)
                        continue
                    seated = parse_player_payload(note.payload)
                    if seated is not None:
                        live.heard_player(*seated)
                        continue
                    revoked = parse_revoke_payload(note.payload)
                    if revoked is not None:
                        live.sessions.revoke(*revoked)
        except asyncio.CancelledError:
            raise
        except Exception:
            live.listening.clear()
            log.warning("the game listener lost PostgreSQL; reconnecting", exc_info=True)
            await asyncio.sleep(1.0)


async def catch_up(live: Hub) -> None:
    """One query for the last seq of every watched game, and one for the open
    games of every player a lobby stream follows."""
    live.sessions.forget_old()
    if live.sessions:
        await _catch_up_sessions(live)
    # The players' new seats wake their lobby streams once the games' seqs, read
    # after the seats, are heard: a stream then reads each game with its seat.
    seated = await _catch_up_players(live) if live.players else []
    try:
        await _catch_up_games(live)
    finally:
        for channel in seated:
            channel.wake()
    await _catch_up_talk(live)


async def _catch_up_talk(live: Hub) -> None:
    """Read the table talk said after the last message heard on each loaded line."""
    heard = {
        game_id: channel.talk.heard_id
        for game_id, channel in live.channels.items()
        if channel.streams and channel.talk.loaded
    }
    if not heard:
        return
    try:
        found = await live.read(lambda: messages_since(heard))
    except Exception:
        log.warning("could not read the watched games' table talk", exc_info=True)
        return
    for game_id, message in found:
        live.heard_talk(game_id, message)


async def _catch_up_games(live: Hub) -> None:
    ids = list(live.channels)
    if not ids:
        return
    try:
        rows = await live.read(lambda: selectors.games_last_seqs(ids))
    except Exception:
        log.warning("could not read the watched games' seqs", exc_info=True)
        return
    for game_id, seq in rows:
        live.heard(game_id, seq)


async def _catch_up_sessions(live: Hub) -> None:
    token_hashes = live.sessions.token_hashes()
    if not token_hashes:
        return
    began = time.monotonic()
    try:
        tokens = await live.read(lambda: usable_tokens(token_hashes))
    except Exception:
        log.warning("could not read the signed-in players' tokens", exc_info=True)
        return
    live.sessions.stale(tokens, began)


async def _catch_up_players(live: Hub) -> list[PlayerChannel]:
    """Read the open games of the players followed here; the channels of those
    with a game new to them, to wake."""
    player_ids = list(live.players)
    began = time.monotonic()
    try:
        found = await live.read(lambda: selectors.open_games_of(player_ids))
    except Exception:
        log.warning("could not read the followed players' games", exc_info=True)
        return []
    seated = []
    for player_id in player_ids:
        channel = live.players.get(player_id)
        if channel is None:
            continue
        # A game heard of since the read began may be missing from it: kept.
        channel.heard_at = {g: at for g, at in channel.heard_at.items() if at >= began}
        games = found.get(player_id, frozenset()) | frozenset(channel.heard_at)
        added = not games <= channel.games
        channel.games = games
        if added:
            seated.append(channel)
    return seated


def _conninfo() -> str:
    """The listener's own connection: LISTEN_DATABASE_URL when set (PostgreSQL
    itself, past a transaction pooler: LISTEN needs a session of its own), else the
    database Django uses."""
    from psycopg.conninfo import make_conninfo

    if settings.LISTEN_DATABASE_URL:
        return make_conninfo(settings.LISTEN_DATABASE_URL)
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    options = {key: value for key, value in params.items() if isinstance(value, str | int)}
    return make_conninfo("", **options)
