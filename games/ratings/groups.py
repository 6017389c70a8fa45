"""Closed groups: players whose rated games are mostly among themselves, for the staff
to look at (`games.ratings.admin`). A ring of accounts that vouch for each other, once
big enough to pass the record's rule (`games.ratings.opponents`), shows here.

Read from `RatedPair` over a window, in memory: the admin page's work, never the
move's. Players are linked by the pairs that finished at least `STRONG_TIE` rated games
together (a single game with a stranger does not join two groups); each connected
set of `MAX_MEMBERS` players or fewer is a candidate, listed when at least
`MIN_SHARE` of its members' rated games had no other human at the table.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from games.models import RatedPair
from players.models import Player

WINDOW = dt.timedelta(days=30)
STRONG_TIE = 2
MAX_MEMBERS = 10
MIN_SHARE = 0.8
MIN_GAMES_AMONG = 3


@dataclass(frozen=True)
class ClosedGroup:
    members: list[Player]  # by name
    games_among: list[Any]  # ids of the rated games with members only
    games_in_all: int  # the members' rated games, with anyone

    @property
    def share(self) -> float:
        return len(self.games_among) / self.games_in_all if self.games_in_all else 0.0


def _tables(since: dt.datetime) -> dict[Any, set[str]]:
    """The humans of each rated game finished since `since`."""
    tables: dict[Any, set[str]] = {}
    rows = RatedPair.objects.filter(finished_at__gte=since).values_list("game_id", "low", "high")
    for game_id, low, high in rows.iterator(chunk_size=5000):
        tables.setdefault(game_id, set()).update((low, high))
    return tables


def _linked(tables: dict[Any, set[str]]) -> list[set[str]]:
    """The sets of players linked by strong ties (union-find over the pairs)."""
    ties: Counter[tuple[str, str]] = Counter()
    for humans in tables.values():
        ordered = sorted(humans)
        ties.update((a, b) for n, a in enumerate(ordered) for b in ordered[n + 1 :])
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for (a, b), count in ties.items():
        if count >= STRONG_TIE:
            parent[root(a)] = root(b)
    sets: dict[str, set[str]] = {}
    for key in parent:
        sets.setdefault(root(key), set()).add(key)
    return list(sets.values())


def games_among(members: Iterable[str], *, since: dt.datetime | None = None) -> list[Any]:
    """The rated games, finished since `since` (`WINDOW` ago by default), whose humans
    were all among `members` (player ids), oldest first."""
    since = since or timezone.now() - WINDOW
    group = set(members)
    tables = _tables(since)
    return [game_id for game_id, humans in tables.items() if humans <= group]


def closed_groups(*, since: dt.datetime | None = None) -> list[ClosedGroup]:
    """The closed groups of the rated games finished since `since` (`WINDOW` ago by
    default), those with the most games among themselves first."""
    since = since or timezone.now() - WINDOW
    tables = _tables(since)
    games_of: dict[str, list[Any]] = {}
    for game_id, humans in tables.items():
        for key in humans:
            games_of.setdefault(key, []).append(game_id)
    found = []
    for group in _linked(tables):
        if len(group) > MAX_MEMBERS:
            continue
        touching = {game for key in group for game in games_of[key]}
        among = [game for game in tables if game in touching and tables[game] <= group]
        if len(among) >= MIN_GAMES_AMONG and len(among) >= MIN_SHARE * len(touching):
            found.append((group, among, len(touching)))
    ids = {key for group, _, _ in found for key in group}
    players = {str(pk): player for pk, player in Player.objects.in_bulk(ids).items()}
    groups = [
        ClosedGroup(
            members=sorted((players[key] for key in group if key in players), key=lambda p: p.name),
            games_among=among,
            games_in_all=touching,
        )
        for group, among, touching in found
    ]
    return sorted(groups, key=lambda g: -len(g.games_among))
