"""Input and syntax, names and control flow, types, static limits (E01xx-E04xx); the run
time codes (E05xx) are in runtime.py."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- input and syntax ---------------------------------------------------------------------

UNREADABLE_FILE = register(
    "E0100",
    "unreadable-file",
    "File cannot be read",
    """
The file does not exist, is not a regular file, or is not valid UTF-8 text.
Check the path; toolkiln reads `.tk` (text DSL) and `.json` (JSON DSL) files as UTF-8.
A source given as a Python string is refused for the same reason when it holds a surrogate
code point (U+D800-U+DFFF, half of a UTF-16 pair): no UTF-8 file could hold it.
""",
)

SYNTAX_ERROR = register(
    "E0101",
    "syntax-error",
    "Syntax error",
    """
The text does not follow the grammar: a token appears where it cannot stand.
The message names what was found and what could have come instead.

    total = price * * 2      # error: unexpected `*`
    total = price * 2        # fixed
""",
)

UNTERMINATED_STRING = register(
    "E0102",
    "unterminated-string",
    "Unterminated string",
    """
A string literal opened with `"` or `'` is not closed on the same line.

    name = "Ada              # error
    name = "Ada"             # fixed
""",
)

INVALID_ESCAPE = register(
    "E0103",
    "invalid-escape",
    "Invalid escape in a string",
    """
Inside a string only these escapes are allowed: `\\\\`, `\\"`, `\\'`, `\\n`, `\\r`, `\\t` and
`\\uXXXX` (four hex digits).
""",
)

INVALID_TEMPLATE = register(
    "E0104",
    "invalid-template",
    "Invalid template",
    """
A `format` template has holes written `{{expression}}` or `{{expression:spec}}`.
This error means a hole is not closed, is empty, or its format spec is not understood.
A spec is `[,][.N](f|%)`: `,` groups thousands, `.N` gives N decimals, `%` multiplies by
100 and appends `%`.

    "Total: {{total:.2}}"     # error: spec needs a type
    "Total: {{total:.2f}}"    # fixed -> Total: 31.50
""",
)

INVALID_JSON = register(
    "E0105",
    "invalid-json",
    "Invalid JSON",
    """
The input is not valid JSON. The message gives the line and column where the JSON parser
stopped. A common cause is a trailing comma or a comment, which JSON does not allow.
""",
)

WRONG_JSON_TYPE = register(
    "E0106",
    "wrong-json-type",
    "Wrong JSON type",
    """
A JSON value has the wrong type for its place: for example `steps` must be a list of step
objects, `expression` must be a string, the whole document must be an object.
""",
)

UNKNOWN_OP = register(
    "E0107",
    "unknown-op",
    "Unknown step op",
    """
Every step has an `op`, one of `math`, `lookup`, `format`, `call`, `condition`, `return`.

    {"op": "calc", "expression": "a + b", "output": "c"}   # error
    {"op": "math", "expression": "a + b", "output": "c"}   # fixed
""",
)

MISSING_FIELD = register(
    "E0108",
    "missing-field",
    "Missing field",
    """
A required field is missing from a step or definition: for example a `math` step needs
`expression` and `output`, a `condition` step needs `if` and `then`.
""",
)

UNKNOWN_FIELD = register(
    "E0109",
    "unknown-field",
    "Unknown field",
    """
A step or definition has a field its op does not take. Each op takes exactly its listed
fields; remove the extra one or check its spelling.

    {"op": "math", "expr": "a + b", "output": "c"}         # error: `expr`
""",
)

INVALID_NAME = register(
    "E0110",
    "invalid-name",
    "Invalid name",
    """
Names of tools, parameters, variables and tables start with a letter or `_`, continue with
letters, digits and `_`, and are not one of the reserved words (`and`, `or`, `not`, `in`,
`if`, `else`, `for`, `return`, `true`, `false`, `null`, `lookup`, `format`, `tool`, `call`).
Tool names are lower case: `^[a-z][a-z0-9_]{0,63}$`.
""",
)

INVALID_DECLARATION = register(
    "E0111",
    "invalid-declaration",
    "Invalid declaration",
    """
A parameter or table declaration names a type that does not exist, or the risk level is not
one of `low`, `medium`, `high`. Types are `number`, `integer`, `string`, `boolean`, `array`,
`object`, `any`, and `array[T]` for a list of T.
""",
)

NOT_A_COMPUTE_FILE = register(
    "E0116",
    "not-a-compute-file",
    "Not a compute tool's file",
    """
