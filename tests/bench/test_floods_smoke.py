"""The floods benchmark, briefly, against the server command on the test database."""

from __future__ import annotations

import pytest

from bench import floods
from tests.served import serving

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_floods_are_refused_and_the_players_latency_is_compared_with_its_baseline(
    tmp_path,
):
    # Lower than a deployment's, so that a second's flood goes past them.
    limits = {"THROTTLE_RATE_HEALTH": "100/min", "THROTTLE_RATE_ANONYMOUS": "20/min"}
    with serving(tmp_path, limits, workers=1, threads=3) as api:
        result = floods.run(api.url, seconds=1.0, flooders=4, rate=200)
    assert result["baseline"]["requests"] > 0
    for name in floods.FLOODS:
        row = result[name]
        assert row["requests"] > 0
        assert row["p50_vs_baseline"] > 0
        # One address past its limit: the flood is refused, the player is not.
        assert row["flooders_got"].get("429", 0) > 0
    assert len(floods.report(result).splitlines()) == 1 + len(floods.FLOODS)
