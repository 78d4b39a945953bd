"""What stops a run: arithmetic, conversions, budgets and the values a run reads (E05xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- run time -----------------------------------------------------------------------------

DIVISION_BY_ZERO = register(
    "E0501",
    "division-by-zero",
    "Division by zero",
    """
The right side of `/` or `%` was zero at run time. Guard it:

    avg_price = total / count if count != 0 else 0
""",
)

KEY_NOT_FOUND = register(
    "E0502",
    "key-not-found",
    "Lookup key not found",
    """
A lookup's key is not in its table and the lookup has no `default`. Add a default:

    rate = lookup rates[zone] default 0
""",
)

OPERATION_BUDGET = register(
    "E0503",
    "operation-budget",
    "Operation budget exceeded",
    """
The run needed more operations than its budget (`max_operations`, 1,000,000 by default).
Comprehensions over large lists are the usual cause. Raise the limit per call if it is
legitimate: `tool.run(args, limits=Limits(max_operations=...))`.
""",
)

STRING_TOO_LONG = register(
    "E0504",
    "string-too-long",
    "String too long",
    """
A string built at run time (by `+`, `format`, `replace`, `join`, `upper`, `text`, ...) exceeds
`max_string_length` (100,000 characters by default). A string argument that is too long is
refused before the run as E0508.
""",
)

LIST_TOO_LONG = register(
    "E0505",
    "list-too-long",
    "List too long",
    """
A list read from a lookup table, or made by `range`, `split` or `flatten`, would exceed
`max_list_length` (100,000 items by default); it is refused before it is made. A list
argument that is too long is refused before the run as E0508.
""",
)

NUMBER_TOO_LARGE = register(
    "E0506",
    "number-too-large",
    "Number too large",
    """
A number reached more than `max_number_digits` digits before the decimal point (100 by
default), for example `10 ** 1000`.
""",
)

TIME_LIMIT = register(
    "E0507",
    "time-limit",
    "Time limit exceeded",
    """
The run took longer than `max_seconds` (1 second by default).
""",
)

INVALID_ARGUMENT = register(
    "E0508",
    "invalid-argument",
    "Invalid argument",
    """
An argument does not match the tool's parameters: it is missing, unexpected, or of the
wrong type. `tool.parameters` is the JSON Schema the arguments must satisfy.
""",
)

RUNTIME_TYPE = register(
    "E0509",
    "runtime-type",
    "Value of the wrong type at run time",
    """
A value from an argument or a table that has no declared type turned out to be of a type
the operation does not take (for example a record field holding text used in arithmetic).
Declare the parameter's type so the checker can catch it before run time.
""",
)

MISSING_ITEM = register(
    "E0510",
    "missing-item",
    "Missing field or index out of range",
    """
An object has no such field, or a list index is outside the list.
""",
)

INVALID_OPERATION = register(
    "E0511",
    "invalid-operation",
    "Invalid numeric operation",
    """
The operation has no defined result: a power with an exponent over the cap (1,000) or a
fractional power of a negative number, the square root of a negative number, `null` in
arithmetic, and similar.
""",
)

MISSING_TABLE = register(
    "E0512",
    "missing-table",
    "Table not supplied",
    """
A lookup reads a table that was not passed to `run` (`tables=`) or `--tables`.
""",
)

INVALID_TABLE = register(
    "E0513",
    "invalid-table",
    "Invalid table",
    """
A table file cannot be loaded (not JSON or CSV, not an object of key -> value, a CSV
without a header), or a table value does not have the table's declared type.
""",
)

INTERNAL_FAILURE = register(
    "E0514",
    "internal-failure",
    "Unexpected failure inside a run",
    """
The run stopped on a failure that toolkiln did not foresee (a Python exception, or running
out of memory or stack) instead of one of the codes above. The run is over and nothing
escaped it as a Python exception; this is a bug in toolkiln: please report it with the
program and its arguments. See the budgets page for what every run is held to.
""",
)

INVALID_TEXT = register(
    "E0515",
    "invalid-text",
    "Text that cannot be encoded or decoded",
    """
`base64_decode` was given text that is not standard base64, or whose bytes are not UTF-8
text; or text holding a lone surrogate (JSON's `"\\ud800"`, which is not Unicode text) was
hashed or encoded (`sha256`, `md5`, `base64_encode`, `url_encode`); or `parse_json` was given
text that is not strict JSON (as JavaScript's `JSON.parse` reads it: no NaN, no comments, no
trailing commas), or `parse_csv` text whose quotes are not CSV's or whose first row names a
column twice. The message says where in the text.
""",
)
