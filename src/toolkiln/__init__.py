"""toolkiln: logic written by LLMs and people, compiled into safe, typed tools."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from toolkiln.errors import CompileError, Error, RunError
from toolkiln.version import __version__

if TYPE_CHECKING:
    from typing import Any  # for annotations only: dir(toolkiln) lists every global

    from toolkiln.api import apply_fixes, check, compile, export_jsonlogic, import_jsonlogic, to_json, to_text
    from toolkiln.diagnostics.model import Diagnostic
    from toolkiln.io.tables import load_table_file
    from toolkiln.registry import PermissionDenied, Registry, ToolRecord
    from toolkiln.semantics.limits import Limits
    from toolkiln.semantics.values import dumps, to_jsonable
    from toolkiln.tool import Tool
    from toolkiln.workflow import check_workflow, compile_workflow, import_n8n


# Every other public name loads its module on first use, so that `import toolkiln` stays
# light: the compiler (and Lark for the text DSL) loads on the first
# `toolkiln.compile`, the registry (and filelock) on the first `toolkiln.Registry`.
_EXPORTS = {
    "apply_fixes": "toolkiln.api",
    "check": "toolkiln.api",
    "compile": "toolkiln.api",
    "import_jsonlogic": "toolkiln.api",
    "export_jsonlogic": "toolkiln.api",
    "to_json": "toolkiln.api",
    "to_text": "toolkiln.api",
    "Diagnostic": "toolkiln.diagnostics.model",
    "load_table_file": "toolkiln.io.tables",
    "Limits": "toolkiln.semantics.limits",
    "to_jsonable": "toolkiln.semantics.values",
    "dumps": "toolkiln.semantics.values",
    "Tool": "toolkiln.tool",
    "PermissionDenied": "toolkiln.registry",
    "Registry": "toolkiln.registry",
    "ToolRecord": "toolkiln.registry",
    "compile_workflow": "toolkiln.workflow",
    "check_workflow": "toolkiln.workflow",
    "import_n8n": "toolkiln.workflow",
}
__all__ = [
    "CompileError",
    "Diagnostic",
    "Error",
    "Limits",
    "PermissionDenied",
    "Registry",
    "RunError",
    "Tool",
    "ToolRecord",
    "apply_fixes",
    "check",
    "check_workflow",
    "compile",
    "compile_workflow",
    "dumps",
    "export_jsonlogic",
    "import_jsonlogic",
    "import_n8n",
    "load_table_file",
    "to_json",
    "to_jsonable",
    "to_text",
    "__version__",
]


# The subpackage toolkiln.check shares its name with the function toolkiln.check. Loading a
# subpackage sets the parent's attribute of that name, so it is loaded now (it is light) and
# the attribute dropped: loading it later can no longer hide the function.
import_module("toolkiln.check")
del check


def __getattr__(name: str) -> Any:
    if name == "templates":  # the subpackage; importing it binds `toolkiln.templates`
        return import_module("toolkiln.templates")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkiln' has no attribute {name!r}")
    loaded = import_module(module)
    for export, home in _EXPORTS.items():  # bind them all: importing `module` may have
        if home == module:  # bound a subpackage of the same name meanwhile
            globals()[export] = getattr(loaded, export)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | _EXPORTS.keys())
