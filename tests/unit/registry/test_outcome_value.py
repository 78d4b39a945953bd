"""An Outcome is a frozen value made from its fields (its __init__ is written by hand, for the
one door's speed): equal and hashed by its fields, copied with `replace`, never changed."""

from dataclasses import FrozenInstanceError, fields, replace

import pytest

from toolkiln.registry.outcome import Outcome


def test_an_outcome_is_a_frozen_value_of_its_fields():
    made = Outcome(False, None, (), 3, "double", call="c1", fixes=("f",))
    assert [getattr(made, f.name) for f in fields(Outcome)] == [False, None, (), 3, "double", "c1", ("f",)]
    assert Outcome(True, 2, (), 1, "double") == Outcome(ok=True, result=2, errors=(), version=1, tool="double")
    assert hash(Outcome(True, 2, (), 1, "double")) == hash(Outcome(True, 2, (), 1, "double"))
    assert Outcome(True, 2, (), 1, "double") != Outcome(True, 2, (), 2, "double")
    assert replace(made, call=None).call is None and made.call == "c1"
    with pytest.raises(FrozenInstanceError):
        made.ok = True  # type: ignore[misc]
    assert (Outcome(True, 2, (), 1, "t").call, Outcome(True, 2, (), 1, "t").fixes) == (None, ())
