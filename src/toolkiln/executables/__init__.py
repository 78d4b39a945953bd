"""Executable tools: programs in any language, found in tool folders, trusted folder by
folder, described and called through a small protocol, and run in a bubblewrap sandbox.

    from toolkiln.executables import ToolFolders, TrustStore, discover, load_tools, call

See docs/executables.md.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.executables.discovery import (
        Discovery,
        FoundExecutable,
        ToolFolders,
        discover,
        model_name,
        toolkiln_home,
    )
    from toolkiln.executables.errors import ExecutableError
    from toolkiln.executables.policy import SandboxPolicy
    from toolkiln.executables.protocol import ExecutableTool, LoadedTools, call, describe, find_tool, load_tools
    from toolkiln.executables.result import RunResult
    from toolkiln.executables.runner import run_program
    from toolkiln.executables.trust import TrustChange, TrustedFolder, TrustStore

# Each name loads its module on first use: the registry's kinds table imports the definitions
# (program_tools) of script and executable tools, and a `toolkiln tools run` of a compute tool
# then pays for no discovery, trust store (filelock) or sandbox (issue 34).
_EXPORTS = {
    "Discovery": "discovery",
    "FoundExecutable": "discovery",
    "ToolFolders": "discovery",
    "discover": "discovery",
    "model_name": "discovery",
    "toolkiln_home": "discovery",
    "ExecutableError": "errors",
    "SandboxPolicy": "policy",
    "ExecutableTool": "protocol",
    "LoadedTools": "protocol",
    "call": "protocol",
    "describe": "protocol",
    "find_tool": "protocol",
    "load_tools": "protocol",
    "RunResult": "result",
    "run_program": "runner",
    "TrustChange": "trust",
    "TrustedFolder": "trust",
    "TrustStore": "trust",
}

__all__ = [
    "Discovery",
    "ExecutableError",
    "ExecutableTool",
    "FoundExecutable",
    "LoadedTools",
    "RunResult",
    "SandboxPolicy",
    "ToolFolders",
    "TrustChange",
    "TrustStore",
    "TrustedFolder",
    "call",
    "describe",
    "discover",
    "find_tool",
    "load_tools",
    "model_name",
    "run_program",
    "toolkiln_home",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkiln.executables' has no attribute {name!r}")
    value = getattr(import_module(f"toolkiln.executables.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _EXPORTS.keys())
