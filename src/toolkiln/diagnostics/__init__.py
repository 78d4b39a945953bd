"""Diagnostics: stable codes, the Diagnostic model and its renderers."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from toolkiln.diagnostics.codes import CODES, Code, lookup_code

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic, has_errors

__all__ = ["CODES", "Code", "Diagnostic", "has_errors", "lookup_code"]


def __getattr__(name: str) -> Any:
    """`Diagnostic` and `has_errors` load the model on first use: a module that
    needs only the codes (`from toolkiln.diagnostics import codes`) does not pay for them."""
    if name not in ("Diagnostic", "has_errors"):
        raise AttributeError(f"module 'toolkiln.diagnostics' has no attribute {name!r}")
    value = getattr(import_module("toolkiln.diagnostics.model"), name)
    globals()[name] = value
    return value
