"""Every diagnostic code, registered once.

A code is stable: once released it keeps its number and meaning. Each has a title (one line),
an explanation (shown by `toolkiln explain CODE` and on the docs' error-code page) with an
example of the mistake and its fix. Messages themselves are built by the pass that reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    title: str
    explanation: str


CODES: dict[str, Code] = {}


def _register(code: str, name: str, title: str, explanation: str) -> Code:
    severity: Severity = "warning" if code.startswith("W") else "error"
    entry = Code(code, name, severity, title, explanation.strip())
    # Codes and names are looked up both ways (`toolkiln explain`): each must be unique.
    assert code not in CODES and all(name != known.name for known in CODES.values()), (code, name)
    CODES[code] = entry
    return entry


def lookup_code(text: str) -> Code | None:
    """Find a code by number (`E0201`, `e201`, `201`, `R201`) or by name (`unknown-variable`)."""
    key = text.strip().upper()
    for entry in CODES.values():
        if key in (entry.code, entry.name.upper()):
            return entry
    letter, digits = (key[0], key[1:]) if key[:1].isalpha() else (None, key)
    if digits.isdigit():
        for entry in CODES.values():
            if entry.code[1:] == digits.zfill(4) and letter in (None, entry.code[0]):
                return entry
    return None


# --- input and syntax ---------------------------------------------------------------------

UNREADABLE_FILE = _register(
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

SYNTAX_ERROR = _register(
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

UNTERMINATED_STRING = _register(
    "E0102",
    "unterminated-string",
    "Unterminated string",
    """
A string literal opened with `"` or `'` is not closed on the same line.

    name = "Ada              # error
    name = "Ada"             # fixed
""",
)

INVALID_ESCAPE = _register(
    "E0103",
    "invalid-escape",
    "Invalid escape in a string",
    """
Inside a string only these escapes are allowed: `\\\\`, `\\"`, `\\'`, `\\n`, `\\r`, `\\t` and
`\\uXXXX` (four hex digits).
""",
)

INVALID_TEMPLATE = _register(
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

INVALID_JSON = _register(
    "E0105",
    "invalid-json",
    "Invalid JSON",
    """
The input is not valid JSON. The message gives the line and column where the JSON parser
stopped. A common cause is a trailing comma or a comment, which JSON does not allow.
""",
)

WRONG_JSON_TYPE = _register(
    "E0106",
    "wrong-json-type",
    "Wrong JSON type",
    """
A JSON value has the wrong type for its place: for example `steps` must be a list of step
objects, `expression` must be a string, the whole document must be an object.
""",
)

UNKNOWN_OP = _register(
    "E0107",
    "unknown-op",
    "Unknown step op",
    """
Every step has an `op`, one of `math`, `lookup`, `format`, `call`, `condition`, `return`.

    {"op": "calc", "expression": "a + b", "output": "c"}   # error
    {"op": "math", "expression": "a + b", "output": "c"}   # fixed
""",
)

MISSING_FIELD = _register(
    "E0108",
    "missing-field",
    "Missing field",
    """
A required field is missing from a step or definition: for example a `math` step needs
`expression` and `output`, a `condition` step needs `if` and `then`.
""",
)

UNKNOWN_FIELD = _register(
    "E0109",
    "unknown-field",
    "Unknown field",
    """
A step or definition has a field its op does not take. Each op takes exactly its listed
fields; remove the extra one or check its spelling.

    {"op": "math", "expr": "a + b", "output": "c"}         # error: `expr`
""",
)

INVALID_NAME = _register(
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

INVALID_DECLARATION = _register(
    "E0111",
    "invalid-declaration",
    "Invalid declaration",
    """
A parameter or table declaration names a type that does not exist, or the risk level is not
one of `low`, `medium`, `high`. Types are `number`, `integer`, `string`, `boolean`, `array`,
`object`, `any`, and `array[T]` for a list of T.
""",
)

# --- names and control flow ---------------------------------------------------------------

UNKNOWN_VARIABLE = _register(
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

UNASSIGNED_VARIABLE = _register(
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

POSSIBLY_UNASSIGNED = _register(
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

UNKNOWN_FUNCTION = _register(
    "E0204",
    "unknown-function",
    "Unknown function",
    """
Only the built-in functions can be called (see the language reference). There is no way
to call anything else: no methods, no imports.
""",
)

WRONG_ARITY = _register(
    "E0205",
    "wrong-arity",
    "Wrong number of arguments",
    """
The function was called with too few or too many arguments. The hint shows its
signature, for example `round(x, digits?)` (`?` marks an optional argument, `...` a repeated one).
""",
)

UNKNOWN_TABLE = _register(
    "E0206",
    "unknown-table",
    "Unknown table",
    """
A lookup names a table that the definition does not declare. When a definition declares
tables, lookups may only read those.
""",
)

MISSING_RETURN = _register(
    "E0207",
    "missing-return",
    "Missing return",
    """
Some path through the steps ends without a `return`. Every path must return a value; add
a `return` at the end, or in the branch that lacks one.
""",
)

UNREACHABLE_STEP = _register(
    "W0208",
    "unreachable-step",
    "Unreachable step",
    """
A step follows a `return` in the same block, so it never runs. Remove it or move the
`return` after it.
""",
)

UNUSED_VARIABLE = _register(
    "W0209",
    "unused-variable",
    "Assigned value is never read",
    """
A step assigns a variable whose value is never read and is not returned. The step still
runs (and can still fail), but its result is lost: often a sign of a typo or a forgotten step.
""",
)

DUPLICATE_NAME = _register(
    "E0210",
    "duplicate-name",
    "Duplicate name",
    """
Two parameters or two tables have the same name.
""",
)

UNKNOWN_TOOL = _register(
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

TOOL_ARGUMENTS = _register(
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

OPERAND_TYPE = _register(
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

CONDITION_TYPE = _register(
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

ARGUMENT_TYPE = _register(
    "E0303",
    "argument-type",
    "Argument of the wrong type",
    """
