"""What a change of a game pushes to players who are away, and when (the push
itself, to phones and browsers, is `players.push`'s).

- **On the request path, one decision and at most one task.** Every change goes
  through `commit_change`, which calls `after_change`: when notifications can be
  sent (`push.enabled`) and the change may concern someone away (a human's turn
  began, the game started or ended, a rematch was offered, a bot took a timed-out
  seat), it sends `games.notify_change` on commit. Nothing is read or pushed there.
- **In the worker**, `change_notify` reads the change's events and the game as it
  is now, and pushes:
  - ``your_turn`` to the human whose turn began, unless it is over already; when
    they hold a stream of the game open (`presence.follows`), not now but
    `NOTIFY_AFTER_SECONDS` later (`games.notify_turn_late`), and only if they have
    not acted by then;
  - ``match_found``, ``rematch_offered`` and ``game_finished`` to whom the lobby
    stream would tell, unless they hold a lobby stream; ``seat_taken_over`` to the
    player a bot replaced, unless they watch the game from a stream.
- **Reminders.** A turn of an hour or more (`REMINDER_MIN_TIMEOUT`) gets one more
  ``your_turn`` when a quarter of it is left: the game's ``reminder_at`` is armed
  with its deadline (`reminder_due`), and the sweeper (`reminders_send`) clears it
  with a compare-and-set before pushing, so that it is sent once whichever sweeps
  race for it.

A notification of a turn replaces the game's previous one on the device (its topic
is the game) and expires at the turn's deadline.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction

from games import dispatch, engine
from games.engine import GameState
from games.engine.cards import CARDS
from games.models import Event, Game, GameStatus
from players import push
from players.models import player_tag
from unoservice import presence

# Turns at least this long get a reminder when a quarter of their time is left.
REMINDER_MIN_TIMEOUT = 3600
# What a push of a kind that is not a turn's lives for, unless read sooner.
KIND_TTL = dt.timedelta(days=1)

# The events that may concern someone away, beside a turn that began.
NEWS = frozenset({"game_started", "game_ended", "rematch_offered", "seat_taken_by_bot"})


# -- on the request path ------------------------------------------------------------


def after_change(
    game: Game,
    state: GameState | None,
    items: Sequence[engine.Event],
    *,
    turn_changed: bool,
    first_seq: int,
    actor: int | None = None,
) -> None:
    """Called by `commit_change` with the locked game as saved (`actor`: the seat
    whose move the change is, None for anything else): send the worker
    `games.notify_change` on commit when the change may concern someone away."""
    if not push.enabled():
        return
    seat = _turn_begun(game, state, turn_changed=turn_changed, actor=actor)
    if seat is None and not any(item.type in NEWS for item in items):
        return
    dispatch.send_args_on_commit(
        dispatch.NOTIFY_CHANGE, [str(game.pk), game.version, first_seq, game.last_seq, seat]
    )


def _turn_begun(
    game: Game, state: GameState | None, *, turn_changed: bool, actor: int | None
) -> int | None:
    """The seat of the human whose turn this change began, if one did: not when they
    made the change themselves (a drawn card to play or keep, or a Skip played with
    two at the table, leaves the turn theirs, and they are there)."""
    if state is None or not turn_changed or game.status != GameStatus.PLAYING:
        return None
    seat = state.to_act
    if seat is None or seat == actor or game.paused_until is not None:
        return None
    return seat if game.human_at(seat) else None


def reminder_due(game: Game) -> dt.datetime | None:
    """When the reminder of the turn whose deadline was just set is due: with a
    quarter of a long turn left, for a human's turn while notifications are on."""
    timeout = game.turn_timeout
    if game.turn_deadline is None or timeout is None or timeout < REMINDER_MIN_TIMEOUT:
        return None
    if not push.enabled():
        return None
    return game.turn_deadline - dt.timedelta(seconds=timeout / 4)


# -- in the worker --------------------------------------------------------------------