`toolkiln run`, `fmt` and `optimize` take a compute tool's file (the text DSL or the JSON DSL).
A script tool's `.skill` file, RustyClaw's `.yaml` skill and a JSON definition whose `kind` is
`script`, `executable` or `workflow` are tools only the registry runs:

    toolkiln check word_stats.skill           # checks it as `tools create` would
    toolkiln tools create word_stats.skill    # registers it
    toolkiln tools run word_stats --args '{"text": "a b a"}'
""",
)

# --- names and control flow ---------------------------------------------------------------

UNKNOWN_VARIABLE = register(
    "E0201",
    "unknown-variable",
    "Unknown variable",
    """
The expression reads a name that is neither a parameter nor assigned by any step.
When a definition declares its parameters, those are all of them: every other name must
be assigned before it is read.

    return totl          # error: did you mean `total`?
""",
)

UNASSIGNED_VARIABLE = register(
    "E0202",
    "unassigned-variable",
    "Variable read before assignment",
    """
A local variable is read before any step assigns it. Steps run in order, so move the
assignment up or compute the value first.

    total = subtotal + tax
    subtotal = price * qty     # assigned too late
""",
)

POSSIBLY_UNASSIGNED = register(
    "E0203",
    "possibly-unassigned",
    "Variable may be unassigned",
    """
The variable is assigned on some paths only (for example in `then` but not in `else`) and
read after the branches join. Assign it on every branch, or before the condition.

    if vip { discount = 0.1 }
    return price * (1 - discount)          # error: not assigned when vip is false

    discount = 0
    if vip { discount = 0.1 }              # fixed
""",
)

UNKNOWN_FUNCTION = register(
    "E0204",
    "unknown-function",
    "Unknown function",
    """
Only the built-in functions can be called (see the language reference). There is no way
to call anything else: no methods, no imports.
""",
)

WRONG_ARITY = register(
    "E0205",
    "wrong-arity",
    "Wrong number of arguments",
    """
The function was called with too few or too many arguments. The hint shows its
signature, for example `round(x, digits?)` (`?` marks an optional argument, `...` a repeated one).
""",
)

UNKNOWN_TABLE = register(
    "E0206",
    "unknown-table",
    "Unknown table",
    """
A lookup names a table that the definition does not declare. When a definition declares
tables, lookups may only read those.
""",
)

MISSING_RETURN = register(
    "E0207",
    "missing-return",
    "Missing return",
    """
Some path through the steps ends without a `return`. Every path must return a value; add
a `return` at the end, or in the branch that lacks one.
""",
)

UNREACHABLE_STEP = register(
    "W0208",
    "unreachable-step",
    "Unreachable step",
    """
A step follows a `return` in the same block, so it never runs. Remove it or move the
`return` after it.
""",
)

UNUSED_VARIABLE = register(
    "W0209",
    "unused-variable",
    "Assigned value is never read",
    """
A step assigns a variable whose value is never read and is not returned. The step still
runs (and can still fail), but its result is lost: often a sign of a typo or a forgotten step.
""",
)

DUPLICATE_NAME = register(
    "E0210",
    "duplicate-name",
    "Duplicate name",
    """
Two parameters or two tables have the same name.
""",
)

UNKNOWN_TOOL = register(
    "E0211",
    "unknown-tool",
    "Unknown tool",
    """
A `call` step names a tool that is not known. A program may call only the tools it is
compiled with: `toolkiln.compile(source, tools={"shipping_cost": tool})` in Python, or the
tools of the registry it is saved in. Register the callee first, or check the spelling.

    cost = call shiping_cost(weight_kg = 2)    # error: did you mean `shipping_cost`?
    cost = call shipping_cost(weight_kg = 2)   # fixed
""",
)

TOOL_ARGUMENTS = register(
    "E0212",
    "tool-arguments",
    "Wrong arguments for a tool",
    """
A `call` step passes an argument the called tool does not have, leaves out one it requires
(a parameter without a default), or passes the same argument twice. Arguments are passed by
name, exactly as the callee's parameters are named.

    tool shipping_cost(weight_kg: number, express: boolean = false) ...

    cost = call shipping_cost(weight = 2)       # error: no parameter `weight`; `weight_kg` is missing
    cost = call shipping_cost(weight_kg = 2)    # fixed