A function received an argument of a type it does not take, for example `upper(3)` or
`round("2.5")`, or a `call` step passes a value of another type than the called tool's
parameter declares. The message shows the expected type.
""",
)

NO_FIELD = _register(
    "E0304",
    "no-field",
    "Field access on a value that is not an object",
    """
`a.b` reads field `b` of the object `a`. The value on the left is not an object (a record
from an argument or a table).
""",
)

NOT_INDEXABLE = _register(
    "E0305",
    "not-indexable",
    "Value cannot be indexed",
    """
`a[i]` needs a list with a number index, or an object with a string key.
""",
)

PARAMETER_TYPE = _register(
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

DEFAULT_TYPE = _register(
    "E0307",
    "default-type",
    "Default of the wrong type",
    """
The default value of a parameter, or of a lookup, does not match the declared type.
""",
)

NOT_ITERABLE = _register(
    "E0308",
    "not-iterable",
    "Value cannot be iterated",
    """
`for x in xs` inside `[...]`, `sum(...)`, `count(...)` etc. needs a list.
""",
)

FORMAT_SPEC_TYPE = _register(
    "E0309",
    "format-spec-type",
    "Format spec does not fit the value",
    """
The number format specs (`.2f`, `,`, `%`) apply to numbers only.
""",
)

# --- static limits ------------------------------------------------------------------------

SOURCE_TOO_LARGE = _register(
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

TOO_DEEP = _register(
    "E0402",
    "too-deep",
    "Nesting too deep",
    """
Expressions or blocks are nested deeper than the limit (200 levels). Such input is not
written by people; flatten it with intermediate variables.
""",
)

LITERAL_TOO_LARGE = _register(
    "E0403",
    "literal-too-large",
    "Number literal too large",
    """
A number literal has more digits than the maximum (100 by default).
""",
)

TOO_MANY_TOKENS = _register(
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

LITERAL_TOO_LONG = _register(
    "E0405",
    "literal-too-long",
    "List literal too long",
    """
One literal value (a list, with every list nested in it) has more items than the limit
(10,000). Large constant data belongs in a table (`tables=`), not in the program.
""",
)

# --- run time -----------------------------------------------------------------------------

DIVISION_BY_ZERO = _register(
    "E0501",
    "division-by-zero",
    "Division by zero",
    """
The right side of `/` or `%` was zero at run time. Guard it:

    avg_price = total / count if count != 0 else 0
""",
)

KEY_NOT_FOUND = _register(
    "E0502",
    "key-not-found",
    "Lookup key not found",
    """
A lookup's key is not in its table and the lookup has no `default`. Add a default:

    rate = lookup rates[zone] default 0
""",
)

OPERATION_BUDGET = _register(
    "E0503",
    "operation-budget",
    "Operation budget exceeded",
    """
The run needed more operations than its budget (`max_operations`, 1,000,000 by default).
Comprehensions over large lists are the usual cause. Raise the limit per call if it is
legitimate: `tool.run(args, limits=Limits(max_operations=...))`.
""",
)

STRING_TOO_LONG = _register(
    "E0504",
    "string-too-long",
    "String too long",
    """
A string built at run time (by `+`, `format`, `replace`, `join`, `upper`, `text`, ...) exceeds
`max_string_length` (100,000 characters by default). A string argument that is too long is
refused before the run as E0508.
""",
)

LIST_TOO_LONG = _register(
    "E0505",
    "list-too-long",
    "List too long",
    """
A list read from a lookup table, or made by `range`, `split` or `flatten`, would exceed
`max_list_length` (100,000 items by default); it is refused before it is made. A list
argument that is too long is refused before the run as E0508.
""",
)

NUMBER_TOO_LARGE = _register(
    "E0506",
    "number-too-large",
    "Number too large",
    """
A number reached more than `max_number_digits` digits before the decimal point (100 by
default), for example `10 ** 1000`.
""",
)

TIME_LIMIT = _register(
    "E0507",
    "time-limit",
    "Time limit exceeded",
    """
The run took longer than `max_seconds` (1 second by default).
""",
)

INVALID_ARGUMENT = _register(
    "E0508",
    "invalid-argument",
    "Invalid argument",
    """
An argument does not match the tool's parameters: it is missing, unexpected, or of the
wrong type. `tool.parameters` is the JSON Schema the arguments must satisfy.
""",
)

RUNTIME_TYPE = _register(
    "E0509",
    "runtime-type",
    "Value of the wrong type at run time",
    """
A value from an argument or a table that has no declared type turned out to be of a type
the operation does not take (for example a record field holding text used in arithmetic).
Declare the parameter's type so the checker can catch it before run time.
""",
)

MISSING_ITEM = _register(
    "E0510",
    "missing-item",
    "Missing field or index out of range",
    """
An object has no such field, or a list index is outside the list.
""",
)

INVALID_OPERATION = _register(
    "E0511",
    "invalid-operation",
    "Invalid numeric operation",
    """
The operation has no defined result: a power with an exponent over the cap (1,000) or a
fractional power of a negative number, the square root of a negative number, `null` in
arithmetic, and similar.
""",
)

MISSING_TABLE = _register(
    "E0512",
    "missing-table",
    "Table not supplied",
    """
A lookup reads a table that was not passed to `run` (`tables=`) or `--tables`.
""",
)

INVALID_TABLE = _register(
    "E0513",
    "invalid-table",
    "Invalid table",
    """
A table file cannot be loaded (not JSON or CSV, not an object of key -> value, a CSV
without a header), or a table value does not have the table's declared type.
""",
)

INTERNAL_FAILURE = _register(
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

INVALID_TEXT = _register(
    "E0515",
    "invalid-text",
    "Text that cannot be encoded or decoded",
    """
