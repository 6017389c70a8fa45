"""The benchmark of a request's observation, briefly, on the test database."""

from __future__ import annotations

import pytest

from bench import observability
from tests.factories import Persona


@pytest.mark.django_db
def test_the_request_the_observation_and_a_counter_are_each_timed(host: Persona) -> None:
    medians = observability.measure(host.token, requests=3, repeats=1)
    assert set(medians) == {"request", "observation", "counter"}
    assert all(micros > 0 for micros in medians.values())
    # The request includes an observation of its own: it cannot cost less.
    assert medians["request"] > medians["observation"]
    lines = observability.report(medians).splitlines()
    assert len(lines) == 3
    assert "of the request" in lines[1]
