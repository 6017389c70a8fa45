"""Partners in quick match: duos who queue together sit on one team.

Each of a duo asks with the other's id (`partner`). The first to be seated holds a seat
for the other in the same game, which no stranger may take; when the game fills, or
its seats go to bots, the deal seats every duo across the table (seats 0 and 2, or 1
and 3), logged as `seats_arranged`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from games import engine
from games.engine.vocabulary import SeatsArrangedData
from games.models import Game
from games.services.arranging import _move_seats

if TYPE_CHECKING:
    from games.services.matching import MatchRequest


def team_order(holders: Sequence[str | None], duos: Mapping[str, str]) -> list[int]:
    """For each seat from 0 up, the seat whose holder moves there so that every duo
    among `holders` (player ids by seat; None for a bot) sits across the table, the
    first seat's team first. A table without such a duo, or of other than four,
    keeps its order."""
    pairs: list[tuple[int, int]] = []
    for i, one in enumerate(holders):
        for j in range(i + 1, len(holders)):
            other = holders[j]
            if one and other and duos.get(one) == other and duos.get(other) == one:
                pairs.append((i, j))
    if len(holders) != 4 or not pairs:
        return list(range(len(holders)))
    teams: list[list[int]] = [[], []]
    for pair in pairs[:2]:
        team = teams[0] if not teams[0] else teams[1]
        team.extend(pair)
    rest = [s for s in range(len(holders)) if not any(s in team for team in teams)]
    for team in teams:
        while len(team) < 2:
            team.append(rest.pop(0))
        team.sort()
    if teams[1][0] == 0:
        teams.reverse()
    return [teams[0][0], teams[1][0], teams[0][1], teams[1][1]]


def teams_arranged(game: Game) -> engine.Event | None:
    """Seat the duos of the locked, waiting, full partners `game` across the table (its
    Seat rows and `game.seating`); the `seats_arranged` event, or None when they
    already sit so."""
    holders = [entry["player"]["id"] if entry["player"] else None for entry in game.seating]
    order = team_order(holders, game.duos)
    if order == list(range(len(holders))):
        return None
    _move_seats(game, order)
    return engine.Event("seats_arranged", None, SeatsArrangedData(order=order), None)


@dataclass
class _Table:
    """A game as placement sees it: who sits there, whom they hold a seat for."""

    seats: int
    members: set[str]
    duos: dict[str, str] = field(default_factory=dict)

    @property
    def free(self) -> int:
        """Seats neither taken nor held for a partner still to come."""
        held = sum(
            1
            for one, other in self.duos.items()
            if one in self.members and other not in self.members
        )
        return self.seats - len(self.members) - held

    def awaits(self, player_id: str) -> bool:
        return player_id not in self.members and any(
            other == player_id and one in self.members for one, other in self.duos.items()
        )

    def take(self, request: MatchRequest) -> None:
        player_id = str(request.player.pk)
        self.members.add(player_id)
        if request.partner is not None:
            self.duos[player_id] = request.partner


def place_partners(
    requests: Sequence[MatchRequest], games: Sequence[Game], apart: Mapping[str, set[str]]
) -> tuple[list[list[MatchRequest]], list[list[MatchRequest]]]:
    """`matching._place` for the partners queue: a player whose partner holds them a
    seat takes it (unless a block stands with someone seated there); anyone else the
    first game (the waiting ones, oldest first, then
    the new ones) with a free seat, and a seat to hold for their partner if they name
    one, and nobody they have a block with; else a new game."""
    tables = [
        _Table(game.max_players, set(game.human_player_ids()), dict(game.duos)) for game in games
    ]
    placed: list[list[MatchRequest]] = [[] for _ in games]
    fresh: list[list[MatchRequest]] = []
    nobody: set[str] = set()
    for request in requests:
        player_id = str(request.player.pk)
        kept_from = apart.get(player_id, nobody)
        need = 1 if request.partner is None else 2
        groups = [*placed, *fresh]
        chosen = next(
            (
                n
                for n, t in enumerate(tables)
                if t.awaits(player_id) and kept_from.isdisjoint(t.members)
            ),
            None,
        )
        if chosen is None:
            chosen = next(
                (
                    n
                    for n, t in enumerate(tables)
                    if t.free >= need and kept_from.isdisjoint(t.members)
                ),
                None,
            )
        if chosen is None:
            tables.append(_Table(request.max_players, set()))
            fresh.append([])
            groups.append(fresh[-1])
            chosen = len(tables) - 1
        tables[chosen].take(request)
        groups[chosen].append(request)
    return placed, fresh