""",
)

# --- types --------------------------------------------------------------------------------

OPERAND_TYPE = register(
    "E0301",
    "operand-type",
    "Operator applied to the wrong types",
    """
The operator cannot combine these types. Arithmetic (`+ - * / % **`) needs numbers (`+` also
joins two strings), ordering comparisons need two numbers or two strings, `and`/`or`/`not`
need booleans, `in` needs a list or a string on its right.

    tool badge(name: string)
    description "A badge"
    {
      label = name * 4                  # error: `*` needs numbers; name is a string
      return label
    }

Build text with a template instead: `label = format "{{name}} x4"`.
""",
)

CONDITION_TYPE = register(
    "E0302",
    "condition-type",
    "Condition is not boolean",
    """
The condition of an `if` (or of `x if c else y`, or a comprehension filter) must be a
boolean. There is no truthiness: write the comparison out.

    tool has_items(items: array)
    description "Whether there are items"
    {
      if items { return true }          # error: a list is not a boolean
      return false
    }

Fixed: `if len(items) > 0 { return true }`.
""",
)

ARGUMENT_TYPE = register(
    "E0303",
    "argument-type",
    "Argument of the wrong type",
    """
A function received an argument of a type it does not take, for example `upper(3)` or
`round("2.5")`, or a `call` step passes a value of another type than the called tool's
parameter declares. The message shows the expected type.
""",
)

NO_FIELD = register(
    "E0304",
    "no-field",
    "Field access on a value that is not an object",
    """
`a.b` reads field `b` of the object `a`. The value on the left is not an object (a record
from an argument or a table).
""",
)

NOT_INDEXABLE = register(
    "E0305",
    "not-indexable",
    "Value cannot be indexed",
    """
`a[i]` needs a list with a number index, or an object with a string key.
""",
)

PARAMETER_TYPE = register(
    "E0306",
    "parameter-type",
    "Parameter used against its type",
    """
A parameter is used in a way its type does not allow: it is declared as one type and used as
another, or (when inferred) used as two different types.

    tool total(qty: string, price: number)
    description "Line total"
    {
      return qty * price        # error: qty is declared string
    }
""",
)

DEFAULT_TYPE = register(
    "E0307",
    "default-type",
    "Default of the wrong type",
    """
The default value of a parameter, or of a lookup, does not match the declared type.
""",
)

NOT_ITERABLE = register(
    "E0308",
    "not-iterable",
    "Value cannot be iterated",
    """
`for x in xs` inside `[...]`, `sum(...)`, `count(...)` etc. needs a list.
""",
)

FORMAT_SPEC_TYPE = register(
    "E0309",
    "format-spec-type",
    "Format spec does not fit the value",
    """
The number format specs (`.2f`, `,`, `%`) apply to numbers only.
""",
)

# --- static limits ------------------------------------------------------------------------

SOURCE_TOO_LARGE = register(
    "E0401",
    "source-too-large",
    "Source too large",
    """
The source is larger than the limit (1 MiB of text, 256 KiB for one expression, 100,000
steps by default). Split the logic into smaller tools. The text of a large imported n8n
workflow compiles with a higher limit: `compile_workflow(text, max_source_chars=N)` or
`toolkiln workflow compile --max-source-chars N`.
""",
)

TOO_DEEP = register(
    "E0402",
    "too-deep",
    "Nesting too deep",
    """
Expressions or blocks are nested deeper than the limit (200 levels). Such input is not
written by people; flatten it with intermediate variables.
""",
)

LITERAL_TOO_LARGE = register(
    "E0403",
    "literal-too-large",
    "Number literal too large",
    """
A number literal has more digits than the maximum (100 by default).
""",
)

TOO_MANY_TOKENS = register(
    "E0404",
    "too-many-tokens",
    "Source has too many tokens",
    """
A text-DSL source, or one expression or template of the JSON format, has more tokens (names,
numbers, strings, operators, punctuation) than the limit (40,000: some 2,500 steps of
arithmetic, or a flat sum of 20,000 terms). Compile time grows with the number of tokens;
the count is taken by a fast scan before parsing, so such a source is refused at once. Split
the logic into smaller tools, or move large constant data into a table.
""",
)

LITERAL_TOO_LONG = register(
    "E0405",
    "literal-too-long",
    "List literal too long",
    """
One literal value (a list, with every list nested in it) has more items than the limit
(10,000). Large constant data belongs in a table (`tables=`), not in the program.
""",
)
