"""The interpreter: checked AST -> closures, run with limits. Source text is never run as code."""

from toolkiln.interpret.program import CompiledProgram

__all__ = ["CompiledProgram"]
