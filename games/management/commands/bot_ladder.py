"""Rate the bot strategies against each other, in a ladder of their own.

    python manage.py bot_ladder [--games 400] [--seed 1] [--players 3]
                                [--target-score 500] [--workers N] [--check]

Plays games among the strategies with the rules engine alone, in memory, and rates
them as a rated game of the service rates its players (`players.rating`), each
strategy one pseudo-player. Nothing is read from or written to the database: the
players' leaderboard is not touched. Every game seats every strategy, filling the
seats round robin from an order shuffled for that game, so every game rates all of
them against each other; a strategy that holds several seats of a game has the
seats' updates combined (`rating.combine`), as a player's rating does. Game i is
dealt from a seed derived from --seed and i alone, and the games are rated in that
order however many worker processes play them, so the same options print the same
ladder.

Prints the ladder, ranked by ordinal, then whether expert is above greedy above
random with each gap in mu larger than the sum of the two sigmas; with --check,
exits 1 when it is not.

Games are played to 500 points by default, as a game of the service is unless its
creator says otherwise. Places come from the final scores (`rating.places`), as for
the leaderboard: in a one-round game (--target-score 0) only the winner scores, so the
others share second place and the game tells greedy from random only when one of them
wins. The rating model also widens every sigma a little each game (it lets a skill
drift), so sigmas level off after a few hundred games instead of shrinking on: more
games of one round do not make a small gap clear (400 of them do not separate greedy
from random), while whole games, in which the stronger strategy's edge adds up over
a dozen rounds, widen the gaps several times over. The workers default to one per
core.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from typing import Any, Final

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import bots
from games.engine import (
    LEGACY_SEED_BITS,
    GameConfig,
    GameState,
    InvalidConfig,
    apply,
    new_game,
)
from games.engine.rng import derive
from players import rating

# The order the strategies are built to stand in, strongest first.
EXPECTED_ORDER: Final = ("expert", "greedy", "random")
DEFAULT_GAMES: Final = 400
DEFAULT_SEED: Final = 1
# A game of the service is to 500 points unless its creator says otherwise.
DEFAULT_TARGET_SCORE: Final = 500
PROGRESS_EVERY: Final = 50
# Games handed to a worker process at a time: few enough that the progress lines come
# regularly and the workers finish together, enough that the hand-overs cost nothing.
GAMES_A_HAND_OVER: Final = 4
# A game that has not ended after this many moves never will: a bug, not a long game.
MAX_STEPS: Final = 100_000


def seating(strategies: Sequence[str], seed: int, game: int, players: int) -> list[str]:
    """The strategy at each seat of game `game`: every strategy, in an order shuffled
    for this game (who sits first, and after whom, changes what a seat is worth), the
    seats beyond one each filled round robin in that order."""
    order = list(strategies)
    random.Random(derive(seed, "seating", game)).shuffle(order)
    return [order[seat % len(order)] for seat in range(players)]


def play(seated: Sequence[str], target_score: int, seed: int) -> GameState:
    """Play a game among the bots `seated` (one strategy a seat) to its end, dealt from
    `seed`; returns its final state.

    The bots decide as the service's bot task has them decide (`bots.next_action`),
    each decision with a generator derived from the game's seed, the change it is
    made at and the seat.
    """
    # The ladder's games never leave the process, so they keep the 63-bit round seeds
    # they were always dealt with: the same options print the ladder they always did.
    config = GameConfig(len(seated), target_score)
    state, events = new_game(config, seed, seed_bits=LEGACY_SEED_BITS)
    history = [event for event in events if event.round == state.round]
    for step in range(MAX_STEPS):
        if state.finished:
            return state
        action = bots.next_action(
            state,
            seated,
            history=partial(tuple, history),
            rng_for=partial(_bot_rng, seed, step),
        )
        assert action is not None, "a table of bots always has a bot to act"
        seat, move = action
        events = apply(state, seat, move)
        history.extend(events)
        if history[0].round != state.round:
            history = [event for event in history if event.round == state.round]
    raise CommandError(f"the game dealt from seed {seed} did not end in {MAX_STEPS} moves")


def _bot_rng(seed: int, step: int, seat: int) -> random.Random:
    return random.Random(derive(seed, "bot", step, seat))


@dataclass(frozen=True, slots=True)
class Played:
    """What the ladder keeps of a game: who sat where, and how it ended."""

    seated: list[str]
    scores: list[int]
    winner: int


def play_game(seed: int, game: int, players: int, target_score: int) -> Played:
    """Game number `game` of the ladder run with `seed`: a function of its arguments
    alone, so any process may play it."""
    seated = seating(EXPECTED_ORDER, seed, game, players)
    final = play(seated, target_score, derive(seed, "deal", game))
    return Played(seated, list(final.scores), final.winner)


def play_games(
    games: int, seed: int, players: int, target_score: int, workers: int
) -> Iterator[Played]:
    """The ladder's games, in order, played by `workers` processes."""
    if workers == 1:
        for game in range(games):
            yield play_game(seed, game, players, target_score)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(
            play_game,
            [seed] * games,
            range(games),
            [players] * games,
            [target_score] * games,
            chunksize=GAMES_A_HAND_OVER,
        )


@dataclass(slots=True)
class Standing:
    """A strategy's rating in the ladder and the games behind it."""

    strategy: str
    skill: rating.Skill = field(default_factory=rating.Skill)
    games: int = 0
    wins: int = 0


