"""Executable tools: programs in any language, found in tool folders, trusted folder by
folder, described and called through a small protocol, and run in a bubblewrap sandbox.

    from toolkiln.executables import ToolFolders, TrustStore, discover, load_tools, call

See docs/executables.md.
"""

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
