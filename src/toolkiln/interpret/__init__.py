"""The interpreter: checked AST -> closures, run with limits. No eval, exec or compile()."""

from toolkiln.interpret.program import CompiledProgram

__all__ = ["CompiledProgram"]