class Ladder:
    """The strategies' ratings, kept in memory and moved by each game in turn."""

    def __init__(self, strategies: Sequence[str]) -> None:
        self.standings = {strategy: Standing(strategy) for strategy in strategies}

    def record(self, played: Played) -> None:
        """Rate one finished game, as a rated game of the service is rated
        (`games.ratings.writes.rate`): its seats placed by `rating.places`, each strategy's
        seats rated from its rating before the game and their updates combined."""
        seated = played.seated
        priors = {strategy: self.standings[strategy].skill for strategy in dict.fromkeys(seated)}
        places = rating.places(played.scores, played.winner)
        posteriors = rating.rate([priors[strategy] for strategy in seated], places)
        for strategy, prior in priors.items():
            standing = self.standings[strategy]
            held = [posteriors[seat] for seat, s in enumerate(seated) if s == strategy]
            standing.skill = rating.combine(prior, held)
            standing.games += 1
        self.standings[seated[played.winner]].wins += 1

    def ranked(self) -> list[Standing]:
        """The standings by ordinal, highest first (a tie by mu, then by name)."""
        return sorted(
            self.standings.values(),
            key=lambda s: (-s.skill.ordinal, -s.skill.mu, s.strategy),
        )


@dataclass(frozen=True, slots=True)
class Gap:
    """How far `upper`, expected to be the stronger, stands above `lower`."""

    upper: Standing
    lower: Standing

    @property
    def mu(self) -> float:
        return self.upper.skill.mu - self.lower.skill.mu

    @property
    def sigmas(self) -> float:
        return self.upper.skill.sigma + self.lower.skill.sigma

    @property
    def holds(self) -> bool:
        return self.mu > self.sigmas


def expected_gaps(ladder: Ladder) -> list[Gap]:
    """The gaps between the strategies adjacent in EXPECTED_ORDER; the order holds,
    clearly, when every one of them does."""
    standings = [ladder.standings[strategy] for strategy in EXPECTED_ORDER]
    return [Gap(upper, lower) for upper, lower in pairwise(standings)]


class Command(BaseCommand):
    help = (
        "Rate the bot strategies in games among themselves, in memory (the leaderboard "
        "is not touched), and print their ladder."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
        parser.add_argument(
            "--seed", type=int, default=DEFAULT_SEED, help="the same seed, the same games"
        )
        parser.add_argument(
            "--players",
            type=int,
            default=len(EXPECTED_ORDER),
            help="seats a game, every strategy at least one (default: one each)",
        )
        parser.add_argument(
            "--target-score",
            type=int,
            default=DEFAULT_TARGET_SCORE,
            help="points to win a game (0: one round)",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=os.cpu_count() or 1,
            help="processes playing the games (default: one a core); the ladder does not "
            "depend on it",
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="exit 1 unless expert > greedy > random, each gap in mu above its sigmas",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        games: int = options["games"]
        seed: int = options["seed"]
        players: int = options["players"]
        target_score: int = options["target_score"]
        workers: int = options["workers"]
        if games < 1:
            raise CommandError("--games must be at least 1")
        if workers < 1:
            raise CommandError("--workers must be at least 1")
        if players < len(EXPECTED_ORDER):
            raise CommandError(
                f"--players must be at least {len(EXPECTED_ORDER)}: a seat for every strategy"
            )
        try:
            GameConfig(players, target_score)
        except InvalidConfig as error:
            raise CommandError(str(error)) from None

        ladder = Ladder(EXPECTED_ORDER)
        started = time.perf_counter()
        played = play_games(games, seed, players, target_score, workers)
        for done, game in enumerate(played, start=1):
            ladder.record(game)
            if done % PROGRESS_EVERY == 0 and done < games:
                elapsed = time.perf_counter() - started
                self.stderr.write(f"{done}/{games} games, {elapsed:.1f} s")
        elapsed = time.perf_counter() - started

        rounds = "one round" if target_score == 0 else f"to {target_score} points"
        self.stdout.write(
            f"{games} games of {players} seats ({', '.join(EXPECTED_ORDER)}), {rounds} each, "
            f"seed {seed}"
        )
        self._write_ladder(ladder)
        clear = self._write_gaps(ladder)
        processes = "1 process" if workers == 1 else f"{workers} processes"
        self.stdout.write(
            f"{games} games in {elapsed:.1f} s: {games / elapsed:.2f} games/s ({processes})"
        )
        if options["check"] and not clear:
            raise CommandError(f"the ladder does not show {' > '.join(EXPECTED_ORDER)} clearly")

    def _write_ladder(self, ladder: Ladder) -> None:
        self.stdout.write(
            f"{'rank':>4}  {'strategy':<8}  {'mu':>7}  {'sigma':>6}  {'ordinal':>7}  "
            f"{'games':>5}  {'wins':>5}"
        )
        for rank, standing in enumerate(ladder.ranked(), start=1):
            skill = standing.skill
            self.stdout.write(
                f"{rank:>4}  {standing.strategy:<8}  {skill.mu:>7.3f}  {skill.sigma:>6.3f}  "
                f"{skill.ordinal:>7.3f}  {standing.games:>5}  {standing.wins:>5}"
            )

    def _write_gaps(self, ladder: Ladder) -> bool:
        """Write each expected gap and the verdict; returns whether every gap holds."""
        gaps = expected_gaps(ladder)
        for gap in gaps:
            self.stdout.write(
                f"{gap.upper.strategy} above {gap.lower.strategy}: gap in mu {gap.mu:.3f}, "
                f"sum of sigmas {gap.sigmas:.3f}: {_verdict(gap.holds)}"
            )
        clear = all(gap.holds for gap in gaps)
        self.stdout.write(
            f"{' > '.join(EXPECTED_ORDER)}, each gap above the sum of its sigmas: {_verdict(clear)}"
        )
        return clear


def _verdict(holds: bool) -> str:
    return "holds" if holds else "does not hold"