def change_notify(
    *, game_id: uuid.UUID, first_seq: int, last_seq: int, turn_seat: int | None
) -> int:
    """Push what the change that logged events `first_seq`..`last_seq` calls for
    (module docstring); `turn_seat`: the human whose turn it began. Reads without
    locks; returns how many notifications were handed to the push layer."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    events = list(
        Event.objects.filter(game_id=game_id, seq__gte=first_seq, seq__lte=last_seq).order_by("seq")
    )
    handed = 0
    for note in _news(game, events):
        # The lobby stream tells its player the same, but not of a seat taken over,
        # which only the game's own stream shows.
        told_by = game.pk if note.kind == "seat_taken_over" else presence.LOBBY
        if not presence.follows(note.player_id, told_by):
            push.deliver(note)
            handed += 1
    if turn_seat is not None:
        handed += _turn_notify(game, turn_seat, last_seq, events)
    return handed


def _turn_notify(game: Game, seat: int, turn_seq: int, events: Sequence[Event]) -> int:
    """Push `your_turn` for the turn that began at `turn_seq`, now or, while the
    player watches the game from a stream, after `NOTIFY_AFTER_SECONDS`."""
    player_id = _still_their_turn(game, seat, turn_seq)
    if player_id is None:
        return 0
    if presence.follows(player_id, game.pk):
        delay = settings.NOTIFY_AFTER_SECONDS
        transaction.on_commit(
            lambda: dispatch.send(
                dispatch.NOTIFY_TURN_LATE,
                [str(game.pk), seat, turn_seq, events[0].seq if events else turn_seq],
                countdown=delay,
                eta=None,
            )
        )
        return 0
    text = _turn_text(game, events, player_id)
    changed_at = _iso(events[-1].at) if events else None
    push.deliver(_your_turn(game, seat, player_id, text, changed_at=changed_at))
    return 1


def turn_late_notify(
    *, game_id: uuid.UUID, seat: int, turn_seq: int, first_seq: int | None = None
) -> int:
    """`NOTIFY_AFTER_SECONDS` into the turn that the change logging events
    `first_seq`..`turn_seq` began: push `your_turn` if the player has not acted yet,
    stream or not (a tab left open tells nobody)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    player_id = _still_their_turn(game, seat, turn_seq)
    if player_id is None:
        return 0
    first = first_seq if first_seq is not None else turn_seq
    change = Event.objects.filter(game=game, seq__gte=first, seq__lte=turn_seq).order_by("seq")
    text = _turn_text(game, list(change), player_id)
    push.deliver(_your_turn(game, seat, player_id, text))
    return 1


def reminders_send(now: dt.datetime, *, limit: int = 200) -> int:
    """Push the reminders due by `now`, each once: its `reminder_at` is cleared by a
    compare-and-set in the transaction that hands it to the push layer (on commit)."""
    due = Game.objects.filter(status=GameStatus.PLAYING, reminder_at__lte=now)
    sent = 0
    for game in due.order_by("reminder_at")[:limit]:
        with transaction.atomic():
            claimed = Game.objects.filter(pk=game.pk, reminder_at=game.reminder_at).update(
                reminder_at=None
            )
            seat = game.seat_to_act()
            if not claimed or seat is None or game.turn_deadline is None:
                continue
            player_id = game.human_at(seat)
            if player_id is None:
                continue
            left = _duration_in_words(game.turn_deadline - now)
            text = f"{left} left to play your turn"
            note = _your_turn(game, seat, player_id, text, reminder=True)
            push.deliver_on_commit(note)
            sent += 1
    return sent


# -- what is said -----------------------------------------------------------------------


def _news(game: Game, events: Sequence[Event]) -> Iterator[push.Notification]:
    """The notifications other than a turn's that `events` call for, as the lobby
    stream says them (docs/api.md, "The lobby stream")."""
    changed_at = _iso(events[-1].at) if events else None
    path = game_path(game.pk)
    for event in events:
        if event.type == "game_started":
            starter = None if game.match_key else str(game.host_id)
            for player_id in game.human_player_ids():
                if player_id != starter:
                    text = f"Your game with {_others(game, player_id)} has started"
                    yield _note("match_found", game, player_id, text, path, changed_at)
        elif event.type == "rematch_offered":
            by = event.data.get("by") or {}
            new_game = str(event.data.get("game"))
            for player_id in game.human_player_ids():
                if player_id != by.get("id"):
                    text = f"{_tagged(by) if by.get('name') else 'A player'} wants a rematch"
                    extra = {"rematch": new_game, "by": by}
                    rematch = game_path(new_game)
                    yield _note(
                        "rematch_offered", game, player_id, text, rematch, changed_at, extra
                    )
        elif event.type == "game_ended":
            winner = event.data.get("winner")
            for player_id in game.human_player_ids():
                won = _seat_of(game, player_id) == winner
                text = "You won the game" if won else f"{_name_at(game, winner)} won the game"
                yield _note("game_finished", game, player_id, text, path, changed_at)
        elif event.type == "seat_taken_by_bot" and event.seat is not None:
            timed_out = _timed_out_player(game, event, events)
            if timed_out is not None:
                resume = f"/api/v1/games/{game.pk}/resume"
                text = "A bot took your seat after your turns ran out: resume to play on"
                yield _note(
                    "seat_taken_over",
                    game,
                    timed_out,
                    text,
                    path,
                    changed_at,
                    {"resume": resume},
                    seat=event.seat,
                )


def _note(
    kind: str,
    game: Game,
    player_id: str,
    text: str,
    path: str,
    changed_at: str | None,
    extra: dict[str, Any] | None = None,
    *,
    seat: int | None = None,
) -> push.Notification:
    expires = dt.datetime.fromisoformat(changed_at) + KIND_TTL if changed_at else None
    return push.Notification(
        kind=kind,
        player_id=player_id,
        game_id=str(game.pk),
        text=text,
        seat=seat if seat is not None else _seat_of(game, player_id),
        path=path,
        expires_at=_iso(expires),
        changed_at=changed_at,
        extra=extra or {},
    )


