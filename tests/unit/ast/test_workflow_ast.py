"""The workflow AST's nodes (ast/workflow.py): frozen, slotted, made by naming their fields
(each missing required field and each unknown name refused), equal and hashed by value,
printed with their fields, copied, pickled and replaced, as the pydantic models were."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.spans import NO_SPAN

NODE_TYPES = sorted(
    (cls for cls in vars(w).values() if isinstance(cls, type) and issubclass(cls, w.Node)),
    key=lambda cls: cls.__name__,
)


def required(cls: type) -> dict[str, object]:
    """A distinct value for each field without a default."""
    return {
        f.name: object()
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }


@pytest.mark.parametrize("cls", NODE_TYPES, ids=lambda cls: cls.__name__)
def test_each_node_takes_its_fields_by_name_and_fills_in_the_defaults(cls: type) -> None:
    given = required(cls)
    made = cls(**given)
    for f in dataclasses.fields(cls):
        value = getattr(made, f.name)
        if f.name in given:
            assert value is given[f.name]
        elif f.default_factory is not dataclasses.MISSING:
            assert value == f.default_factory() and value is not getattr(cls(**given), f.name)  # one each
        else:
            assert value == f.default
    assert not hasattr(made, "__dict__")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        cls(**given, colour="red")
    for name in given:
        with pytest.raises(TypeError, match=f"missing the keyword argument '{name}'"):
            cls(**{key: value for key, value in given.items() if key != name})


def test_nodes_are_frozen_equal_by_value_and_survive_copies() -> None:
    step = w.SetStep(name="a", fields=(w.SetField(name="x", value=n.Name(name="b")),), extra={"notes": "n"})
    assert step == w.SetStep(name="a", fields=(w.SetField(name="x", value=n.Name(name="b")),), extra={"notes": "n"})
    assert step != w.SetStep(name="b", fields=step.fields, extra=step.extra) and step != "SetStep"
    wire = w.Wire(source="a", output=1)
    assert hash(wire) == hash(w.Wire(source="a", output=1)) and wire != w.Wire(source="a", input=1)
    with pytest.raises(TypeError):
        hash(step)  # its `extra` is a dict, as a pydantic model's hash refused too
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.name = "b"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(step)) == step and copy.deepcopy(step) == step
    moved = dataclasses.replace(step, name="c")
    assert (moved.name, moved.fields, step.name) == ("c", step.fields, "a")
    assert repr(wire) == f"Wire(span={NO_SPAN!r}, source='a', output=1, input=0)"
