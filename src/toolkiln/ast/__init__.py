"""The typed AST: frozen nodes with spans (compute: dataclasses; workflows: pydantic models)."""
