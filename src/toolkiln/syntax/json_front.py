"""The JSON front end: the ComputeLogic format LLMs are prompted with -> Program.

    {"steps": [{"op": "math", "expression": E, "output": NAME}, ...]}
    {"name", "description", "parameters": {p: {type, description?, default?}}, "logic", ...}

Every problem is reported with its JSON path (`steps[1].then[0].expression`), and all of
them are collected: one pass finds every missing field, unknown op and bad expression.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal
from typing import Any, TypeVar, cast

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex, Span, json_path
from toolkiln.ast.types import ANY, DECLARABLE, OBJECT, STRING, STRING_FORMATS, Type, not_null, or_null, record_of
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, Fix
from toolkiln.diagnostics.source import Source
from toolkiln.semantics.numbers import from_float
from toolkiln.syntax.expressions import ParseContext, parse_expression, parse_template
from toolkiln.syntax.json_document import (
    FIELD_ALIASES,
    Aliases,
    Path,
    is_nullable,
    json_type,
    literal_shape,
    program_kind_hint,
    shape_problem,
    shorten,
    shown_value,
    structural_span,
    unknown_field,
    unknown_op,
    with_lark,
)
from toolkiln.syntax.limits import (
    MAX_DEPTH,
    MAX_LITERAL_DIGITS,
    MAX_LITERAL_ITEMS,
    MAX_SOURCE_TOKENS,
    literal_too_large,
    too_many_tokens,
)
from toolkiln.syntax.strings import (
    LONE_SURROGATE,
    LONE_SURROGATE_HINT,
    lone_surrogate_at,
)
from toolkiln.syntax.words import RESERVED, RISK_LEVELS, TOOL_NAME

MAX_STEPS = 100_000
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

STEP_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # op: (required fields, optional fields), besides "op" itself
    "math": (frozenset({"expression", "output"}), frozenset()),
    "lookup": (frozenset({"table", "key", "output"}), frozenset({"default"})),
    "format": (frozenset({"template", "output"}), frozenset()),
    "call": (frozenset({"tool", "output"}), frozenset({"args"})),
    "condition": (frozenset({"if", "then"}), frozenset({"else"})),
    "return": (frozenset({"value"}), frozenset()),
}
DEFINITION_FIELDS = (frozenset({"name", "description", "logic"}), frozenset({"parameters", "riskLevel", "tables"}))
PARAMETER_FIELDS = (
    frozenset({"type"}),
    frozenset({"description", "default", "items", "properties", "required", "format"}),
)
TABLE_FIELDS = (frozenset({"type"}), frozenset({"description", "items", "properties", "required"}))

# Declarations and programs are made from parts checked or built here (names, strings, types,
# risk levels, nodes): they are not validated again.
_program, _param, _table = n.Program, n.Param, n.TableDecl
# A literal's value is converted by `_literal` (a Decimal, a bool, an exact str): made without
# validating, like the parsers' nodes (its first validation would build every expression's
# schema, 20 ms; issue 34).
_null, _bool, _number = n.NullLit, n.BoolLit, n.NumberLit
_string, _list = n.StringLit, n.ListExpr

S = TypeVar("S", bound=n.Node)


class JsonFrontEnd:
    def __init__(self, scan_surrogates: bool = True) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.source = Source()
        self.step_count = 0
        self.scan_surrogates = scan_surrogates  # False: the JSON text was seen to hold none

    # --- reporting ------------------------------------------------------------------------

    def report(self, code: codes.Code, message: str, path: Path, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic.of(code, message, structural_span(path), hint))

    def fields(
        self, obj: Any, path: Path, spec: tuple[frozenset[str], frozenset[str]], what: str, aliases: Aliases = None
    ) -> dict[str, Any] | None:
        """Check an object's fields against (required, optional); report every problem.
        `aliases`: the fields models name otherwise (a step's), renamed by a certain fix."""
        if not isinstance(obj, dict):
            self.report(codes.WRONG_JSON_TYPE, f"{what} must be an object, not {json_type(obj)}", path)
            return None
        required, optional = spec
        ok = True
        for key in sorted(required - obj.keys()):
            fields = ", ".join([*sorted(required), *(f"{o} (optional)" for o in sorted(optional))])
            self.report(
                codes.MISSING_FIELD,
                f"{what} is missing the field `{key}`",
                path,
                hint=f"{what} has the fields: {fields}",
            )
            ok = False
        for key in obj.keys() - required - optional - {"op"}:
            self.diagnostics.append(unknown_field(obj, key, path, spec, what, aliases))
            ok = False
        return obj if ok else None

    # --- values ---------------------------------------------------------------------------

    def name(self, value: Any, path: Path, *, tool: bool = False) -> str | None:
        if not isinstance(value, str):
            self.report(codes.WRONG_JSON_TYPE, f"a name must be a string, not {json_type(value)}", path)
            return None
        pattern = TOOL_NAME if tool else NAME_PATTERN
        if not pattern.fullmatch(value) or value in RESERVED:
            reason = "is a reserved word" if value in RESERVED else "is not a valid name"
            rule = "^[a-z][a-z0-9_]{0,63}$" if tool else "letters, digits and _, not starting with a digit"
            self.report(codes.INVALID_NAME, f"`{shorten(value)}` {reason}", path, hint=f"use {rule}")
            return None
        return value

    def string(self, value: Any, path: Path, what: str) -> str | None:
        if not isinstance(value, str):
            self.report(codes.WRONG_JSON_TYPE, f"{what} must be a string, not {json_type(value)}", path)
            return None
        return value

    def expression(self, value: Any, path: Path) -> n.Expr | None:
        """An expression string; a bare JSON number, boolean or null stands for itself, a JSON
        object is a record of expressions (see `record`)."""
        if isinstance(value, dict):
            return self.record(value, path)
        if not isinstance(value, str):
            literal = self.literal(value, path)
            if literal is None:
                self.report(codes.WRONG_JSON_TYPE, f"an expression must be a string, not {json_type(value)}", path)
            return literal
        if self.too_many_tokens(value, path, "an expression"):
            return None
        where = json_path(path)
        self.source.fragments[where] = value
        ctx = ParseContext(LineIndex(value), 0, where, fallback=with_lark)
        expr = parse_expression(value, ctx)
        self.diagnostics.extend(ctx.diagnostics)
        return None if ctx.diagnostics else expr

    def record(self, value: dict[str, Any], path: Path, *, measured: bool = False) -> n.RecordExpr | None:
        """A JSON object where an expression goes: a record whose values are written as the
        field itself is, so a string is an expression (`{"net": "net"}` reads the variable
        `net`; text is `"\"EUR\""`): a misread value is then a compile error, never a silent
        string. Too deep or too large is E0402 or E0405, found before anything is built."""
        if not measured:
            depth, items = literal_shape(value)
            if depth > MAX_DEPTH:
                self.report(codes.TOO_DEEP, f"record nested deeper than {MAX_DEPTH} levels", path)
                return None
            if items > MAX_LITERAL_ITEMS:
                self.report(codes.LITERAL_TOO_LONG, f"record has more than {MAX_LITERAL_ITEMS:,} fields in all", path)
                return None
        entries: list[n.RecordEntry] = []
        for key, item in value.items():
            where = path + (key,)
            expr = self.record(item, where, measured=True) if isinstance(item, dict) else self.expression(item, where)
            if expr is not None:
                entries.append(n.RecordEntry(key=key, value=expr, span=structural_span(where)))
        return n.RecordExpr(entries=tuple(entries), span=structural_span(path)) if len(entries) == len(value) else None

    def too_many_tokens(self, text: str, path: Path, what: str) -> bool:
        """Refuses text of more than MAX_SOURCE_TOKENS tokens, as the text DSL refuses a source:
        a flat chain is not deep, so only its length bounds the work of every pass over it."""
        if len(text) <= MAX_SOURCE_TOKENS or not too_many_tokens(text):  # (fewer characters: fewer tokens)
            return False
        self.report(
            codes.TOO_MANY_TOKENS,
            f"{what} has more than {MAX_SOURCE_TOKENS:,} tokens",
            path,
            hint="split it into steps of intermediate results",
        )
        return True

    def literal(self, value: Any, path: Path) -> n.Expr | None:
        """A JSON constant as a literal node (parameter defaults, bare numbers); a list nested
        deeper than MAX_DEPTH or with more than MAX_LITERAL_ITEMS items in all is refused
        (E0402, E0405) before it is built."""
        if isinstance(value, (list, dict)):
            depth, items = literal_shape(value)
            if depth > MAX_DEPTH:
                self.report(codes.TOO_DEEP, f"list or record nested deeper than {MAX_DEPTH} levels", path)
                return None
            if items > MAX_LITERAL_ITEMS:
                self.report(
                    codes.LITERAL_TOO_LONG,
                    f"list literal has more than {MAX_LITERAL_ITEMS:,} items",
                    path,
                    hint="large constant data belongs in a table",
                )
                return None
        return self._literal(value, path)

    def _literal(self, value: Any, path: Path) -> n.Expr | None:
        span = structural_span(path)
        if value is None:
            return _null(span=span)
        if isinstance(value, bool):
            return _bool(value=value, span=span)
        if isinstance(value, (int, Decimal, float)):
            number = from_float(value) if isinstance(value, float) else Decimal(value)
            if not number.is_finite() or literal_too_large(number):
                self.report(
                    codes.LITERAL_TOO_LARGE, f"number has more than {MAX_LITERAL_DIGITS} digits or is not finite", path
                )
                return _number(value=Decimal(0), span=span)
            return _number(value=number, span=span)
        if isinstance(value, str):
            return _string(value=str(value), span=span)
        if isinstance(value, list):
            items = [self._literal(item, path + (i,)) for i, item in enumerate(value)]
            return None if None in items else _list(items=tuple(cast(list[n.Expr], items)), span=span)
        if isinstance(value, dict):
            values = {key: self._literal(item, path + (key,)) for key, item in value.items()}
            if None in values.values():
                return None
            entries = (
                n.RecordEntry(key=key, value=cast(n.Expr, item), span=structural_span(path + (key,)))
                for key, item in values.items()
            )
            return n.RecordExpr(entries=tuple(entries), span=span)
        return None

    def type_(self, value: Any, items: Any, path: Path, depth: int = 0, record: Any = None) -> Type:
        """The type of a JSON Schema: `type`, the `items` of an array and (in `record`, the
        schema itself) the `properties` and `required` of an object."""
        if depth > MAX_DEPTH:
            self.report(codes.TOO_DEEP, f"`items` nested deeper than {MAX_DEPTH} levels", path)
            return ANY
        if is_nullable(value):  # ["string", "null"], as JSON Schema writes `string?`
            return or_null(self.type_(next(v for v in value if v != "null"), items, path, depth, record))
        if value == "object" and isinstance(record, dict) and "properties" in record:
            return self.record_type(record, path, depth)
        if value not in DECLARABLE:
            # (the other languages' idioms load for this error only: 2-3 ms of every start-up)
            from toolkiln.syntax.foreign import TYPE_ALIASES

            alias = TYPE_ALIASES.get(value) if isinstance(value, str) else None
            span = structural_span(path + ("type",))
            self.diagnostics.append(
                Diagnostic.of(
                    codes.INVALID_DECLARATION,
                    f"unknown type {shown_value(value)}",
                    span,
                    hint=f'write "{alias}"'
                    if alias
                    else f'types are: {", ".join(DECLARABLE)}; a type or null is ["T", "null"]',
                    input=shown_value(value),
                    expected=tuple(DECLARABLE),
                    fix=None if alias is None else Fix.replace(span, json.dumps(alias)),
                )
            )
            return ANY
        if value == "array":
            item_type = ANY
            if isinstance(items, dict) and "type" in items:
                item_type = self.type_(items["type"], items.get("items"), path + ("items",), depth + 1, items)
            elif items is not None:
                self.report(codes.INVALID_DECLARATION, "`items` must be an object with a `type`", path + ("items",))
            return Type(name="array", items=item_type)
        if items is not None:
            self.report(codes.INVALID_DECLARATION, f"type `{value}` takes no `items`", path + ("items",))
        return Type(name=value)

    def record_type(self, schema: dict[str, Any], path: Path, depth: int) -> Type:
        """`{"type": "object", "properties": {...}, "required": [...]}`: a record type. A field
        that `required` (when given) leaves out may be missing, so it is nullable."""
        properties, required = schema["properties"], schema.get("required")
        if not isinstance(properties, dict):
            self.report(codes.INVALID_DECLARATION, "`properties` must be an object", path + ("properties",))
            return OBJECT
        if required is not None and (
            not isinstance(required, list) or not all(isinstance(key, str) and key in properties for key in required)
        ):
            self.report(
                codes.INVALID_DECLARATION,
                "`required` must be a list of the names in `properties`",
                path + ("required",),
                hint=f"the properties: {', '.join(map(str, properties))}",
            )
            required = None
        fields = []
        for key, spec in properties.items():
            where = path + ("properties", key)
            if not isinstance(spec, dict) or "type" not in spec:
                self.report(codes.INVALID_DECLARATION, f"property `{shorten(key)}` needs a `type`", where)
                continue
            type_ = self.formatted(self.type_(spec["type"], spec.get("items"), where, depth + 1, spec), spec, where)
            fields.append((key, type_ if required is None or key in required else or_null(type_)))
        return record_of(tuple(fields))

    def formatted(self, type_: Type, spec: dict[str, Any], path: Path) -> Type:
        """A string parameter with JSON Schema's `format` `date` or `date-time` is a date or
        datetime, as published schemas write them; any other `format` is refused."""
        if "format" not in spec:
            return type_
        wanted = spec["format"]
        meant = next((Type(name=name) for name, fmt in STRING_FORMATS.items() if fmt == wanted), None)
        if meant is None or not_null(type_) != STRING:
            formats = " or ".join(f'"{fmt}"' for fmt in STRING_FORMATS.values())
            self.report(
                codes.INVALID_DECLARATION,
                f"`format` {shown_value(wanted)} on a parameter of type {type_}",
                path + ("format",),
                hint=f'a "string" parameter may have the format {formats} (or say "type": "date")',
            )
            return type_
        return or_null(meant) if type_.nullable else meant

    # --- steps ----------------------------------------------------------------------------

    def steps(self, value: Any, path: Path, depth: int) -> tuple[n.Step, ...]:
        if not isinstance(value, list):
            self.report(codes.WRONG_JSON_TYPE, f"steps must be a list, not {json_type(value)}", path)
            return ()
        if depth > MAX_DEPTH:
            self.report(codes.TOO_DEEP, f"conditions nested deeper than {MAX_DEPTH} levels", path)
            return ()
        self.step_count += len(value)
        if self.step_count > MAX_STEPS:
            self.report(codes.SOURCE_TOO_LARGE, f"more than {MAX_STEPS:,} steps", path)
            return ()
        built = (self.step(item, path + (i,), depth) for i, item in enumerate(value))
        return tuple(step for step in built if step is not None)

    def step(self, obj: Any, path: Path, depth: int) -> n.Step | None:
        if not isinstance(obj, dict):
            self.report(codes.WRONG_JSON_TYPE, f"a step must be an object, not {json_type(obj)}", path)
            return None
        op = obj.get("op")
        if not isinstance(op, str) or op not in STEP_FIELDS:  # a list or object is unhashable
            if "op" not in obj:
                self.report(
                    codes.MISSING_FIELD,
                    "step is missing the field `op`",
                    path,
                    hint=f"op is one of: {', '.join(STEP_FIELDS)}",
                )
            else:
                self.diagnostics.append(unknown_op(obj, structural_span(path + ("op",)), STEP_FIELDS))
            return None
        fields = self.fields(obj, path, STEP_FIELDS[op], f"`{op}` step", FIELD_ALIASES.get(op))
        if fields is None:
            return None
        span = structural_span(path)
        match op:
            case "math":
                return self._built(
                    n.Assign,
                    span,
                    target=self.name(obj["output"], path + ("output",)),
                    value=self.expression(obj["expression"], path + ("expression",)),
                )
            case "lookup":
                default = obj.get("default")
                return self._built(
                    n.Lookup,
                    span,
                    target=self.name(obj["output"], path + ("output",)),
                    table=self.name(obj["table"], path + ("table",)),
                    key=self.expression(obj["key"], path + ("key",)),
                    default=None if "default" not in obj else self.expression(default, path + ("default",)),
                    optional={"default"},
                )
            case "format":
                return self._built(
                    n.Format,
                    span,
                    target=self.name(obj["output"], path + ("output",)),
                    template=self.template(obj["template"], path + ("template",)),
                )
            case "call":
                return self._built(
                    n.CallTool,
                    span,
                    target=self.name(obj["output"], path + ("output",)),
                    tool=self.name(obj["tool"], path + ("tool",), tool=True),
                    args=self.tool_args(obj.get("args", {}), path + ("args",)),
                )
            case "condition":
                return self._built(
                    n.If,
                    span,
                    condition=self.expression(obj["if"], path + ("if",)),
                    then=self.steps(obj["then"], path + ("then",), depth + 1),
                    otherwise=self.steps(obj.get("else", []), path + ("else",), depth + 1),
                )
            case "return":
                return self._built(n.Return, span, value=self.expression(obj["value"], path + ("value",)))
        raise AssertionError(op)

    def _built(
        self, node: type[S], span: Span, optional: frozenset[str] | set[str] = frozenset(), **parts: Any
    ) -> S | None:
        """The node, or None when a required part failed (its diagnostic is already out). Its
        parts were all checked or built here, so it is not validated again."""
        for key, value in parts.items():
            if value is None and key not in optional:
                return None
        return node(span=span, **parts)

    def tool_args(self, obj: Any, path: Path) -> tuple[n.ToolArg, ...] | None:
        """The `args` of a call step: an object of argument name -> expression."""
        if not isinstance(obj, dict):
            self.report(
                codes.WRONG_JSON_TYPE,
                f"args must be an object of name -> expression, not {json_type(obj)}",
                path,
                hint='write "args": {"weight_kg": "w * 2"}',
            )
            return None
        args = []
        for key, value in obj.items():
            name = self.name(key, path + (key,))
            expr = self.expression(value, path + (key,))
            if name is not None and expr is not None:
                args.append(n.ToolArg(name=name, value=expr, span=structural_span(path + (key,))))
        return tuple(args) if len(args) == len(obj) else None

    def template(self, value: Any, path: Path) -> n.Template | None:
        text = self.string(value, path, "a template")
        if text is None or self.too_many_tokens(text, path, "a template"):
            return None
        where = json_path(path)
        self.source.fragments[where] = text
        ctx = ParseContext(LineIndex(text), 0, where, fallback=with_lark)
        template = parse_template(text, ctx, escaped=False)
        self.diagnostics.extend(ctx.diagnostics)
        return template

    # --- documents ------------------------------------------------------------------------

    def logic(self, obj: Any, path: Path) -> tuple[n.Step, ...] | None:
        fields = self.fields(obj, path, (frozenset({"steps"}), frozenset()), "logic")
        return None if fields is None else self.steps(fields["steps"], path + ("steps",), 0)

    def document(self, obj: Any) -> n.Program | None:
        surrogate = lone_surrogate_at(obj) if self.scan_surrogates else None
        if surrogate is not None:
            self.report(codes.INVALID_ESCAPE, LONE_SURROGATE, surrogate, hint=LONE_SURROGATE_HINT)
            return None
        if not isinstance(obj, dict):
            self.report(
                codes.WRONG_JSON_TYPE,
                f"the document must be a JSON object, not {json_type(obj)}",
                (),
                hint='write {"steps": [...]} or a tool definition with "name" and "logic"',
            )
            return None
        if "steps" in obj and "logic" not in obj:
            steps = self.logic(obj, ())
            return None if steps is None else _program(steps=steps, span=structural_span(()))
        return self.definition(obj)

    def definition(self, obj: dict[str, Any]) -> n.Program | None:
        fields = self.fields(obj, (), DEFINITION_FIELDS, "tool definition")
        program = program_kind_hint(obj)
        if program is not None:  # the missing `logic` says what the definition lacks instead
            self.diagnostics = [
                replace(d, hint=program) if d.code == codes.MISSING_FIELD.code and "`logic`" in d.message else d
                for d in self.diagnostics
            ]
        name = self.name(obj.get("name"), ("name",), tool=True) if "name" in obj else None
        description = self.string(obj["description"], ("description",), "description") if "description" in obj else None
        steps = self.logic(obj["logic"], ("logic",)) if "logic" in obj else None
        # Without a `parameters` key, as in bare logic, the names the logic reads but never
        # assigns are its parameters, inferred by the checker.
        parameters = self.parameters(obj["parameters"]) if "parameters" in obj else None
        tables = self.tables(obj["tables"]) if "tables" in obj else None
        risk = obj.get("riskLevel")
        if risk is not None and risk not in RISK_LEVELS:
            self.report(
                codes.INVALID_DECLARATION,
                f"unknown risk level {shown_value(risk)}",
                ("riskLevel",),
                hint="use low, medium or high",
            )
            risk = None
        if fields is None or name is None or description is None or steps is None:
            return None
        return _program(
            name=name,
            description=description,
            parameters=parameters,
            tables=tables,
            risk_level=risk,
            steps=steps,
            span=structural_span(()),
        )

    def parameters(self, obj: Any) -> tuple[n.Param, ...]:
        if not isinstance(obj, dict):
            self.report(codes.WRONG_JSON_TYPE, f"parameters must be an object, not {json_type(obj)}", ("parameters",))
            return ()
        params = []
        for key, spec in obj.items():
            path: Path = ("parameters", key)
            name = self.name(key, path)
            fields = self.fields(spec, path, PARAMETER_FIELDS, f"parameter `{shorten(str(key))}`")
            if name is None or fields is None:
                continue
            default = None
            if "default" in spec:
                default = self.literal(spec["default"], path + ("default",))
                if default is None:
                    self.report(
                        codes.DEFAULT_TYPE,
                        "a default must be a number, string, boolean, null or list",
                        path + ("default",),
                    )
            description = (
                self.string(spec["description"], path + ("description",), "description")
                if "description" in spec
                else None
            )
            params.append(
                _param(
                    name=name,
                    type=self.formatted(self.type_(spec["type"], spec.get("items"), path, record=spec), spec, path),
                    description=description,
                    default=default,
                    span=structural_span(path),
                )
            )
        return tuple(params)

    def tables(self, obj: Any) -> tuple[n.TableDecl, ...]:
        if not isinstance(obj, dict):
            self.report(codes.WRONG_JSON_TYPE, f"tables must be an object, not {json_type(obj)}", ("tables",))
            return ()
        tables = []
        for key, spec in obj.items():
            path: Path = ("tables", key)
            name = self.name(key, path)
            fields = self.fields(spec, path, TABLE_FIELDS, f"table `{shorten(str(key))}`")
            if name is None or fields is None:
                continue
            description = (
                self.string(spec["description"], path + ("description",), "description")
                if "description" in spec
                else None
            )
            tables.append(
                _table(
                    name=name,
                    type=self.type_(spec["type"], spec.get("items"), path, record=spec),
                    description=description,
                    span=structural_span(path),
                )
            )
        return tuple(tables)


def parse_json_document(obj: Any, *, scan_surrogates: bool = True) -> tuple[n.Program | None, list[Diagnostic], Source]:
    """`scan_surrogates=False` when `obj` was decoded from text that cannot hold a lone
    surrogate (see strings.may_decode_to_surrogate): the walk for one is then skipped."""
    front = JsonFrontEnd(scan_surrogates)
    problem = shape_problem(obj)
    if problem is not None:
        code, message, path = problem
        front.report(code, message, path)
        return None, front.diagnostics, front.source
    program = front.document(obj)
    if front.diagnostics:
        program = None
    return program, front.diagnostics, front.source
