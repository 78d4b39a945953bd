"""The typed AST: frozen pydantic nodes with spans."""
