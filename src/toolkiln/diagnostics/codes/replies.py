"""Model replies and examples (E06xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- model replies and examples -----------------------------------------------------------

NO_TOOL_IN_REPLY = register(
    "E0601",
    "no-tool-in-reply",
    "No tool in the model's reply",
    """
The model's reply holds no tool definition: no JSON object and no text-DSL `tool` or
`workflow` header, in a code fence or in the prose. toolkiln does not guess one from prose.
Answer with the whole definition in one fenced block.

    Sure! I can help with shipping costs.              # error: no definition
    ```json
    {"name": "shipping_cost", "description": "...", "logic": {"steps": [...]}}
    ```                                                # fixed
""",
)

TRUNCATED_REPLY = register(
    "E0602",
    "truncated-reply",
    "The reply stops inside the definition",
    """
The JSON of the reply ends with brackets or a string still open: the model stopped (often at
its token limit) before the end. toolkiln never completes it, since any completion is a guess.
Send the whole definition again, shorter if it was cut.

    {"name": "fee", "logic": {"steps": [{"op": "return", "va      # error: cut off
""",
)

NOT_JSON = register(
    "E0603",
    "not-json",
    "JavaScript or Python where JSON belongs",
    """
The definition uses a value or a syntax that JavaScript or Python accept and JSON does not:
`undefined`, `NaN`, `Infinity`, a single-quoted string holding `"` or an escaped quote,
backtick strings, unquoted keys, functions. Each would change meaning if toolkiln guessed, so
none is repaired. (Comments, trailing commas, fences and prose are removed, and plain
single-quoted strings and `True`/`False`/`None` rewritten as JSON: they cannot change meaning.)

    {"default": undefined, op: "math"}        # error
    {"op": "math"}                            # fixed: leave the field out, quote keys with "
""",
)

SEVERAL_TOOLS_IN_REPLY = register(
    "E0604",
    "several-tools-in-reply",
    "More than one tool in the reply",
    """
The reply holds two or more different definitions (two fenced blocks, say, a first and a
corrected version). toolkiln does not choose one: answer with exactly one definition.
""",
)

REPLY_TOO_LARGE = register(
    "E0605",
    "reply-too-large",
    "The reply is too large to hold a tool",
    """
The reply is longer than a reply holding a tool can be (524,288 characters, twice the 256 KB
a registered tool may have). It is refused before it is searched. Answer with the definition
only, and keep large data in tables.
""",
)

TOO_FEW_EXAMPLES = register(
    "E0606",
    "too-few-examples",
    "Too few examples",
    """
A tool created from a description must come with at least three `examples`: arguments and
the result expected for them. toolkiln runs each before the tool is saved, so the examples
check the behaviour the description asked for, not only the types.

    "examples": [{"args": {"weight_kg": 2}, "expect": 10}]          # error: one example
""",
)

INVALID_EXAMPLE = register(
    "E0610",
    "invalid-example",
    "An example is malformed",
    """
`examples` is a list of objects `{"args": {...}, "expect": value}`: `args` maps parameter
names to JSON values, `expect` is the JSON value the tool must return for them (`null`
included); an optional `now` (ISO 8601 with its offset, `"2026-01-31T09:00:00Z"`) is what
`today()` and `now()` read in that example. Examples belong to compute tools: a workflow has
side effects, so it is not run before it is approved.

    "examples": [{"input": {"x": 1}, "output": 2}]       # error
    "examples": [{"args": {"x": 1}, "expect": 2}]        # fixed
""",
)

EXAMPLE_FAILED = register(
    "E0611",
    "example-failed",
    "An example gives another result",
    """
Run with the example's arguments, the tool returned something other than the example's
`expect`. The message shows the arguments, the expected and the actual value. Numbers are
compared by value (`2.50` equals `2.5`). Fix the logic, or the example if it was wrong.

    "examples": [{"args": {"weight_kg": 2}, "expect": 10}]     # error: the tool returned 9
""",
)

EXAMPLE_RAISED = register(
    "E0612",
    "example-raised",
    "An example's run fails",
    """
Run with the example's arguments, the tool stopped with a run-time error (a division by
zero, a bad argument, a budget exceeded...). The message gives the arguments and the error
with its own code. An example shows what the tool returns; write the logic so that it does.
""",
)
