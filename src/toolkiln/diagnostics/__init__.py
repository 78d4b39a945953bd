"""Diagnostics: stable codes, the Diagnostic model and its renderers."""

from toolkiln.diagnostics.codes import CODES, Code, lookup_code
from toolkiln.diagnostics.model import Diagnostic, has_errors

__all__ = ["CODES", "Code", "Diagnostic", "has_errors", "lookup_code"]