`base64_decode` was given text that is not standard base64, or whose bytes are not UTF-8
text; or text holding a lone surrogate (JSON's `"\\ud800"`, which is not Unicode text) was
hashed or encoded (`sha256`, `md5`, `base64_encode`, `url_encode`).
""",
)

# --- registry -----------------------------------------------------------------------------
# Raised as exceptions by toolkiln.Registry (registry/errors.py), and returned in the same
# shape as diagnostics by its meta-tools.

REGISTRY_ERROR = _register(
    "R0100",
    "registry-error",
    "Registry error",
    """
A registry operation failed; the more specific codes below say how.
""",
)

TOOL_NAME_INVALID = _register(
    "R0101",
    "invalid-tool-name",
    "Invalid tool name",
    """
A tool name must match `^[a-z][a-z0-9_]{0,63}$` and must not be the name of a meta-tool
(`create_compute_tool`, `create_workflow_tool`, `list_custom_tools`, `test_custom_tool`,
`delete_custom_tool`, `toggle_custom_tool`). Path tricks such as `../x`, `a/b` or a NUL byte are refused here too.
""",
)

TOOL_NOT_FOUND = _register(
    "R0102",
    "tool-not-found",
    "Tool not found",
    """
No tool, or no such version of a tool, has that name. `toolkiln tools list` shows them.
""",
)

DUPLICATE_TOOL = _register(
    "R0103",
    "duplicate-tool",
    "Tool exists already",
    """
A tool of that name exists already. Change it with `update` (a new version), or choose
another name.
""",
)

INVALID_REQUEST = _register(
    "R0104",
    "invalid-request",
    "Invalid request",
    """
An argument the registry cannot act on: an unknown actor (use "user" or "llm"), an unknown
export format, a version that does not exist, a field a tool definition does not have, or a
definition larger than 256 KB.
""",
)

DEPENDENCY_CYCLE = _register(
    "R0105",
    "dependency-cycle",
    "Tools would call each other in a cycle",
    """
Saving the tool would make a cycle of `call` steps: the tool calls, directly or through other
tools, a tool that calls it back (or it calls itself). A cycle could never finish, so it is
refused when the tool is saved. The message lists the cycle; break it by removing one call.

    tool a(...) { r = call b(...) ... }      # registered
    tool b(...) { r = call a(...) ... }      # refused: b -> a -> b
""",
)

TOOL_IN_USE = _register(
    "R0106",
    "tool-in-use",
    "Tool is called by other tools",
    """
The tool cannot be deleted because other registered tools call it; the message lists them.
Change those tools first, or delete with `force=True` (`--force` on the command line): the
callers then no longer compile. They refuse to run (R0301) and are listed in the registry's
problems (E0211) until a tool of that name is created again and the registry is reloaded
(`reg.refresh()`), or until they are updated not to call it.
""",
)

PERMISSION_DENIED = _register(
    "R0201",
    "permission-denied",
    "Permission denied",
    """
The actor may not do this. A model (`by="llm"`) may not delete or change a tool a person
created, and only a person approves or rejects a tool waiting for approval.
""",
)

INVALID_TRANSITION = _register(
    "R0202",
    "invalid-transition",
    "Invalid lifecycle transition",
    """
The lifecycle does not allow this action from the tool's status: `approve` and `reject` act
only on a tool in `pending_approval`; `enable` and `disable` only on an approved tool.
""",
)

TOOL_NOT_ACTIVE = _register(
    "R0203",
    "tool-not-active",
    "Tool not active",
    """
Only active tools run. A disabled tool can be enabled; a tool waiting for approval must be
approved first.
""",
)

BROKEN_TOOL = _register(
    "R0301",
    "broken-tool",
    "Stored tool does not compile",
    """
A stored tool file no longer parses or checks (it was edited by hand, truncated, or the
language changed). It is skipped at start-up and listed in `Registry.problems` with its
diagnostics; fix the file or roll back to a good version.
""",
)

STORE_ERROR = _register(
    "R0302",
    "store-error",
    "Store cannot be read or written",
    """
A file system error, or the registry's lock could not be taken in time (another process
holds it). Check the folder's permissions and free space, then retry.
""",
)

UNSAFE_REGISTRY_FILE = _register(
    "R0303",
    "unsafe-registry-file",
    "Not a regular file inside the registry",
    """
The registry reads and writes only regular files inside its own folder. An entry where it
expects one is a symbolic link, a FIFO, a device, a socket or a folder (or a folder on the way
to it is a symbolic link): it is not opened, followed or written through, and it is listed in
`Registry.problems` (`toolkiln tools check`). A change that would write through it is refused.
Remove or replace the entry by hand; toolkiln does not delete what it did not create.

    tools/evil.json -> /etc/passwd        # refused: a symbolic link
    versions/price -> /home/me/elsewhere  # refused: writes would leave the folder
""",
)

REGISTRY_FILE_TOO_LARGE = _register(
    "R0304",
    "registry-file-too-large",
    "Registry file too large",
    """
A file in the registry folder is larger than the registry ever writes it (4 MiB for a tool
record or a past version, 16 MiB for usage counts and for a table file). Only the first bytes
are read, to tell; the file is skipped and listed in `Registry.problems`. Restore it from
version control, or delete it.
""",
)

# --- registry: workflow tools on n8n ----------------------------------------------------------
# Raised by the registry when a workflow tool is deployed to n8n or run through its webhook.

N8N_NOT_CONFIGURED = _register(
    "R0401",
    "n8n-not-configured",
    "No n8n server configured",
    """
A workflow tool needs an n8n server to be deployed to, and an API key to deploy it. Give the
registry a client (`Registry(path, n8n=N8nClient(url, key))`) or set `TOOLKILN_N8N_URL` and
`TOOLKILN_N8N_API_KEY`; a tool's definition may name its server in `"n8n": {"url": ...}`. The
key is never stored in the registry.
""",
)

WORKFLOW_DEPLOY_FAILED = _register(
    "R0402",
    "workflow-deploy-failed",
    "Workflow could not be deployed",
    """
