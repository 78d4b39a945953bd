"""The base of the compute AST's nodes (ast/compute.py): frozen, slotted, keyword-only
dataclasses that share one equality, hash, repr and refusal to change, and write their own
`__init__`. `@dataclass(frozen=True)` would generate five methods for each class, compiling
their source text as the module loads: 15 ms of every command's start-up (issue 34)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from toolkiln.ast.spans import NO_SPAN, Span

_N = TypeVar("_N", bound=type)
set_field = object.__setattr__  # how a node's __init__ sets a field (Node refuses setattr)

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform

    @dataclass_transform(kw_only_default=True, frozen_default=True)
    def node(cls: _N) -> _N:
        """What a node class is, to the type checker: a frozen, keyword-only dataclass."""
        return cls

else:

    def node(cls):
        """A node class: its fields and slots recorded by `dataclass`, with no generated code."""
        cls.__doc__ = cls.__doc__ or cls.__name__  # (else `dataclass` writes its signature: slow)
        cls = dataclass(slots=True, kw_only=True, init=False, eq=False, repr=False)(cls)
        cls._values = attrgetter(*(field.name for field in fields(cls)))
        return cls


# Keyword-only: a node is made by naming its fields, as a pydantic model was (and `span`, with
# its default, comes first in every node).
@node
class Node:
    span: Span = NO_SPAN

    if TYPE_CHECKING:  # (no annotation at run time: typing.get_type_hints of a node stays its fields')
        _values: ClassVar[Any]  # (set by `node`) the tuple of the node's field values

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(self._values(self) == other._values(other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{field.name}={getattr(self, field.name)!r}" for field in fields(self))
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    # Pickling (the worker processes) sets the fields back as __init__ does.
    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, field.name) for field in fields(self))

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for field, value in zip(fields(self), state, strict=True):
            set_field(self, field.name, value)
