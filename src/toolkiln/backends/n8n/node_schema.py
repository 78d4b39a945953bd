"""The JSON Schema of one n8n node's parameters (the `{parameters}` block of a `.wf` `node`
step), written from the node catalog (catalog.py) for a type and version: each top-level
parameter the node lists, with the values n8n's description allows, and none it does not
list (the catalog's W0717). Any value may be an n8n expression (`"={{ ... }}"`). Nested
collections are checked only as objects: their options depend on other parameters' values
(`displayOptions`), which a schema per node cannot follow."""

from __future__ import annotations

from typing import Any

from toolkiln.backends.n8n.catalog import Catalog, ParameterSpec

EXPRESSION = {"type": "string", "pattern": "^="}
_SCALARS = {"string": "string", "number": "number", "boolean": "boolean", "dateTime": "string", "color": "string"}


def node_schema(catalog: Catalog, node_type: str, version: str) -> dict[str, Any]:
    """The schema of the parameters of `node_type` at `version` (CatalogError when the
    catalog has neither)."""
    parameters = catalog.parameters(node_type, version)
    by_name: dict[str, list[ParameterSpec]] = {}
    for spec in parameters:
        by_name.setdefault(spec.name, []).append(spec)
    # n8n leaves a parameter at its default out of the workflow it saves: only one without a
    # default, shown whatever else is set, must be there
    required = sorted(name for name, specs in by_name.items() if all(_must_be_given(spec) for spec in specs))
    properties = {name: _any_of([value_schema(spec) for spec in specs]) for name, specs in sorted(by_name.items())}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{node_type} {version} parameters (n8n {catalog.n8n_version})",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _must_be_given(spec: ParameterSpec) -> bool:
    return spec.required and not spec.has_default and not spec.conditional


def value_schema(spec: ParameterSpec) -> dict[str, Any]:
    """What a value of `spec` may be: its own kind of value, or an expression."""
    own = _own(spec)
    return {} if not own else {"anyOf": [own, EXPRESSION]}


def _own(spec: ParameterSpec) -> dict[str, Any]:
    if spec.type in _SCALARS:
        return {"type": _SCALARS[spec.type]}
    if spec.type == "options" and spec.options and not spec.load_options:
        return {"enum": list(spec.options)}
    if spec.type == "multiOptions":
        items = {"enum": list(spec.options)} if spec.options and not spec.load_options else {}
        return {"type": "array", "items": items}
    if spec.type in ("collection", "fixedCollection"):
        return {"type": "object"}
    if spec.type == "resourceLocator":
        return {"type": ["object", "string"]}
    return {}  # json, resourceMapper, filter, ...: values n8n shapes itself


def _any_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    unique = [s for i, s in enumerate(schemas) if s not in schemas[:i]]
    if any(not s for s in unique):
        return {}
    return unique[0] if len(unique) == 1 else {"anyOf": unique}