def _your_turn(
    game: Game,
    seat: int,
    player_id: str,
    text: str,
    *,
    changed_at: str | None = None,
    reminder: bool = False,
) -> push.Notification:
    """`your_turn` for the turn as the game row has it; `changed_at`: when the change
    that began it was saved, for a push sent for that change (the delivery latency
    counts from it), None for one sent later."""
    deadline = _iso(game.turn_deadline)
    return push.Notification(
        kind="your_turn",
        player_id=player_id,
        game_id=str(game.pk),
        text=text,
        seat=seat,
        deadline=deadline,
        path=game_path(game.pk),
        expires_at=deadline,
        changed_at=changed_at,
        extra={"reminder": True} if reminder else {},
    )


def _turn_text(game: Game, events: Sequence[Event], player_id: str) -> str:
    """What began the turn, in a few words, from the change's events (the first is
    what its maker did): "Ann played a Wild Draw Four: your turn"."""
    by_type = {event.type: event for event in events}
    if "turn_timed_out" in by_type:  # its default action follows: said as the timeout
        return f"{_name_at(game, by_type['turn_timed_out'].seat)} ran out of time: your turn"
    if "round_started" in by_type:
        return f"Round {by_type['round_started'].round} has begun: your turn"
    first = events[0] if events else None
    if first is not None:
        who = _name_at(game, first.seat)
        if first.type == "card_played":
            return f"{who} played {card_in_words(int(first.data['card']))}: your turn"
        if first.type == "turn_passed":
            return f"{who} passed: your turn"
        if first.type == "challenged":
            challenger = _name_at(game, first.data.get("by"))
            outcome = "won" if first.data.get("guilty") else "lost"
            return f"{challenger} challenged {who}'s Wild Draw Four and {outcome}: your turn"
        if first.type == "cards_drawn":
            count = int(first.data.get("count", 0))
            return f"{who} drew {count} card{'s' if count != 1 else ''}: your turn"
    return f"Your turn in the game with {_others(game, player_id)}"


def card_in_words(card: int) -> str:
    """A card as a player says it: "a red 7", "a blue Draw Two", "a Wild Draw Four"."""
    found = CARDS[card]
    kind = str(found.number) if found.number is not None else found.kind.replace("_", " ").title()
    if found.color is None:
        return f"a {kind}"
    return f"a {found.color} {kind}"


def _duration_in_words(left: dt.timedelta) -> str:
    """A span as a reminder says it, to the nearest unit: "18 hours", "2 days"."""
    minutes = max(round(left.total_seconds() / 60), 0)
    if minutes >= 48 * 60:
        return f"{round(minutes / 1440)} days"
    if minutes >= 60:
        hours = round(minutes / 60)
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def game_path(game_id: object) -> str:
    """Where a client opens a game a notification is about."""
    return f"/play/games/{game_id}"


# -- reading the game ----------------------------------------------------------------------


def _still_their_turn(game: Game, seat: int, turn_seq: int) -> str | None:
    """The player whose turn began at `turn_seq`, if it is still theirs and they have
    not acted since (no event of their seat after it); None otherwise."""
    player_id = game.human_at(seat)
    if player_id is None or game.seat_to_act() != seat:
        return None
    if Event.objects.filter(game=game, seq__gt=turn_seq, seat=seat).exists():
        return None
    return player_id


def _timed_out_player(game: Game, taken: Event, events: Sequence[Event]) -> str | None:
    """The player a bot replaced through timeouts in this change (they may resume)."""
    if not any(e.type == "turn_timed_out" and e.seat == taken.seat for e in events):
        return None
    assert taken.seat is not None
    entry = game.seating[taken.seat]
    return entry["player"]["id"] if entry["player"] else None


def _seat_of(game: Game, player_id: str) -> int | None:
    for seat, entry in enumerate(game.seating):
        if entry["player"] and entry["player"]["id"] == player_id:
            return seat
    return None


def _name_at(game: Game, seat: object) -> str:
    if not isinstance(seat, int) or not 0 <= seat < len(game.seating):
        return "Someone"
    entry = game.seating[seat]
    if entry["player"]:
        return _tagged(entry["player"])
    return f"Bot {entry['bot']}" if entry["bot"] else "Someone"


def _tagged(player: Mapping[str, Any]) -> str:
    # A push text stands alone, with no table beside it to tell two Anns apart: the
    # tag goes with the name, as in the leaderboard.
    return f"{player['name']}#{player_tag(player['id'])}"


def _others(game: Game, player_id: str) -> str:
    names = [
        _name_at(game, seat)
        for seat, entry in enumerate(game.seating)
        if not (entry["player"] and entry["player"]["id"] == player_id and entry["bot"] is None)
    ]
    if not names:
        return "nobody"
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
