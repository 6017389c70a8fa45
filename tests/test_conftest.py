"""The shared test configuration in tests/conftest.py."""

import os

from hypothesis import settings


def test_the_hypothesis_profile_follows_the_environment():
    expected = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    current, profile = settings(), settings.get_profile(expected)
    assert (current.max_examples, current.deadline) == (profile.max_examples, profile.deadline)
    if expected == "ci":
        assert current.max_examples == 500
        assert current.deadline is None
    elif expected == "dev":
        assert current.max_examples == 100
