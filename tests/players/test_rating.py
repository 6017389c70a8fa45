"""The rating model's pure functions: places from final scores, and what a game does
to the ratings of its seats."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from players import rating

scores_and_winner = st.lists(st.integers(0, 600), min_size=2, max_size=10).flatmap(
    lambda scores: st.tuples(st.just(scores), st.integers(0, len(scores) - 1))
)
skills = st.builds(rating.Skill, st.floats(0, 50), st.floats(0.5, 9))


@given(scores_and_winner)
def test_a_place_is_one_more_than_the_seats_that_finished_strictly_ahead(found):
    scores, winner = found
    places = rating.places(scores, winner)
    assert places[winner] == 1
    for seat, place in enumerate(places):
        if seat != winner:
            ahead = [s for s in range(len(scores)) if s == winner or scores[s] > scores[seat]]
            assert place == 1 + len(ahead)


@given(st.lists(skills, min_size=2, max_size=10))
def test_the_winner_gains_the_last_loses_and_uncertainty_grows_by_tau_at_most(priors):
    places = list(range(1, len(priors) + 1))
    after = rating.rate(priors, places)
    assert after[0].mu > priors[0].mu
    assert after[-1].mu < priors[-1].mu
    for a, p in zip(after, priors, strict=True):
        assert a.sigma <= math.hypot(p.sigma, rating.TAU) + 1e-12


def test_several_seats_of_one_bot_add_up_their_shifts():
    prior = rating.Skill(20.0, 5.0)
    first, second = rating.Skill(22.0, 4.0), rating.Skill(19.0, 4.5)
    both = rating.combine(prior, [first, second])
    assert both.mu == 21.0
    assert both.sigma == 5.0 * 0.8 * 0.9
    assert rating.combine(prior, [first]) == first
    assert rating.combine(prior, []) == prior


forfeits = scores_and_winner.flatmap(
    lambda found: st.tuples(
        st.just(found[0]),
        st.just(found[1]),
        st.lists(st.booleans(), min_size=len(found[0]), max_size=len(found[0])),
    )
)


@given(forfeits)
def test_seats_that_forfeited_share_the_last_place_and_the_others_keep_their_order(found):
    scores, winner, gone = found
    places = rating.places(scores, winner, gone)
    stayed = [s for s in range(len(scores)) if not gone[s]]
    left = [s for s in range(len(scores)) if gone[s]]
    # Every seat that forfeited places behind every seat that did not, all together.
    assert {places[s] for s in left} <= {len(stayed) + 1}
    assert all(places[s] <= len(stayed) for s in stayed)
    # The others place among themselves as the final scores say, the winner first
    # unless the winning seat forfeited.
    for seat in stayed:
        ahead = [
            s
            for s in stayed
            if s != seat and ((s == winner) or (seat != winner and scores[s] > scores[seat]))
        ]
        assert places[seat] == 1 + len(ahead)


@given(scores_and_winner)
def test_without_a_forfeit_the_places_are_those_of_the_scores(found):
    scores, winner = found
    assert rating.places(scores, winner, [False] * len(scores)) == rating.places(scores, winner)


def test_a_team_win_moves_both_partners_up_and_both_opponents_down():
    from players.rating import Skill, rate_teams

    priors = [Skill(), Skill(27.0, 6.0), Skill(), Skill(23.0, 7.0)]
    after = rate_teams(priors, [[0, 2], [1, 3]], [1, 2])
    assert after[0].mu > priors[0].mu
    assert after[2].mu > priors[2].mu
    assert after[1].mu < priors[1].mu
    assert after[3].mu < priors[3].mu
    # Partners with the same rating before move alike: the team is rated, not the seat.
    assert after[0] == after[2]
    assert all(a.sigma < p.sigma for a, p in zip(after, priors, strict=True))
