"""The hypothesis profiles (tests/hypothesis_profiles.py): the README's run is quick, CI's
second run thorough, and a test's own example count scales with the profile."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import settings
from hypothesis_profiles import examples, load_profile, profile_named


@contextmanager
def loaded(environ: dict[str, str]) -> Iterator[str]:
    before = settings.get_current_profile_name()
    try:
        yield load_profile(environ)
    finally:
        settings.load_profile(before)


def test_without_a_profile_named_the_run_is_quick():
    assert profile_named({}) == "quick"
    assert profile_named({"HYPOTHESIS_PROFILE": ""}) == "quick"
    assert profile_named({"HYPOTHESIS_PROFILE": "thorough"}) == "thorough"


def test_a_name_that_is_no_profile_is_refused_with_the_names():
    with pytest.raises(ValueError, match="'thourough' is not a profile of this suite: use one of quick, thorough"):
        profile_named({"HYPOTHESIS_PROFILE": "thourough"})


def test_the_quick_profile_runs_a_quarter_of_the_examples_and_at_least_ten():
    with loaded({}) as name:
        assert name == "quick" and settings.default.max_examples == 25
        assert [examples(n) for n in (600, 300, 60, 40, 25, 8)] == [150, 75, 15, 10, 10, 8]


def test_the_thorough_profile_runs_every_example_a_test_asks_for():
    with loaded({"HYPOTHESIS_PROFILE": "thorough"}):
        assert settings.default.max_examples == 100
        assert [examples(n) for n in (600, 300, 60, 8)] == [600, 300, 60, 8]


def test_the_suite_runs_under_the_profile_the_environment_names():
    """tests/conftest.py loaded it before this module was imported (the README's run: quick)."""
    assert settings.get_current_profile_name() == profile_named(dict(os.environ))
