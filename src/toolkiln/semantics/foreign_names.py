"""Names models carry over from other languages (JavaScript, Python, Java, Ruby, spreadsheets),
in one table that the parser's hints (syntax/foreign.py: `name.upper()`), the checker's hint
for an unknown function and its certain fixes (check/) all read.

`SAME_AS_BUILTIN`: a function or method of another language and the builtin that does the
same, the receiver of a method becoming the first argument (`s.toUpperCase()` is `upper(s)`).
`WRITE_INSTEAD`: names with no builtin of their own, and what toolkiln writes instead.
"""

from __future__ import annotations

SAME_AS_BUILTIN: dict[str, str] = {
    # text
    "upper": "upper",
    "uppercase": "upper",
    "toUpperCase": "upper",
    "lower": "lower",
    "lowercase": "lower",
    "toLowerCase": "lower",
    "trim": "trim",
    "strip": "trim",
    "startsWith": "starts_with",
    "startswith": "starts_with",
    "endsWith": "ends_with",
    "endswith": "ends_with",
    "includes": "contains",
    "replace": "replace",
    "replaceAll": "replace",
    "split": "split",
    "capitalize": "capitalize",
    "title": "title",
    "padStart": "pad_left",
    "padEnd": "pad_right",
    # OwnPilot's utils (utils.slugify(text) is slugify(text))
    "slugify": "slugify",
    "camelCase": "camel_case",
    "snakeCase": "snake_case",
    "kebabCase": "kebab_case",
    "truncate": "truncate",
    "countWords": "count_words",
    "removeDiacritics": "remove_diacritics",
    "isJson": "is_json",
    "parseJson": "parse_json",
    "toJson": "to_json",
    "stringify": "to_json",
    "isUuid": "is_uuid",
    "parseCsv": "parse_csv",
    "chunk": "chunk",
    "randomInt": "random_int",
    "randomUUID": "uuid",
    # conversions
    "str": "text",
    "string": "text",
    "String": "text",
    "toString": "text",
    "float": "number",
    "parseFloat": "number",
    "Number": "number",
    # lists and objects
    "length": "len",
    "size": "len",
    "mean": "avg",
    "average": "avg",
    "slice": "slice",
    "get": "get",
    "count": "count",
    "sort": "sort",
}

WRITE_INSTEAD: dict[str, str] = {
    "int": "floor(x) or round(x)",
    "pow": "the ** operator: `a ** b`",
    "ifelse": "`x if condition else y`",
    "if": "`x if condition else y`",
    "concat": "the + operator or a format template",
    "map": "a comprehension: `[x * 2 for x in items]`",
    "filter": "a comprehension with `if`: `[x for x in items if x > 0]`",
    "reduce": "sum(...), count(...), any(...) or all(...) over a comprehension",
    "forEach": "a comprehension: `[f(x) for x in items]`",
    "push": "a new list: `items + [item]`",
    "append": "a new list: `items + [item]`",
    "toFixed": 'a format template: `format "{{x:.2f}}"` (or round(x, 2) for a number)',
    "format": 'a format step: `message = format "Hello {{name}}"`',
}
