"""JsonLogic rules imported as compute tools (E1001-E1005): what the import refuses, and the
failures a rule's JavaScript semantics make at run time."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

JSONLOGIC_UNSUPPORTED = register(
    "E1001",
    "jsonlogic-unsupported-operator",
    "A JsonLogic operator the import cannot express",
    """
The rule uses an operator that has no faithful translation into a compute tool: an unknown
operator, or a `reduce` whose
body reads the accumulator other than in one of the folds the import knows (`+`, `*`, `min`,
`max`, `cat` of the accumulator and an expression of the current item). The import names the operator and where
it is in the rule, and changes nothing silently:

    {"reduce": [{"var": "xs"}, {"-": [{"var": "accumulator"}, {"var": "current"}]}, 0]}
    # error: reduce's body must be a fold of the accumulator with +, *, min, max or cat

Rewrite that part of the rule (a `-` fold is `initial - sum`), or write the tool in the
compute language.
""",
)

JSONLOGIC_INVALID_ARGUMENTS = register(
    "E1002",
    "jsonlogic-invalid-arguments",
    "A JsonLogic operator given arguments it does not take",
    """
An operator got arguments JsonLogic engines refuse with "Invalid Arguments": a control or
comparison operator whose arguments are not written as a list (`{"if": 5}`, `{"<": [1]}`),
`max` or `min` of anything but numbers, `%` or `/` with too few arguments. Found in the rule
when the arguments are written out, at run time when they come from the data:

    {"max": ["1", 2]}          # error: max takes numbers only
    {"max": [1, 2]}            # fine: 2
""",
)

JSONLOGIC_NAN = register(
    "E1003",
    "jsonlogic-nan",
    "A JsonLogic number that is not a number (NaN)",
    """
JavaScript would compute NaN (or an infinity): arithmetic or a loose comparison of text that
is not a numeral, of a list or an object, or a division by zero. JsonLogic engines stop the
rule with the error "NaN"; so does the imported tool:

    {"+": ["Hey", 1]}          # error: "Hey" is not a number
    {"/": [1, 0]}              # error: division by zero
""",
)

JSONLOGIC_THROWN = register(
    "E1004",
    "jsonlogic-thrown",
    "A JsonLogic rule threw an error",
    """
The rule's `throw` operator ran: the tool stops with the error the rule names (its `type`).

    {"if": [{"var": "admin"}, "ok", {"throw": "Not an admin"}]}
""",
)

JSONLOGIC_NOT_A_RULE = register(
    "E1005",
    "jsonlogic-not-a-rule",
    "Input that is not a JsonLogic rule",
    """
The file or value is not a JsonLogic rule: JSON that does not parse, an operator object with
more than one key, a data schema that is not a JSON Schema object, or a rule nested too deep.

    {"==": [1, 1], "!=": [1, 2]}    # error: an operator object has exactly one key
""",
)

JSONLOGIC_NOT_EXPORTABLE = register(
    "E1006",
    "jsonlogic-not-exportable",
    "A tool that does not map onto a JsonLogic rule",
    """
`toolkiln export --to jsonlogic` writes a compute tool as a JsonLogic rule only where every
part of its program means the same in JsonLogic: the builtins an import calls (`js_add`,
`truthy`, `js_var`, ...), conditionals, comprehensions, and operators whose operands' types
make JavaScript's rules needless (`data.age > 18` with `age` a number). Anything else is
named with its place in the tool, and nothing is exported:

    return upper(name)                  # error: upper has no JsonLogic operator
    return js_cat(["Hi ", data.name])   # fine: {"cat": ["Hi ", {"var": "name"}]}
""",
)
