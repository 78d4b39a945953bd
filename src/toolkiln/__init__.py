"""toolkiln: logic written by LLMs and people, compiled into safe, typed tools."""

from toolkiln.api import check, compile, to_json, to_text
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError, Error, RunError
from toolkiln.interpret.tables import load_table_file
from toolkiln.semantics.limits import Limits
from toolkiln.tool import Tool

__all__ = ["CompileError", "Diagnostic", "Error", "Limits", "PermissionDenied", "Registry", "RunError", "Tool",
           "ToolRecord", "check", "check_workflow", "compile", "compile_workflow", "load_table_file", "to_json",
           "to_text"]
__version__ = "0.1.0"

# The registry (and filelock with it) and the workflow compiler (and networkx with it) load on
# first use, so `import toolkiln` stays light. Name -> the module that defines it.
_LAZY_EXPORTS = {"Registry": "toolkiln.registry", "ToolRecord": "toolkiln.registry",
                 "PermissionDenied": "toolkiln.registry", "compile_workflow": "toolkiln.workflow",
                 "check_workflow": "toolkiln.workflow"}


def __getattr__(name: str):
    module = _LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkiln' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_EXPORTS))
