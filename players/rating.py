"""Skill ratings: the Weng-Lin (OpenSkill) Plackett-Luce model, through `openskill`.

UNO is a free-for-all for 2-10 seats, which Elo (one against one) and Glicko-2 do
not model; Plackett-Luce rates a whole finishing order at once. A rating is a belief
about a player's skill: `mu` (its centre) and `sigma` (its uncertainty); `ordinal`,
``mu - 3 * sigma``, is what a leaderboard sorts by, so that a newcomer with a lucky
first game does not top it.

Pure functions of their arguments, shared by the game-ending transaction, the
recompute command and the bot ladder: the same inputs in the same order give the
same ratings, to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
# Standard deviations below mu that `ordinal` sits: 3 puts 99.7 % of the belief above.
ORDINAL_Z = 3.0

# The uncertainty every game adds back before it is rated (OpenSkill's default): a
# rating never freezes, so a player who improves is followed.
TAU = DEFAULT_MU / 300

_MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, tau=TAU)


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        return self.mu - ORDINAL_Z * self.sigma


def places(
    scores: Sequence[int], winner: int, forfeited: Sequence[bool] | None = None
) -> list[int]:
    """Each seat's place (1 is first) at the end of a game: the winner first, then by
    final score, highest first; equal scores share a place and the next place is
    skipped (1, 2, 2, 4). The winner's score is the highest anyway, except in a
    one-round game whose other hands were worth 0 points: winning still places first.

    A seat marked in `forfeited` (its player left, or lost the seat to timeouts and
    never took it back) places last whatever its bot made of it, behind every seat
    that did not; several such seats share that last place. When the winning seat
    forfeited, the others place by score alone."""
    gone = list(forfeited) if forfeited is not None else [False] * len(scores)
    first = winner if not gone[winner] else None
    order = sorted(range(len(scores)), key=lambda s: (gone[s], s != first, -scores[s]))
    found = [0] * len(scores)
    for position, seat in enumerate(order, start=1):
        previous = order[position - 2] if position > 1 else None
        tied = previous is not None and (
            (gone[previous] and gone[seat])
            or (
                not gone[previous]
                and not gone[seat]
                and previous != first
                and seat != first
                and scores[previous] == scores[seat]
            )
        )
        found[seat] = found[previous] if tied and previous is not None else position
    return found


def rate(priors: Sequence[Skill], seat_places: Sequence[int]) -> list[Skill]:
    """Each seat's skill after a game in which seat i, rated `priors[i]` before it,
    finished at `seat_places[i]`: every seat is a team of one."""
    teams = [[_MODEL.rating(mu=p.mu, sigma=p.sigma)] for p in priors]
    rated = _MODEL.rate(teams, ranks=[float(place) for place in seat_places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def rate_teams(
    priors: Sequence[Skill], teams: Sequence[Sequence[int]], team_places: Sequence[int]
) -> list[Skill]:
    """Each seat's skill after a team game (partners): `teams` lists each team's seats,
    `team_places` each team's place. OpenSkill's team model: a team plays as the sum
    of its members' skills, and its result moves every member, each by their share
    of the team's uncertainty."""
    rated_teams = _MODEL.rate(
        [[_MODEL.rating(mu=priors[s].mu, sigma=priors[s].sigma) for s in team] for team in teams],
        ranks=[float(place) for place in team_places],
    )
    after = list(priors)
    for team, members in zip(teams, rated_teams, strict=True):
        for seat, member in zip(team, members, strict=True):
            after[seat] = Skill(member.mu, member.sigma)
    return after


def combine(prior: Skill, posteriors: Sequence[Skill]) -> Skill:
    """One rated entity's skill after a game in which it held several seats (a bot
    strategy, which is one pseudo-player however many seats it fills): each seat's
    update applied in turn, the shifts of mu added up and the shrinking of sigma
    multiplied. With one seat, that seat's posterior."""
    mu, sigma = prior.mu, prior.sigma
    for posterior in posteriors:
        mu += posterior.mu - prior.mu
        sigma *= posterior.sigma / prior.sigma
    return Skill(mu, sigma)
