"""The benchmark of the hand-built statements, briefly, on the test database."""

from __future__ import annotations

import pytest

from bench import fastsql


@pytest.mark.django_db
def test_every_statement_is_timed_each_way_and_compared_with_the_helper() -> None:
    titles = []
    for title, ways in fastsql.cases(*fastsql.fixtures()):
        medians = fastsql.compare(ways, calls=3, repeats=1)
        *orm, helper = medians
        assert helper.startswith("fastsql.")
        assert orm
        assert all(micros > 0 for micros in medians.values())
        assert fastsql.report(title, medians).count("x the helper") == len(orm)
        titles.append(title)

    assert titles == [
        "insert 1 event",
        "insert 2 events",
        "update 9 game fields",
        "lock the game row",
        "a game's newest events (6, the start of a 4-player game)",
        "lock the waiting quick-match games of a setting",
        "lock 13 players' rows",
        "update the 10 ratings of a 10-player game",
        "lock the 10 ratings of a 10-player game",
        "a session by its token hash, with its player",
    ]
