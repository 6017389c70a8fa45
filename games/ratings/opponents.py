"""Whom a rated game counts as an opponent for whom: the record the leaderboard asks
for (`players.standings.has_record`), worked out in memory on the locked rating rows,
so that the game's end spends no statement on it.

Each rating keeps the first `MET_KEPT` different humans it met in rated games
(`Rating.met`) and the first `MIN_OPPONENTS_TO_RANK` established ones
(`Rating.opponents`). An opponent is established for a player when, before the game
that met them, they had `MIN_GAMES_TO_RANK` rated games and had met
`MIN_OPPONENTS_TO_RANK` different humans other than that player. So a ring of
accounts that play only each other does not vouch for its members: in a ring of four,
each has met three, of whom two are left once the player judged is set aside.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from players.models import BOT_KEY_PREFIX, Rating
from players.standings import MET_KEPT, MIN_GAMES_TO_RANK, MIN_OPPONENTS_TO_RANK


def is_human(key: str) -> bool:
    return not key.startswith(BOT_KEY_PREFIX)


def established_for(other: Rating, key: str) -> bool:
    """Whether `other` (as its row stands before the game) counts as an established
    opponent for the rating `key`: enough rated games, and enough humans met other
    than `key`."""
    if other.games < MIN_GAMES_TO_RANK:
        return False
    return len([met for met in other.met.split() if met != key]) >= MIN_OPPONENTS_TO_RANK


def meet_all(keys: Sequence[str], ratings: dict[str, Rating]) -> None:
    """Record in memory who the seats of one rated game (`keys`, in seat order, one
    per seat) met, judged on `ratings` as they stood before the game counted (their
    `games` not yet incremented): each rating gains the established humans of the
    game (`established_for` it) and every human of it among those it met."""
    humans = [key for key in dict.fromkeys(keys) if is_human(key)]
    counted = {
        key: [other for other in humans if other != key and established_for(ratings[other], key)]
        for key in dict.fromkeys(keys)
    }
    for key, established in counted.items():
        row = ratings[key]
        meet(row, established)
        if is_human(key):
            row.met = _added(row.met.split(), [h for h in humans if h != key], MET_KEPT)


def meet(row: Rating, established: Sequence[str]) -> None:
    """Add `established` (keys of humans established for `row`, in seat order) to the
    different opponents `row` has met, up to `MIN_OPPONENTS_TO_RANK`: the leaderboard
    asks for no more. An opponent met before they were established counts when met
    again after."""
    if row.opponents_met >= MIN_OPPONENTS_TO_RANK:
        return
    known = row.opponents.split()
    added = [key for key in established if key != row.key]
    row.opponents = _added(known, added, MIN_OPPONENTS_TO_RANK)
    row.opponents_met = len(row.opponents.split())


def _added(known: list[str], new: Iterable[str], limit: int) -> str:
    for key in new:
        if key not in known and len(known) < limit:
            known.append(key)
    return " ".join(known)


def meet_in_order(tables: Iterable[Sequence[str]], rows: dict[str, Rating]) -> None:
    """Work out again, from nothing, the opponents and the humans met of `rows` (every
    rating that played, by key), from their rated games in the order they finished
    (`tables`: each game's keys, in seat order), as the games themselves did. `games`
    is counted afresh on the way and left as the games say."""
    for row in rows.values():
        row.opponents, row.opponents_met, row.met, row.games = "", 0, "", 0
    for keys in tables:
        meet_all(keys, rows)
        for key in dict.fromkeys(keys):
            rows[key].games += 1
