"""toolkiln: logic written by LLMs and people, compiled into safe, typed tools."""

from toolkiln.api import check, compile, to_json, to_text
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError, Error, RunError
from toolkiln.interpret.tables import load_table_file
from toolkiln.semantics.limits import Limits
from toolkiln.tool import Tool

__all__ = ["CompileError", "Diagnostic", "Error", "Limits", "RunError", "Tool", "check", "compile",
           "load_table_file", "to_json", "to_text"]
__version__ = "0.1.0"
