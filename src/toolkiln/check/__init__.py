"""Static checking: names, flow and types. Returns diagnostics, never raises."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.check.checker import (
        CheckResult,
        ParamInfo,
        ToolSignature,
        check_program,
    )

__all__ = ["CheckResult", "ParamInfo", "ToolSignature", "check_program"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: `import toolkiln` imports this package early (see toolkiln/__init__.py).
    if name in __all__:
        return getattr(import_module("toolkiln.check.checker"), name)
    raise AttributeError(f"module 'toolkiln.check' has no attribute {name!r}")
