"""Records (ast/records.py) write their own `__init__` and share equality, hash and repr, so
that loading them compiles no code (issue 34). Each must behave as the `@dataclass` it was:
the same constructor, the same equality, hash, repr, frozenness and pickling."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from typing import Any

import pytest

from toolkiln.ast import records

MODULES = (
    "toolkiln.ast.spans",
    "toolkiln.ast.types",
    "toolkiln.backends.n8n.document",
    "toolkiln.check.checker",
    "toolkiln.check.flow",
    "toolkiln.diagnostics.codes.base",
    "toolkiln.diagnostics.model",
    "toolkiln.diagnostics.source",
    "toolkiln.interpret.plan",
    "toolkiln.interpret.runner",
    "toolkiln.registry.kinds.base",
    "toolkiln.registry.kinds.compute",
    "toolkiln.registry.kinds.programs",
    "toolkiln.registry.kinds.workflow",
    "toolkiln.semantics.builtin_registry",
    "toolkiln.semantics.date_patterns",
    "toolkiln.semantics.limits",
    "toolkiln.semantics.numbers",
    "toolkiln.syntax.foreign_base",
    "toolkiln.syntax.loader",
    "toolkiln.syntax.templates",
)


def _records() -> list[type]:
    found = []
    for name in MODULES:
        module = importlib.import_module(name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and value.__module__ == name and "_compared" in vars(value)
        ]
    return found


RECORDS = _records()
# Values a class checks (a Limits is validated, a LineIndex reads its text): the others take
# a distinct object per field.
VALID = {
    "Limits": {
        "max_operations": 7,
        "max_string_length": 8,
        "max_list_length": 9,
        "max_number_digits": 10,
        "max_seconds": 0.5,
    },
    "LineIndex": {"text": "a\nb"},
}


def _values(cls: type) -> dict[str, Any]:
    if cls.__name__ in VALID:
        return dict(VALID[cls.__name__])
    return {field.name: f"{field.name}-value" for field in dataclasses.fields(cls) if field.init}


def _frozen(cls: type) -> bool:
    return cls.__setattr__ is not object.__setattr__


def _twin(cls: type) -> type:
    """The class as `@dataclass` would make it: the same fields and options, its methods generated."""
    specs = [(f.name, f.type, dataclasses.field(**_field_options(f))) for f in dataclasses.fields(cls)]
    fields = dataclasses.fields(cls)

    def post_init(self: Any) -> None:  # the fields __init__ does not take: as the record computes them
        made = cls(**{f.name: getattr(self, f.name) for f in fields if f.init})
        for f in fields:
            if not f.init:
                object.__setattr__(self, f.name, getattr(made, f.name))

    twin = dataclasses.make_dataclass(cls.__name__, specs, frozen=_frozen(cls), namespace={"__post_init__": post_init})
    twin.__qualname__ = cls.__qualname__
    return twin


def _field_options(field: dataclasses.Field[Any]) -> dict[str, Any]:
    options: dict[str, Any] = {
        "init": field.init,
        "repr": field.repr,
        "compare": field.compare,
        "hash": field.hash,
        "kw_only": field.kw_only,
    }
    if field.default is not dataclasses.MISSING:
        options["default"] = field.default
    if field.default_factory is not dataclasses.MISSING:
        options["default_factory"] = field.default_factory
    return options


def test_the_records_are_found() -> None:
    names = {cls.__name__ for cls in RECORDS}
    assert {"Span", "Type", "Diagnostic", "Limits", "RunPlan", "Source", "FlowState", "N8nInput", "Compiled"} <= names
    assert len(RECORDS) == 33  # (27, and the registry's Compiled of each kind, RunContext, CompileOptions)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__qualname__)
def test_each_record_init_takes_its_fields_as_the_dataclass_did(cls: type) -> None:
    """Same parameters, kinds and defaults as the generated __init__ (a field with a default
    factory defaults to None: a new value each time), and each field set."""
    expected = [
        (
            f.name,
            inspect.Parameter.KEYWORD_ONLY if f.kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD,
            None if f.default_factory is not dataclasses.MISSING else f.default,
        )
        for f in sorted((f for f in dataclasses.fields(cls) if f.init), key=lambda f: bool(f.kw_only))
    ]
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [
        (p.name, p.kind, dataclasses.MISSING if p.default is inspect.Parameter.empty else p.default) for p in parameters
    ] == expected
    values = _values(cls)
    made = cls(**values)
    assert all(getattr(made, name) == value for name, value in values.items())
    twin = _twin(cls)(**values)
    assert all(getattr(made, f.name) == getattr(twin, f.name) for f in dataclasses.fields(cls))
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:  # a fresh value, not one shared
            assert getattr(cls(**{**values, f.name: None}), f.name) is not getattr(made, f.name)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__qualname__)
def test_each_record_compares_hashes_and_prints_as_its_dataclass_twin(cls: type) -> None:
    values = _values(cls)
    made, same, twin = cls(**values), cls(**values), _twin(cls)(**values)
    assert repr(made) == repr(twin)
    assert made == same and made != twin and made != "x"
    compared = [f for f in dataclasses.fields(cls) if f.init and f.compare and cls.__name__ not in VALID]
    for f in compared:  # each compared field takes part; the others do not
        assert made != dataclasses.replace(made, **{f.name: "other"})
    if _frozen(cls):
        assert hash(made) == hash(same)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, dataclasses.fields(cls)[0].name, "changed")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(made, dataclasses.fields(cls)[0].name)
    else:
        with pytest.raises(TypeError):
            hash(made)


@pytest.mark.parametrize("cls", [cls for cls in RECORDS if "__slots__" in vars(cls)], ids=lambda c: c.__qualname__)
def test_slotted_records_survive_pickling_and_copying(cls: type) -> None:
    made = cls(**_values(cls))
    assert pickle.loads(pickle.dumps(made)) == made
    assert copy.deepcopy(made) == made and copy.copy(made) == made


def test_a_record_is_still_a_dataclass_and_its_docstring_is_its_own() -> None:
    from toolkiln.ast.spans import Span
    from toolkiln.ast.types import Type
    from toolkiln.semantics.limits import Limits

    assert dataclasses.is_dataclass(Span) and dataclasses.replace(Span(line=2), column=3) == Span(line=2, column=3)
    assert dataclasses.asdict(Limits(max_seconds=2.0))["max_seconds"] == 2.0
    assert Type.__match_args__ == ("name", "items", "nullable", "fields") and Span.__match_args__ == ()
    assert records.record(frozen=True)(type("Plain", (), {"__annotations__": {}})).__doc__ == "Plain"