Creating, updating, activating, deactivating or deleting the tool's workflow in n8n failed:
the server could not be reached, refused the key (401), or refused the workflow (400, with
n8n's message, e.g. a node type it does not know). Nothing was changed in the registry: the
action (create, approve, enable, update, disable, delete) can be retried once n8n is fixed.
`delete(force=True)` deletes the tool even when its workflow cannot be removed.
""",
)

WORKFLOW_NOT_DEPLOYED = _register(
    "R0403",
    "workflow-not-deployed",
    "Workflow tool not deployed",
    """
The workflow tool is active, but its current version has no deployment in n8n on record (its
file was copied or edited by hand). Deploy it again with `reg.deploy(name)` or
`toolkiln tools deploy NAME`.
""",
)

WORKFLOW_RUN_FAILED = _register(
    "R0404",
    "workflow-run-failed",
    "Workflow run failed",
    """
Posting the arguments to the tool's webhook failed: n8n could not be reached, the webhook is
not registered (the workflow was deactivated or deleted in n8n: deploy it again), or the
workflow answered with an error status (the message is n8n's, `.status` its HTTP status), or
n8n answered but its execution of the workflow failed (an empty answer, or one sent before the
end): the message then names the node that failed and n8n's error.
""",
)

WORKFLOW_NAME_TAKEN = _register(
    "R0405",
    "workflow-name-taken",
    "Workflow name taken in n8n",
    """
A workflow tool's workflow would get the name of a workflow in n8n that the tool did not
create (deployed with `toolkiln n8n deploy`, or made in n8n's editor). The tool knows its own
workflow by its n8n id and never updates, deactivates or deletes another one, so nothing was
changed in n8n or in the registry. Give the tool's workflow another name (`workflow NAME` in
its definition), or rename or delete the other workflow in n8n, then retry.

    workflow order_total          # error: n8n already has a workflow `order_total`
    workflow order_total_tool     # fixed
""",
)

# --- workflows ----------------------------------------------------------------------------

DUPLICATE_STEP = _register(
    "E0701",
    "duplicate-step",
    "Duplicate step name",
    """
Every step of a workflow has its own name: it becomes the n8n node's name and is how later
steps read its output. The trigger's node name (`Webhook`, `Manual Trigger`) and the names of
the trigger's data (`body`, `query`, `headers`) are taken too.

    set total { x = 1 }
    set total { y = 2 }        # error: `total` is already a step
    set total2 { y = 2 }       # fixed
""",
)

UNKNOWN_STEP = _register(
    "E0702",
    "unknown-step",
    "Unknown step",
    """
An expression reads a name that is neither a step of the workflow nor the trigger's data.
With a webhook trigger, the request is `body`, `query` and `headers`; an earlier step's output
fields are `step_name.field`.

    set priced { total = order.qty * 2 }   # error: no step `order`
    set priced { total = body.qty * 2 }    # fixed: the posted JSON body
""",
)

NOT_UPSTREAM = _register(
    "E0703",
    "not-upstream",
    "Step is not upstream",
    """
An expression reads a step that does not run before it on every path from the trigger: a
later step, a step in the other branch of an `if`, or a step inside a branch read after the
branches join. Only steps that always ran before can be read.

    if big body.n > 10 { set a { x = 1 } } else { set b { x = 2 } }
    set after { x = a.x }      # error: `a` ran only when `big` was true
""",
)

RESPOND_WITHOUT_WEBHOOK = _register(
    "E0704",
    "respond-without-webhook",
    "Respond step without a responding webhook",
    """
A `respond` step answers the webhook request, so the trigger must be a webhook in "respond
with node" mode; otherwise n8n has already answered (or there is no request at all).

    on webhook POST "/orders"                     # error at `respond`
    on webhook POST "/orders" respond with node   # fixed
""",
)

MISSING_RESPOND = _register(
    "E0705",
    "missing-respond",
    "Webhook waits for a respond step that is missing",
    """
The webhook trigger is in "respond with node" mode but no `respond` step exists, so every
request would wait until it times out. Add a `respond` step, or drop `respond with node` to
have n8n answer as soon as the request is received.
""",
)

UNTRANSLATABLE = _register(
    "E0706",
    "untranslatable",
    "Expression cannot be translated to n8n",
    """
The expression is valid compute DSL, but the n8n backend has no translation for it that keeps
its meaning: `round(x, digits)` (JavaScript doubles round 2.675 to 2.67), `number`, `text`,
`join` (numbers print differently in JavaScript) and format specs such as `{{x:.2f}}` in an
http URL. docs/workflows.md lists what translates. Compute it another way, or in a compute
tool.

    set a { total = round(body.amount, 2) }     # error
    set a { cents = round(body.amount * 100) }  # fixed: whole numbers translate
""",
)

INVALID_TRIGGER = _register(
    "E0707",
    "invalid-trigger",
    "Invalid trigger",
    """
A webhook trigger needs an HTTP method (`GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`) and
a path of letters, digits, `-`, `_`, `/` and `:name` parameters. A schedule runs `daily at
"HH:MM"`, `every N minutes|hours|days` or on a five-field `cron` expression, in an IANA
timezone such as "Europe/Berlin".

    on webhook SEND "/orders"                 # error: unknown method
    on webhook POST "/orders"                 # fixed
    on schedule daily at "9am"                # error: not HH:MM
    on schedule daily at "09:00" timezone "Europe/Berlin"   # fixed
""",
)

NO_OUTPUT = _register(
    "E0708",
    "no-output",
    "Step has no output of its own",
    """
Only a `set` step (and the trigger) produce fields; an `if` passes its input through and a
`respond` step answers the request. Read the step that produced the data instead.

    if big priced.total > 100 { ... }
    set label { text = big.total }      # error: `big` is an if
    set label { text = priced.total }   # fixed
""",
)

INVALID_STEP = _register(
    "E0709",
    "invalid-step",
    "Invalid step",
    """
A step's fixed words are wrong: an HTTP method n8n does not send, a wait unit other than
`seconds`, `minutes`, `hours` or `days`, a count that is not a positive whole number, a node
version that is not a number, or a clause given twice.

    wait pause 5 weeks            # error: unknown unit
    wait pause 35 days            # fixed
""",
)

DISCONNECTED_STEP = _register(
    "E0710",
    "disconnected-step",
    "Step is not connected to a trigger",
    """
No path leads from the trigger to this step, so n8n would never run it. This happens with
`after nothing` or with `after` naming only steps that are themselves unreachable. Wire the
step to something upstream, or delete it. Sticky notes and other trigger nodes are exempt.

    after nothing
    set orphan { x = 1 }          # error: nothing runs it
""",
)

WORKFLOW_CYCLE = _register(
    "E0711",
    "workflow-cycle",
    "Workflow has a cycle",
    """
The `after` clauses form a loop. n8n runs a loop only through a node made for it (Loop Over
Items, `n8n-nodes-base.splitInBatches`); any other loop never finishes or never starts.
Break the loop, or route it through a Loop Over Items node.
""",
)

UNKNOWN_NODE_TYPE = _register(
    "E0712",
    "unknown-node-type",
    "Unknown n8n node type or version",
    """
The node type (or that version of it) is not in the node catalog of the n8n version toolkiln
targets (docs/n8n-catalog.md). Check the spelling (`n8n-nodes-base.slack`, not `slack`) and
use a version the catalog lists.

    node "Notify" type "n8n-nodes-base.slak" version 2.2 {}    # error: unknown type
    node "Notify" type "n8n-nodes-base.slack" version 2.2 {}   # fixed
""",
)

INVALID_WIRING = _register(
    "E0713",
    "invalid-wiring",
    "Invalid wiring",
    """
An `after` clause names a step that does not exist, an output the step does not have (an
`if` has output 0 for true and 1 for false; a `switch` one per case, then its `else`), or an
input the step does not have (only a `merge` has more than input 0). A `merge` must directly
follow the `if` or `switch` whose branches it joins, unless it says `after`.

    after check[2]                # error: an if has outputs 0 and 1
    after check[1]                # fixed
""",
)

UNKNOWN_PARAMETER = _register(
    "E0714",
    "unknown-parameter",
    "Parameter the node does not accept",
    """
A generic `node` step sets a parameter that its node type, at that version, does not have
(per the node catalog). n8n would ignore it silently, which usually hides a typo or a
parameter from another version.

    node "Notify" type "n8n-nodes-base.noOp" version 1 {"colour": "red"}   # error
""",
)

NO_SUCH_FIELD = _register(
    "E0720",
    "no-such-field",
    "Step does not set that field",
    """
An expression reads `step.field`, but the `set` step `step` sets no field of that name, so n8n
would read `undefined`. Read one of the fields the step sets (the hint lists them). Fields of
the trigger's data (`body.x`) and of `http` and generic node answers are known only at run
time and are not checked.

    set priced { total = body.qty * body.price }
    set label { text = priced.totl }        # error: no field `totl`
    set label { text = priced.total }       # fixed
""",
)

# --- workflow templates -------------------------------------------------------------------
# Raised by toolkiln.templates.render (and `toolkiln templates`) before anything is compiled.

UNKNOWN_TEMPLATE = _register(
    "E0801",
    "unknown-template",
    "Unknown template",
    """
No template has this slug. `toolkiln templates list` (or `toolkiln.templates.list()`) shows
the templates shipped with toolkiln.

    toolkiln templates render lead-follow-up     # error: no such template
    toolkiln templates render lead-followup      # fixed
""",
)

MISSING_TEMPLATE_PARAMETER = _register(
    "E0802",
    "missing-template-parameter",
    "Template parameter not given",
    """
The template declares a parameter without a default, so rendering needs a value for it.
`toolkiln templates show SLUG` lists the parameters, their types and defaults.

    toolkiln templates render order-status-notify                          # error: no crm_url
    toolkiln templates render order-status-notify --set crm_url=https://crm.example.com/api
""",
)

UNKNOWN_TEMPLATE_PARAMETER = _register(
    "E0803",
    "unknown-template-parameter",
    "Unknown template parameter",
    """
The template has no parameter of this name; a value for it would be ignored, which usually
hides a typo.

    toolkiln templates render daily-summary --set send_time=07:30    # error
    toolkiln templates render daily-summary --set send_at=07:30      # fixed
""",
)

TEMPLATE_PARAMETER_TYPE = _register(
    "E0804",
    "template-parameter-type",
    "Template parameter of the wrong type",
    """
The value does not fit the parameter's type: `string` (any text), `url` (an http or https
base URL without a query, fragment, spaces, quotes or braces), `time` ("HH:MM" on a 24-hour
clock), `timezone` (an IANA name such as "Europe/Madrid"), `integer` (whole number, as a
number or as digits), `credential` (the name of an n8n credential: one line, at most 128
characters), `path` (a webhook path such as "/orders").

    --set send_at=9am              # error: not HH:MM
    --set send_at=09:00            # fixed
""",
)

INVALID_TEMPLATE_FILE = _register(
    "E0805",
    "invalid-template-file",
    "Invalid template file",
    """
A template file is a header (`template "Title"`, `description "..."`, one
`param NAME: TYPE [= DEFAULT] "what it is"` line per parameter), a line `---`, then workflow
DSL in which `${NAME}` stands for a parameter's value (`$$` is a literal `$`). Every
placeholder names a declared parameter, every parameter is used, and every default fits its
type.

    param days: integer = "three" "Days"     # error: the default is not an integer
    param days: integer = 3 "Days"           # fixed
""",
)

UNCHECKED_NODE_TYPE = _register(
    "W0715",
    "unchecked-node-type",
    "Node type the catalog cannot check",
    """
The node comes from a package the node catalog does not describe (a community node such as
`n8n-nodes-evolution-api.evolutionApi`, or a LangChain node `@n8n/n8n-nodes-langchain.agent`),
so its version and parameters are not checked. Make sure the package is installed on the n8n
server that runs the workflow.

    node "Send" type "n8n-nodes-evolution-api.evolutionApi" version 1 {}   # warning
""",
)

NODE_NOT_IN_CATALOG = _register(
    "W0716",
    "node-not-in-catalog",
    "Node type or version unknown to the catalog",
    """
An imported n8n workflow uses a node type, or a typeVersion of it, that the node catalog of the
n8n version toolkiln targets does not have: it may come from a newer n8n, or the type may be
misspelt. The workflow still imports and exports unchanged; the n8n server it is deployed to
must know the node.

    {"name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 9}    # warning
""",
)

NODE_PARAMETER_UNKNOWN = _register(
    "W0717",
    "node-parameter-unknown",
    "Parameter unknown to the catalog",
    """
A node of an imported n8n workflow sets a top-level parameter that its type, at that
typeVersion, does not have in the node catalog. n8n ignores such a parameter; it is usually
left over from another version of the node, or misspelt.

    {"type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {"colour": "red"}}   # warning
""",
)

DANGLING_CONNECTION = _register(
    "E0718",
    "dangling-connection",
    "Connection to or from a missing node",
    """
A connection of an n8n workflow starts at or leads to a node name that is not in `nodes`, or
uses an output or input the node does not have (an IF has outputs 0 and 1). n8n drops such a
connection, so the data never arrives where the workflow says it goes. Rename the connection
to the node's current name, or delete it.

    "connections": {"Webhook": {"main": [[{"node": "Sett", "type": "main", "index": 0}]]}}
    # error: there is no node "Sett" (the node is called "Set")
""",
)

UNREACHABLE_NODE = _register(
    "W0719",
    "unreachable-node",
    "Node no trigger reaches",
    """
No chain of connections leads from a trigger to this node, so n8n never runs it. Sticky notes,
triggers and nodes without a main input (the tools and models an AI agent uses) are exempt.
Connect the node or delete it.

    {"name": "Left over", "type": "n8n-nodes-base.set", ...}    # warning: nothing leads to it
""",
)

UNWRAPPED_EXPRESSION = _register(
    "W0725",
    "unwrapped-expression",
    "Expression without the leading `=`",
    """
A parameter value contains `{{ ... }}` but does not start with `=`, so n8n treats it as plain
text and sends the braces literally. n8n evaluates a parameter only when its value starts
with `=`.

    "text": "Hello {{ $json.name }}"       # warning: sent as written
    "text": "=Hello {{ $json.name }}"      # fixed
""",
)

LITERAL_SECRET = _register(
    "E0721",
    "literal-secret",
    "Secret written into the workflow",
    """
A parameter holds what looks like a credential in clear text: a bearer token, an API key such
as `sk-...`, or a literal value of a field named like a password, API key, token or secret.
Anyone who can read the workflow (or its export) can read the secret. Store it as an n8n
credential and select the credential on the node, or read it from an expression.

    "headerParameters": {"parameters": [{"name": "Authorization", "value": "Bearer eyJhbGciOi..."}]}
    # error: use an HTTP Header Auth credential instead
""",
)

DUPLICATE_NODE_NAME = _register(
    "E0722",
    "duplicate-node-name",
    "Two nodes with one name",
    """
Two nodes of an n8n workflow have the same name. Connections name their nodes, so n8n cannot
tell which one a connection means. Rename one of them (and its connections).

    {"name": "Set", ...}, {"name": "Set", ...}      # error
""",
)

NODE_CYCLE = _register(
    "W0723",
    "node-cycle",
    "Nodes feed each other in a loop",
    """
The connections of an n8n workflow form a loop that does not pass through a Loop Over Items
node (`n8n-nodes-base.splitInBatches`). n8n runs it, but it stops only if a node on the loop
(an IF, say) eventually sends no items back; check that it does.

    A -> B -> A       # warning
""",
)

NOT_A_WORKFLOW = _register(
    "E0724",
    "not-a-workflow",
    "Not an n8n workflow",
    """
The input is not an n8n workflow: not JSON, not a JSON object, without a `nodes` list, or with
a node that has no name, type or numeric typeVersion. Export the workflow from the n8n editor
(Download) or read it with the n8n API.

    [{"name": "Webhook"}]        # error: a list, not a workflow object
""",
)

# --- model replies and examples -----------------------------------------------------------

NO_TOOL_IN_REPLY = _register(
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

TRUNCATED_REPLY = _register(
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

NOT_JSON = _register(
    "E0603",
    "not-json",
    "JavaScript or Python where JSON belongs",
    """
The definition uses a value or a syntax that JavaScript or Python accept and JSON does not:
`undefined`, `NaN`, `Infinity`, `True`/`False`/`None`, single-quoted or backtick strings,
unquoted keys, functions. Each would change meaning if toolkiln guessed, so none is repaired.
(Comments, trailing commas, fences and prose are removed: they cannot change meaning.)

    {"default": undefined, 'op': 'math'}      # error
    {"op": "math"}                            # fixed: leave the field out, quote with "
""",
)

SEVERAL_TOOLS_IN_REPLY = _register(
    "E0604",
    "several-tools-in-reply",
    "More than one tool in the reply",
    """
The reply holds two or more different definitions (two fenced blocks, say, a first and a
corrected version). toolkiln does not choose one: answer with exactly one definition.
""",
)

REPLY_TOO_LARGE = _register(
    "E0605",
    "reply-too-large",
    "The reply is too large to hold a tool",
    """
The reply is longer than a reply holding a tool can be (524,288 characters, twice the 256 KB
a registered tool may have). It is refused before it is searched. Answer with the definition
only, and keep large data in tables.
""",
)

TOO_FEW_EXAMPLES = _register(
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

INVALID_EXAMPLE = _register(
    "E0610",
    "invalid-example",
    "An example is malformed",
    """
`examples` is a list of objects `{"args": {...}, "expect": value}`: `args` maps parameter
names to JSON values, `expect` is the JSON value the tool must return for them (`null`
included). Examples belong to compute tools: a workflow has side effects, so it is not run
before it is approved.

    "examples": [{"input": {"x": 1}, "output": 2}]       # error
    "examples": [{"args": {"x": 1}, "expect": 2}]        # fixed
""",
)

EXAMPLE_FAILED = _register(
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

EXAMPLE_RAISED = _register(
    "E0612",
    "example-raised",
    "An example's run fails",
    """
Run with the example's arguments, the tool stopped with a run-time error (a division by
zero, a bad argument, a budget exceeded...). The message gives the arguments and the error
with its own code. An example shows what the tool returns; write the logic so that it does.
""",
)

# --- server: requests and auth --------------------------------------------------------------
# The `type` and `code` of the problem+json bodies of `toolkiln serve` (src/toolkiln/server/).

MISSING_TOKEN = _register(
    "R0501",
    "missing-token",
    "No bearer token",
    """
Every route of `toolkiln serve` but `GET /health` needs a token, sent as
`Authorization: Bearer <token>`. The answer is 401 with `WWW-Authenticate: Bearer`.
Create one with `toolkiln tokens create NAME --scope read|run|write|admin`.

    curl http://127.0.0.1:8765/api/v1/tools                               # error
    curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8765/api/v1/tools   # fixed
""",
)

INVALID_TOKEN = _register(
    "R0502",
    "invalid-token",
    "Unknown or revoked token",
    """
The bearer token is not one the server knows: mistyped, from another registry folder, or
revoked (`toolkiln tokens revoke NAME` takes effect at once, on every server). The answer is
401. Tokens are stored only as their SHA-256, so a lost token cannot be shown again: create
a new one.
""",
)

INSUFFICIENT_SCOPE = _register(
    "R0503",
    "insufficient-scope",
    "Token scope too narrow",
    """
The token is valid but its scope does not allow the route (403). Scopes include the ones
before them: `read` (list, show, export, check), `run` (execute and test tools), `write`
(create, change, delete, enable, disable, roll back, deploy), `admin` (approve, reject,
manage tokens). Use a token with a wider scope.
""",
)

RATE_LIMITED = _register(
    "R0504",
    "rate-limited",
    "Too many requests",
    """
The token sent more requests than the server's rate limit allows (`toolkiln serve
--rate-limit`, 600 a minute by default, counted per token). The answer is 429 with a
`Retry-After` header giving the seconds to wait.
""",
)

REQUEST_TOO_LARGE = _register(
    "R0505",
    "request-too-large",
    "Request body too large",
    """
The request body is larger than the server accepts (`toolkiln serve --max-body-bytes`,
1 MiB by default). The server stops reading at the limit and answers 413. A tool
definition may be at most 256 KB anyway (E0401).
""",
)

INVALID_BODY = _register(
    "R0506",
    "invalid-body",
    "Request does not match the API",
    """
The request's body, query or path does not have the shape the route takes: not JSON, a
missing or unknown field, a wrong type, a value out of range. The answer is 422 and each
diagnostic's `path` names the field (`body.args`, `query.limit`). The OpenAPI document
(`GET /openapi.json`) gives every route's shape.

    {"arguments": {"x": 1}}     # error: execute takes `args`
    {"args": {"x": 1}}          # fixed
""",
)

NO_SUCH_ROUTE = _register(
    "R0507",
    "no-such-route",
    "No such route",
    """
No route has this path (404), or the path does not take this method (405). The routes
are listed in docs/server.md and in `GET /openapi.json`; the toolkiln API is under
`/api/v1`, the seed-compatible one under `/api/tools`.
""",
)

INTERNAL_ERROR = _register(
    "R0508",
    "internal-error",
    "Internal server error",
    """
The server failed in a way it does not expect (a bug). The answer is 500 with no stack
trace; the server's log has the details. Please report it with the request that caused it.
""",
)

TOKEN_EXISTS = _register(
    "R0509",
    "token-exists",
    "Token name taken",
    """
A token of that name exists already. Token names identify tokens in audit lines, so each
is used once at a time: revoke the old token first, or choose another name.
""",
)

TOKEN_NOT_FOUND = _register(
    "R0510",
    "token-not-found",
    "No such token",
    """
No token has that name. `toolkiln tokens list` (or `GET /api/v1/tokens`) shows them.
""",
)

TOKEN_NAME_INVALID = _register(
    "R0511",
    "invalid-token-name",
    "Invalid token name or scope",
    """
A token name is 1 to 64 letters, digits, `_`, `.` or `-`, starting with a letter or digit;
a scope is `read`, `run`, `write` or `admin`.

    toolkiln tokens create "my token" --scope run     # error: a space
    toolkiln tokens create ci-runner --scope run      # fixed
""",
)

TOKEN_STORE_ERROR = _register(
    "R0512",
    "token-store-error",
    "Token file unusable",
    """
The server's token file (`<registry>/.server/tokens.json`) cannot be read or written: it
was edited by hand into something that is not the file toolkiln writes, its folder is not
writable, or its lock was held for more than 10 seconds. Fix or delete the file (then create
the tokens again).
""",
)

# --- prompted tool calls ------------------------------------------------------------------

TOOL_CALL_SYNTAX = _register(
    "E0901",
    "tool-call-syntax",
    "A prompted tool call does not parse",
    """
A ```tool block in a model's reply holds calls written `return name(arguments);`, whose
arguments are JavaScript-like literals: strings in "double", 'single' or `backtick` quotes
(no ${interpolation}), numbers, true, false, null, [arrays] and {objects} with quoted or bare
keys. The message names what was found and where; nothing of the reply was run.

    return wget(https://example.com, 5000);       # error: the address is not quoted
    return wget("https://example.com", 5000);     # fixed
""",
)

TOOL_CALL_TOO_LARGE = _register(
    "E0902",
    "tool-call-too-large",
    "A prompted tool call is too large",
    """
A tool block is longer than its limit, nests its arguments deeper than 200 levels, or a reply
holds more calls than one reply may make. The block is refused before it is parsed further,
so a runaway reply costs no time. Send smaller arguments, or fewer calls at a time.

    return lookup([[[[[[ ... 10,000 levels ... ]]]]]]);     # error
""",
)

UNKNOWN_PROMPTED_TOOL = _register(
    "E0903",
    "unknown-prompted-tool",
    "A prompted call names a tool that was not offered",
    """
The call names a function that is not among the tools of the system prompt. Tool names are
case-sensitive; the hint names the closest one.

    return wgett("https://example.com", 5000);    # error: did you mean `wget`?
""",
)

PROMPTED_TOOL_ARGUMENTS = _register(
    "E0904",
    "prompted-tool-arguments",
    "A prompted call has the wrong arguments",
    """
Arguments are given in the order of the tool's signature, as many as it declares; an
optional one may be left out at the end or given as null. Each must have the declared type.

    return wget("https://example.com");           # error: timeoutMs is missing
    return wget("https://example.com", 5000);     # fixed
""",
)

NO_TOOL_CALL = _register(
    "E0905",
    "no-tool-call",
    "The reply neither calls a tool nor finishes",
    """
In a prompted-tool conversation every reply calls at least one tool in a ```tool block; the
conversation ends through the built-in `finalResponse()`, whose result says how to write the
final answer. A reply of prose alone is sent back with this diagnostic.

    The weather is sunny.                         # error: call finalResponse() first
""",
)

INVALID_FINAL_ANSWER = _register(
    "E0906",
    "invalid-final-answer",
    "The final answer is not the JSON asked for",
    """
After `finalResponse()`, the next reply is the final answer: one JSON value (in a ```json
block or alone) that matches the response format the result of `finalResponse()` gave. The
message says where it differs; nothing is guessed or completed.

    {answer: "sunny"}                             # error: JSON keys need double quotes
    {"answer": "sunny"}                           # fixed
""",
)

# --- executables and sandbox ---------------------------------------------------------------
# The codes of `toolkiln.executables` (src/toolkiln/executables/) and `toolkiln trust`.

SANDBOX_UNAVAILABLE = _register(
    "R0601",
    "sandbox-unavailable",
    "The bubblewrap sandbox cannot run",
    """
An executable tool was to run under bubblewrap (`sandbox="bubblewrap"`, the default), but
`bwrap` is not installed or cannot create its namespaces here. Nothing ran. Install it
(`apt-get install bubblewrap`, or `bash scripts/sandbox-install.sh` in a checkout). A tool
you wrote yourself may run without namespaces only when you ask for it by name:

    run_program(program, "run", policy=SandboxPolicy())                 # error: no bwrap
    run_program(program, "run", policy=SandboxPolicy(sandbox="none"))   # your choice, said aloud
""",
)

UNTRUSTED_EXECUTABLE = _register(
    "R0602",
    "untrusted-executable",
    "Executable not trusted",
    """
A file in a project's tool folder (`./toolkiln-tools`) is executed, even to read its
description, only once you have trusted that folder, and only while the file is the one you
trusted (the same SHA-256). The file is new, changed, or its folder was never trusted.
Read it, then trust the folder again:

    toolkiln trust ./toolkiln-tools
""",
)

INVALID_TOOL_ARGUMENTS = _register(
    "R0603",
    "invalid-tool-arguments",
    "Arguments do not match the tool's input schema",
    """
The arguments of an executable tool are checked against the `input_schema` of its
description before anything runs. They must be a JSON object that the schema accepts, at most
64 KiB as JSON. The message names the property and the rule it broke.

    {"city": 12}        # error: 12 is not of type 'string'
    {"city": "Lyon"}    # fixed
""",
)

BAD_TOOL_DESCRIPTION = _register(
    "R0604",
    "bad-tool-description",
    "The tool's description is not valid",
    """
`TOOL description` must print one JSON object with `name` (the file's name without its
extension), `description` (text) and `input_schema` (a valid JSON Schema of an object), and
exit 0 within the time limit. What it printed is not that; the message says what is wrong.

    {"name": "hello", "description": "Greets someone.",
     "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}}}
""",
)

EXECUTABLE_NOT_FOUND = _register(
    "R0605",
    "executable-not-found",
    "No executable tool by that name",
    """
No executable file of that name is in the tool folders: `$TOOLKILN_HOME/tools` (yours) and
`./toolkiln-tools` (the project's). A tool's name is its file's name without the extension;
the file must be executable (`chmod +x`). A model sees it as `custom_tool_<name>`. The
same code is given for a tool file that cannot be read, or is larger than 64 MiB.
""",
)

TRUST_STORE_ERROR = _register(
    "R0606",
    "trust-store-error",
    "The trusted folders cannot be read or changed",
    """
`toolkiln trust` keeps the folders you trusted, with the SHA-256 of each file, in
`$TOOLKILN_HOME/trusted-folders.json` (mode 0600). The folder to trust does not exist or is not
a folder, or that file cannot be read, parsed or written. Nothing was trusted. A damaged file
can be removed: every project folder is then untrusted until you trust it again.
""",
)

INVALID_SANDBOX_POLICY = _register(
    "R0607",
    "invalid-sandbox-policy",
    "Invalid sandbox settings",
    """
A sandbox setting is out of range: the sandbox is `bubblewrap` or `none`; a time limit is
more than 0 and at most 3600 seconds; memory, processes, file size and the output cap are
positive whole numbers; an environment name is letters, digits and `_`; a path to bind is
absolute. A program's name (it becomes a file name in the sandbox) is letters, digits, `_`,
`.` and `-`, not starting with `.` or `-`.
""",
)
