"""`manage.py bot_ladder`: the bot strategies rated against each other, in memory."""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from games.management.commands import bot_ladder
from games.management.commands.bot_ladder import EXPECTED_ORDER, Ladder, Played, seating
from games.models import Game
from players import rating
from players.models import Rating

pytestmark = pytest.mark.django_db

GAP_LINE = re.compile(
    r"^(\w+) above (\w+): gap in mu (-?[\d.]+), sum of sigmas ([\d.]+): (holds|does not hold)$"
)


# One-round games in this process, unless a test says otherwise: whole games take
# seconds each.
QUICK = {"--target-score": "0", "--workers": "1"}


def run_ladder(*options: str) -> list[str]:
    quick = [part for name, value in QUICK.items() if name not in options for part in (name, value)]
    out = io.StringIO()
    call_command("bot_ladder", *quick, *options, stdout=out, stderr=io.StringIO())
    return out.getvalue().splitlines()


def ladder_rows(lines: list[str]) -> list[list[str]]:
    """The ladder's rows (rank, strategy, mu, sigma, ordinal, games, wins), after the
    title and the column names."""
    return [line.split() for line in lines[2:5]]


def test_the_ladder_ranks_every_strategy_and_prints_the_gaps(django_assert_num_queries):
    with django_assert_num_queries(0):
        lines = run_ladder("--games", "30", "--seed", "3")

    assert lines[0] == "30 games of 3 seats (expert, greedy, random), one round each, seed 3"
    rows = ladder_rows(lines)
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert sorted(row[1] for row in rows) == sorted(EXPECTED_ORDER)
    for _, _, mu, sigma, ordinal, games, _ in rows:
        assert float(ordinal) == pytest.approx(float(mu) - 3 * float(sigma), abs=0.002)
        assert games == "30"  # every strategy sits at every game
    ordinals = [float(row[4]) for row in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    assert sum(int(row[6]) for row in rows) == 30  # one winner a game

    mus = {row[1]: float(row[2]) for row in rows}
    sigmas = {row[1]: float(row[3]) for row in rows}
    gaps = [GAP_LINE.fullmatch(line) for line in lines[5:7]]
    assert all(gaps)
    found = [gap.groups() for gap in gaps if gap is not None]
    assert [(upper, lower) for upper, lower, *_ in found] == [
        ("expert", "greedy"),
        ("greedy", "random"),
    ]
    for upper, lower, mu_gap, sigma_sum, verdict in found:
        assert float(mu_gap) == pytest.approx(mus[upper] - mus[lower], abs=0.002)
        assert float(sigma_sum) == pytest.approx(sigmas[upper] + sigmas[lower], abs=0.002)
        assert verdict == ("holds" if float(mu_gap) > float(sigma_sum) else "does not hold")
    assert lines[7].startswith("expert > greedy > random, each gap above the sum of its sigmas: ")
    assert re.fullmatch(r"30 games in [\d.]+ s: [\d.]+ games/s \(1 process\)", lines[8])

    # The players' leaderboard is not touched, and no game is stored.
    assert not Rating.objects.exists()
    assert not Game.objects.exists()


def test_the_same_seed_prints_the_same_ladder_whatever_the_number_of_workers():
    alone = run_ladder("--games", "10", "--seed", "5")
    shared = run_ladder("--games", "10", "--seed", "5", "--workers", "2")
    other_seed = run_ladder("--games", "10", "--seed", "6")

    # All but the last line, the time taken.
    assert alone[:-1] == shared[:-1]
    assert shared[-1].endswith("(2 processes)")
    assert ladder_rows(other_seed) != ladder_rows(alone)


def test_check_fails_while_too_few_games_leave_the_sigmas_wide():
    # Three games leave every sigma near its prior (25/3): two add up to about 15,
    # more than three games can move two mus apart (three wins out of three: 11.5).
    lines = run_ladder("--games", "3")
    assert lines[7].endswith("does not hold")

    with pytest.raises(CommandError, match="does not show expert > greedy > random clearly"):
        run_ladder("--games", "3", "--check")


def test_check_passes_when_the_games_rank_expert_above_greedy_above_random(monkeypatch):
    def expert_wins_and_greedy_outscores_random(
        seed: int, game: int, players: int, target_score: int
    ) -> Played:
        seated = seating(EXPECTED_ORDER, seed, game, players)
        points = {"expert": 500, "greedy": 200, "random": 0}
        return Played(seated, [points[s] for s in seated], seated.index("expert"))

    monkeypatch.setattr(bot_ladder, "play_game", expert_wins_and_greedy_outscores_random)

    lines = run_ladder("--games", "40", "--target-score", "500", "--check")

    assert [row[1] for row in ladder_rows(lines)] == list(EXPECTED_ORDER)
    assert lines[7].endswith(": holds")


def test_every_game_seats_every_strategy_round_robin_in_an_order_of_its_own():
    five_seats = [seating(EXPECTED_ORDER, 1, game, 5) for game in range(30)]

    for seated in five_seats:
        held = Counter(seated)
        assert set(held) == set(EXPECTED_ORDER)
        assert sorted(held.values()) == [1, 2, 2]
        assert seated[3:] == seated[:2]
    assert {seated[0] for seated in five_seats} == set(EXPECTED_ORDER)
    assert seating(EXPECTED_ORDER, 1, 7, 5) == five_seats[7]


def test_a_strategy_holding_two_seats_is_rated_once_with_their_updates_combined():
    ladder = Ladder(EXPECTED_ORDER)
    seated = ["expert", "greedy", "random", "expert"]

    ladder.record(Played(seated, [120, 0, 40, 80], winner=0))

    posteriors = rating.rate([rating.Skill()] * 4, [1, 4, 3, 2])
    expert = ladder.standings["expert"]
    assert expert.skill == rating.combine(rating.Skill(), [posteriors[0], posteriors[3]])
    assert (expert.games, expert.wins) == (1, 1)
    assert ladder.standings["random"].skill == posteriors[2]
    assert (ladder.standings["greedy"].games, ladder.standings["greedy"].wins) == (1, 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--players", "2"], "--players must be at least 3"),
        (["--players", "11"], "2 to 10 players"),
        (["--games", "0"], "--games must be at least 1"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--target-score", "-1"], "target_score must be 0 to"),
    ],
)
def test_the_ladder_refuses_options_it_cannot_play(options, message):
    with pytest.raises(CommandError, match=message):
        run_ladder(*options)
