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
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)


@cache
def unvalidated(model: type[M]) -> Callable[..., M]:
    """A constructor `build(**fields)` for `model` that trusts its arguments: every required
    field must be given, with a value of the right type (tests compare its nodes with
    validated ones)."""
    fields = model.model_fields
    assert all(f.alias is None and f.validation_alias is None and f.default_factory is None
               for f in fields.values()), model
    # Field order, with the defaults in place; required fields are overwritten by `values`.
    template = {name: field.default for name, field in fields.items()}
    required = frozenset(name for name, value in template.items() if value is PydanticUndefined)
    new, set_attribute = object.__new__, object.__setattr__

    def build(**values: Any) -> M:
        assert required <= values.keys(), (model, required - values.keys())
        node = new(model)
        set_attribute(node, "__dict__", template | values)
        set_attribute(node, "__pydantic_fields_set__", set(values))
        set_attribute(node, "__pydantic_extra__", None)
        set_attribute(node, "__pydantic_private__", None)
        return node

    return build
