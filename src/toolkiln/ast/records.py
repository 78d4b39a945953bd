"""Records: the small classes of named fields that every command loads (a span, a type, a
diagnostic, the limits, the checker's and the interpreter's tables). `@dataclass` compiles the
source text of an `__init__`, `__eq__`, `__hash__`, `__repr__` and, when frozen, `__setattr__`
and `__delattr__` for each class while its module loads: 27 classes, about 77 M instructions of
a `toolkiln run` (issue 34). A record is still a dataclass (`fields`, `replace`, `asdict` and the
type checker's view through `dataclass_transform` are unchanged), made with nothing generated:
it writes its own `__init__` (a test compares it with the fields) and `record` adds shared
equality, hash, repr, the refusal to change a frozen one, and pickling of a slotted one, each
over the fields as `@dataclass` would."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

_R = TypeVar("_R", bound=type)
set_field = object.__setattr__  # how a frozen record's __init__ sets a field

if TYPE_CHECKING:
    from collections.abc import Callable

    from typing_extensions import dataclass_transform

    @dataclass_transform(frozen_default=True)
    def record(*, frozen: bool = True, slots: bool = False, kw_only: bool = False) -> Callable[[_R], _R]:
        """What a record class is, to the type checker: a dataclass, frozen unless told."""
        return lambda cls: cls

else:

    def record(*, frozen=True, slots=False, kw_only=False):
        """A record class: its fields recorded by `dataclass`, its methods shared (see above)."""

        def make(cls):
            cls.__doc__ = cls.__doc__ or cls.__name__  # (else `dataclass` writes its signature: slow)
            for name, method in _methods(frozen).items():
                if not _written(cls, name):
                    setattr(cls, name, method)
            cls = dataclass(slots=slots, kw_only=kw_only, init=False, eq=False, repr=False)(cls)
            compared = [field.name for field in fields(cls) if field.compare]
            hashed = [field.name for field in fields(cls) if field.compare if field.hash is not False]
            cls._compared = attrgetter(*compared) if compared else _nothing
            cls._hashed = attrgetter(*hashed) if hashed else _nothing
            cls._shown = tuple(field.name for field in fields(cls) if field.repr)
            if slots and frozen:
                cls.__getstate__, cls.__setstate__ = _getstate, _setstate
            return cls

        return make


def _written(cls: type, name: str) -> bool:
    """Whether the class wrote the method itself (a class that writes `__eq__` alone gets
    `__hash__ = None` from Python, not from its author: the record's hash is added, as
    `@dataclass` does)."""
    if name == "__hash__" and cls.__dict__.get("__hash__", 0) is None and "__eq__" in cls.__dict__:
        return False
    return name in cls.__dict__


def _nothing(_record: object) -> tuple[()]:
    return ()


def _eq(self: Any, other: Any) -> object:  # a bool, or NotImplemented
    if other.__class__ is self.__class__:
        values = self._compared
        return values(self) == values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._hashed(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
    return f"{type(self).__qualname__}({shown})"


def _refuse_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _methods(frozen: bool) -> dict[str, Any]:
    """As `@dataclass(eq=True)`: equal by the compared fields; a frozen record hashes them, a
    mutable one is unhashable."""
    if frozen:
        return {
            "__eq__": _eq,
            "__hash__": _hash,
            "__repr__": _repr,
            "__setattr__": _refuse_setattr,
            "__delattr__": _refuse_delattr,
        }
    return {"__eq__": _eq, "__hash__": None, "__repr__": _repr}


# A frozen, slotted record is pickled (the worker processes) by its fields, set back as
# __init__ sets them.
def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, field.name) for field in fields(self))


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for field, value in zip(fields(self), state, strict=True):
        set_field(self, field.name, value)
