"""Front ends: the text DSL (Lark), the JSON DSL, and the spans they record."""
