"""Making nodes from values that are already known to be valid, without validating them again.

The parsers build every field of a node from something they have just matched (a token, a
node they built, a span they computed), so pydantic's validation only repeats their work,
at about 2 us a node: more than the rest of parsing. `model_construct` is pydantic's way to
skip it, but its generic loop over aliases and defaults costs more than validating. This
does what `model_construct` does, for models without aliases, validators or private state
(ours), with two dict operations. Input from outside (dicts, JSON) is still validated.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar, cast

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)
F = TypeVar("F", bound=Callable[..., Any])

# BaseModel's own slot descriptors, called directly: a third cheaper than `object.__setattr__`,
# which looks each one up again on the node's type.
_SLOTS = vars(BaseModel)
set_dict = _SLOTS["__dict__"].__set__
set_fields_set = _SLOTS["__pydantic_fields_set__"].__set__
set_extra = _SLOTS["__pydantic_extra__"].__set__
set_private = _SLOTS["__pydantic_private__"].__set__
_new = object.__new__


def _cached(function: F) -> F:
    """`functools.cache`, keeping the function's signature for type checkers (cache's own
    typing drops its type variables: every node would come out as Any)."""
    return cast(F, cache(function))


@_cached
def unvalidated(model: type[M]) -> Callable[..., M]:
    """A constructor `build(**fields)` for `model` that trusts its arguments: every required
    field must be given, with a value of the right type (tests compare its nodes with
    validated ones)."""
    fields = model.model_fields
    assert all(f.alias is None and f.validation_alias is None and f.default_factory is None for f in fields.values()), (
        model
    )
    # Field order, with the defaults in place; required fields are overwritten by `values`.
    template = {name: field.default for name, field in fields.items()}
    required = frozenset(name for name, value in template.items() if value is PydanticUndefined)

    def build(**values: Any) -> M:
        assert required <= values.keys(), (model, required - values.keys())
        return instance(model, template | values, set(values))

    return build


def instance(model: type[M], fields: dict[str, Any], given: set[str]) -> M:
    """A `model` with `fields` (every field, in declaration order), `given` the names that
    were not left to their defaults: what `model_construct` makes, and what `build` does."""
    node = _new(model)
    set_dict(node, fields)
    set_fields_set(node, given)
    set_extra(node, None)
    set_private(node, None)
    return node
