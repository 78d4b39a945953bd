"""Likely mistakes in logic that checks, mostly what models carry over from other
languages (W0120-W0139)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

PARAMETER_TYPO = register(
    "W0120",
    "parameter-typo",
    "Inferred parameter looks like a misspelt variable",
    """
In bare logic (and in a JSON definition without `parameters`) every name the logic reads
but never assigns becomes a parameter. A name within two edits of a variable the logic does
assign is most likely a typo of it, which would silently ask the caller for a new argument.
The diagnostic's `fix` renames the read to the variable.

    base_cost = price * qty
    return base_cst * 2          # warning: did you mean `base_cost`?
""",
)

TEMPLATE_BRACES = register(
    "W0121",
    "template-braces",
    "Braces of another language in a template",
    """
A `format` template fills `{{name}}` holes only. `${name}` (JavaScript) and `{name}` (Python)
are kept as literal text, so the message would show the braces instead of the value. The
warning is given when `name` is a variable or parameter; its `fix` writes `{{name}}`. In a
plain string, which is never a template, the hint is to use a `format` step.

    message = format "Hello ${name}"      # warning: write {{name}}
    message = format "Hello {{name}}"     # fixed
""",
)

LENGTH_FIELD = register(
    "W0122",
    "length-field",
    "`.length` reads a field",
    """
`x.length` (JavaScript) and `x.size` read a field named `length` or `size` of an object;
they do not measure a text or a list. The length is `len(x)`, which the `fix` writes. On a
value known to be a text or a list the same mistake is error E0304, with the same fix.

    return items.length          # warning: use len(items)
    return len(items)            # fixed
""",
)

FOREIGN_LITERAL = register(
    "W0123",
    "foreign-literal",
    "`None`, `True` or `undefined` read as a name",
    """
toolkiln's literals are `null`, `true` and `false`. `None`, `True`, `False` (Python),
`undefined` and `nil` are names to it, so in bare logic they silently become parameters the
caller must pass. The `fix` writes the literal.

    return x == None            # warning: write null
    return x == null            # fixed
""",
)
