"""toolkiln: logic written by LLMs and people, compiled into safe, typed tools."""

from toolkiln.api import check, compile, to_json, to_text
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError, Error, RunError
from toolkiln.interpret.tables import load_table_file
from toolkiln.semantics.limits import Limits
from toolkiln.tool import Tool

__all__ = ["CompileError", "Diagnostic", "Error", "Limits", "PermissionDenied", "Registry", "RunError", "Tool",
           "ToolRecord", "check", "compile", "load_table_file", "to_json", "to_text"]
__version__ = "0.1.0"

# The registry (and filelock with it) loads on first use, so `import toolkiln` stays light.
_REGISTRY_EXPORTS = frozenset({"Registry", "ToolRecord", "PermissionDenied"})


def __getattr__(name: str):
    if name in _REGISTRY_EXPORTS:
        from toolkiln import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'toolkiln' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _REGISTRY_EXPORTS)
