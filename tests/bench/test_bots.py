"""The bot strength benchmark: which games a run plays."""

from __future__ import annotations

from bench import bots


def test_consecutive_runs_play_the_games_of_one_longer_run():
    whole = bots.run("greedy", "random", 2, 40, 0, 1)
    first_half = bots.run("greedy", "random", 2, 20, 0, 1)
    second_half = bots.run("greedy", "random", 2, 20, 0, 1, first_game=20)

    assert second_half["first_game"] == 20
    assert first_half["games"] + second_half["games"] == whole["games"] == 40
    assert first_half["wins"] + second_half["wins"] == whole["wins"]


def test_a_later_first_game_deals_other_games():
    early = [bots.run("random", "random", 2, 1, 0, 1, first_game=i)["wins"] for i in range(30)]
    late = [bots.run("random", "random", 2, 1, 0, 1, first_game=i)["wins"] for i in range(30, 60)]

    assert early != late
