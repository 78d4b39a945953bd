"""Hypothesis strategies for toolkiln's property tests.

The centre piece is a generator of *valid* compute programs. It draws a small model of a
program (expressions, steps, an optional tool header) that only uses constructs that
type-check, and renders that one model twice, independently of toolkiln's own printers:

* as the JSON DSL (a dict: `{"steps": [...]}` or a tool definition), and
* as the text DSL (with random but harmless layout: redundant parentheses, extra blank
  lines, `else` on its own line, `else { if ... }` instead of `else if`, comments).

Both renderings must mean the same program, which is what the round-trip properties rely on.
The module also holds fuzz strategies (token soup, JSON-like values, deep nesting) for the
robustness properties.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from toolkiln.semantics.builtins import BUILTINS

# Words that the JSON DSL refuses as names, and the text DSL's keywords.
RESERVED = frozenset(
    {"and", "or", "not", "in", "if", "else", "for", "return", "true", "false", "null", "lookup", "format", "tool"}
)
# Text-DSL words that only mean something in a tool header or a lookup step.
SOFT_KEYWORDS = frozenset({"default", "description", "risk", "table"})

# Binding strength, loosest first, as in grammar/compute.lark (written out here on purpose,
# so that the test printer is independent of toolkiln's printer).
CONDITIONAL, OR, AND, NOT, COMPARE, SUM, TERM, FACTOR, POWER, POSTFIX = range(10)
ARITH_LEVEL = {"+": SUM, "-": SUM, "*": TERM, "/": TERM, "%": TERM}
LOGIC_LEVEL = {"or": OR, "and": AND}
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
ORDER_OPS = ("<", "<=", ">", ">=")
FORMAT_SPECS = (".2f", ".0f", ".1f", ".3f", ",.2f", "f", "%", ".1%", ",", ",f", ".10f")


# --- names ----------------------------------------------------------------------------------


def _ok_name(name: str) -> bool:
    return name not in RESERVED and name not in BUILTINS


_FIRST = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_REST = _FIRST + "0123456789"
identifiers = st.builds(lambda a, b: a + b, st.sampled_from(_FIRST), st.text(alphabet=_REST, max_size=9)).filter(
    _ok_name
)
tool_names = st.builds(
    lambda a, b: a + b, st.sampled_from(_FIRST[:26]), st.text(alphabet=_REST[:26] + "_0123456789", max_size=20)
).filter(_ok_name)


# --- the model ------------------------------------------------------------------------------


@dataclass(frozen=True)
class E:
    """An expression of the model. `kind` is one of: num (value = literal text), int
    (value = int, JSON may write it as a bare number), name, str, bool, neg, pos, not,
    bin (value = operator), cond (args = test, then, otherwise), call (value = function),
    list, record (value = its keys, args = their values), field (value = the name, args =
    the record). `paren` asks for redundant parentheses around it."""

    kind: str
    value: Any = None
    args: tuple[E, ...] = ()
    paren: bool = False


@dataclass(frozen=True)
class Hole:
    expr: E
    spec: str | None


@dataclass(frozen=True)
class Step:
    """kind: math (target, expr), format (target, parts), lookup (target, table, key,
    default), cond (expr, then, otherwise, style), return (expr)."""

    kind: str
    target: str | None = None
    expr: E | None = None
    parts: tuple[str | Hole, ...] = ()
    table: str | None = None
    default: E | None = None
    then: tuple[Step, ...] = ()
    otherwise: tuple[Step, ...] = ()
    style: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # "number" or "integer"
    default: str | None = None  # a literal's text (non-negative, canonical)
    description: str | None = None


@dataclass(frozen=True)
class Header:
    name: str
    description: str
    params: tuple[Param, ...]
    risk: str | None = None


@dataclass
class ProgramModel:
    steps: tuple[Step, ...]
    header: Header | None = None
    params: dict[str, str] = field(default_factory=dict)  # name -> "number" | "integer"
    comments: bool = False  # whether the text rendering carries comments

    def json(self, *, bare_ints: bool = True) -> dict[str, Any]:
        return to_json_dsl(self, bare_ints=bare_ints)

    def text(self) -> str:
        return to_text_dsl(self)


# --- rendering: expressions -----------------------------------------------------------------


def quote_double(value: str) -> str:
    """A double-quoted literal: escapes only what the grammar requires (and CR)."""
    body = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{body}"'


def quote_in_hole(value: str) -> str:
    """A literal inside a template hole of the text DSL: single quotes, and no raw `"`,
    which would end the template string around it."""
    body = (
        value.replace("\\", "\\\\")
        .replace("'", "\\'")
        .replace('"', "\\u0022")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
    )
    return f"'{body}'"


def render_expr(e: E, quote=quote_double) -> str:
    text, _ = _render(e, quote)
    return f"({text})" if e.paren else text


def _child(e: E, minimum: int, quote) -> str:
    text, level = _render(e, quote)
    return f"({text})" if e.paren or level < minimum else text


def _render(e: E, q) -> tuple[str, int]:
    match e.kind:
        case "num":
            return e.value, POSTFIX
        case "int":
            return str(e.value), POSTFIX
        case "name":
            return e.value, POSTFIX
        case "str":
            return q(e.value), POSTFIX
        case "bool":
            return ("true" if e.value else "false"), POSTFIX
        case "neg" | "pos":
            return ("-" if e.kind == "neg" else "+") + _child(e.args[0], FACTOR, q), FACTOR
        case "not":
            return "not " + _child(e.args[0], NOT, q), NOT
        case "bin":
            op, (left, right) = e.value, e.args
            if op == "**":
                return f"{_child(left, POSTFIX, q)} ** {_child(right, FACTOR, q)}", POWER
            if op in ARITH_LEVEL:
                level = ARITH_LEVEL[op]
                return f"{_child(left, level, q)} {op} {_child(right, level + 1, q)}", level
            if op in LOGIC_LEVEL:
                level = LOGIC_LEVEL[op]
                return f"{_child(left, level, q)} {op} {_child(right, level + 1, q)}", level
            return f"{_child(left, SUM, q)} {op} {_child(right, SUM, q)}", COMPARE
        case "cond":
            test, then, otherwise = e.args
            return (
                f"{_child(then, OR, q)} if {_child(test, OR, q)} else {_child(otherwise, CONDITIONAL, q)}",
                CONDITIONAL,
            )
        case "call":
            return f"{e.value}({', '.join(_child(a, CONDITIONAL, q) for a in e.args)})", POSTFIX
        case "list":
            return f"[{', '.join(_child(a, CONDITIONAL, q) for a in e.args)}]", POSTFIX
        case "record":
            fields = ", ".join(f"{q(key)}: {_child(a, CONDITIONAL, q)}" for key, a in zip(e.value, e.args))
            return "{" + fields + "}", POSTFIX
        case "field":
            return f"{_child(e.args[0], POSTFIX, q)}.{e.value}", POSTFIX
    raise AssertionError(e.kind)


def json_expression(e: E, bare_ints: bool) -> Any:
    """An expression for the JSON DSL: a string, or a bare JSON number for a plain integer."""
    if bare_ints and e.kind == "int" and not e.paren:
        return e.value
    return render_expr(e)


# --- rendering: JSON DSL --------------------------------------------------------------------


def _template_json(parts: tuple[str | Hole, ...]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Hole):
            spec = f":{part.spec}" if part.spec else ""
            out.append("{{" + render_expr(part.expr) + spec + "}}")
        else:
            out.append(part)
    return "".join(out)


def _step_json(step: Step, bare_ints: bool) -> dict[str, Any]:
    match step.kind:
        case "math":
            return {"op": "math", "expression": json_expression(step.expr, bare_ints), "output": step.target}
        case "format":
            return {"op": "format", "template": _template_json(step.parts), "output": step.target}
        case "lookup":
            out = {
                "op": "lookup",
                "table": step.table,
                "key": json_expression(step.expr, bare_ints),
                "output": step.target,
            }
            if step.default is not None:
                out["default"] = json_expression(step.default, bare_ints)
            return out
        case "cond":
            out = {
                "op": "condition",
                "if": render_expr(step.expr),
                "then": [_step_json(s, bare_ints) for s in step.then],
            }
            if step.otherwise or step.style.get("empty_else"):
                out["else"] = [_step_json(s, bare_ints) for s in step.otherwise]
            return out
        case "return":
            return {"op": "return", "value": json_expression(step.expr, bare_ints)}
    raise AssertionError(step.kind)


def _default_json(text: str) -> Any:
    value = Decimal(text)
    return int(value) if value == value.to_integral_value() and "." not in text else value


def to_json_dsl(model: ProgramModel, *, bare_ints: bool = True) -> dict[str, Any]:
    logic = {"steps": [_step_json(s, bare_ints) for s in model.steps]}
    header = model.header
    if header is None:
        return logic
    params: dict[str, Any] = {}
    for p in header.params:
        spec: dict[str, Any] = {"type": p.type}
        if p.description is not None:
            spec["description"] = p.description
        if p.default is not None:
            spec["default"] = _default_json(p.default)
        params[p.name] = spec
    out: dict[str, Any] = {"name": header.name, "description": header.description, "parameters": params, "logic": logic}
    if header.risk is not None:
        out["riskLevel"] = header.risk
    return out


def json_text(data: Any, indent: str | None = None) -> str:
    """JSON text for a JSON-DSL dict, with Decimals written exactly (json.dumps cannot)."""

    def write(value: Any, level: int) -> str:
        if isinstance(value, dict):
            items = [f"{json.dumps(k, ensure_ascii=False)}: {write(v, level + 1)}" for k, v in value.items()]
            return "{" + _join(items, level) + "}"
        if isinstance(value, list):
            return "[" + _join([write(v, level + 1) for v in value], level) + "]"
        if isinstance(value, Decimal):
            return str(value)
        return json.dumps(value, ensure_ascii=False)

    def _join(items: list[str], level: int) -> str:
        if indent is None or not items:
            return ", ".join(items)
        pad = "\n" + indent * (level + 1)
        return pad + ("," + pad).join(items) + "\n" + indent * level

    return write(data, 0)


# --- rendering: text DSL --------------------------------------------------------------------


def _template_text(parts: tuple[str | Hole, ...]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Hole):
            spec = f":{part.spec}" if part.spec else ""
            out.append("{{" + render_expr(part.expr, quote_in_hole) + spec + "}}")
        else:
            out.append(quote_double(part)[1:-1])
    return '"' + "".join(out) + '"'


class _TextWriter:
    def __init__(self, indent: str, comments: bool) -> None:
        self.indent = indent
        self.comments = comments
        self.lines: list[str] = []
        self.counter = 0

    def comment(self) -> str:
        self.counter += 1
        return f"# note {self.counter}"

    def add(self, depth: int, text: str, style: dict) -> None:
        pad = self.indent * depth
        if self.comments and style.get("comment_before"):
            self.lines.append(pad + self.comment())
        if style.get("blank_before"):
            self.lines.append("")
        if self.comments and style.get("comment_after"):
            text += "  " + self.comment()
        self.lines.append(pad + text)

    def block(self, steps: tuple[Step, ...], depth: int) -> None:
        for step in steps:
            self.step(step, depth)

    def step(self, step: Step, depth: int) -> None:
        match step.kind:
            case "math":
                self.add(depth, f"{step.target} = {render_expr(step.expr)}", step.style)
            case "format":
                self.add(depth, f"{step.target} = format {_template_text(step.parts)}", step.style)
            case "lookup":
                text = f"{step.target} = lookup {step.table}[{render_expr(step.expr)}]"
                if step.default is not None:
                    text += f" default {render_expr(step.default)}"
                self.add(depth, text, step.style)
            case "return":
                self.add(depth, f"return {render_expr(step.expr)}", step.style)
            case "cond":
                self.add(depth, f"if {render_expr(step.expr)} {{", step.style)
                self.if_rest(step, depth)
            case _:
                raise AssertionError(step.kind)

    def if_rest(self, step: Step, depth: int) -> None:
        pad = self.indent * depth
        self.block(step.then, depth + 1)
        if not step.otherwise and not step.style.get("empty_else"):
            self.lines.append(pad + "}")
            return
        if step.style.get("else_newline"):
            self.lines.append(pad + "}")
            opener = pad + "else"
        else:
            opener = pad + "} else"
        only = step.otherwise[0] if len(step.otherwise) == 1 else None
        if only is not None and only.kind == "cond" and step.style.get("else_if", True):
            self.lines.append(f"{opener} if {render_expr(only.expr)} {{")
            self.if_rest(only, depth)
            return
        self.lines.append(opener + " {")
        self.block(step.otherwise, depth + 1)
        self.lines.append(pad + "}")


def _param_text(p: Param) -> str:
    text = f"{p.name}: {p.type}"
    if p.default is not None:
        text += f" = {p.default}"
    if p.description is not None:
        text += f" {quote_double(p.description)}"
    return text


def to_text_dsl(model: ProgramModel) -> str:
    writer = _TextWriter("  ", model.comments)
    header = model.header
    if header is None:
        writer.block(model.steps, 0)
    else:
        params = header.params
        if len(params) <= 2:
            writer.lines.append(f"tool {header.name}({', '.join(_param_text(p) for p in params)})")
        else:
            writer.lines.append(f"tool {header.name}(")
            writer.lines.extend(f"  {_param_text(p)}," for p in params)
            writer.lines.append(")")
        writer.lines.append(f"description {quote_double(header.description)}")
        if header.risk is not None:
            writer.lines.append(f"risk {header.risk}")
        writer.lines.append("{")
        writer.block(model.steps, 1)
        writer.lines.append("}")
    return "\n".join(writer.lines) + "\n"


# --- generation -----------------------------------------------------------------------------
#
# The generators are plain functions of `draw` that only draw from module-level strategies:
# building fresh strategy objects on every draw made generation ten times slower.

NUM, STR, BOOL, ANYV = "number", "string", "boolean", "any"
RECORD_KEYS = ("net", "vat", "gross", "in", "a_1")


@dataclass
class Env:
    """What a step may read: variable -> type ("number", "string", "boolean", "any")."""

    vars: dict[str, str]
    used: set[str]  # every name taken so far (never reused as a target)
    tables: tuple[str, ...] = ("rates", "prices")

    def of(self, *types: str) -> list[str]:
        return sorted(name for name, t in self.vars.items() if t in types)

    def child(self) -> Env:
        return Env(dict(self.vars), self.used, self.tables)


def pick(draw, options):
    return options[draw(st.integers(0, len(options) - 1))]


def chance(draw, one_in: int) -> bool:
    return draw(st.integers(0, one_in - 1)) == 0


_digits = st.text(alphabet="0123456789", min_size=1, max_size=6)
literal_texts = st.one_of(
    st.integers(0, 10**6).map(str),
    st.builds(lambda a, b: f"{a}.{b}", _digits, _digits),
    st.builds(
        lambda a, e, s, x: f"{a}{e}{s}{x}",
        _digits,
        st.sampled_from("eE"),
        st.sampled_from(["", "+", "-"]),
        st.integers(0, 9),
    ),
)
"""Non-negative number literals as the text DSL writes them (values within the limits)."""

text_values = st.text(max_size=8)
template_texts = st.text(max_size=10)


def gen_number(draw, env: Env, depth: int) -> E:
    paren = chance(draw, 5)
    if depth <= 0 or chance(draw, 4):
        names = env.of(NUM, ANYV)
        choice = draw(st.integers(0, 2 if names else 1))
        if choice == 0:
            return E("num", draw(literal_texts), paren=paren)
        if choice == 1:
            return E("int", draw(st.integers(0, 1000)), paren=paren)
        return E("name", pick(draw, names), paren=paren)
    sub = lambda: gen_number(draw, env, depth - 1)  # noqa: E731
    choice = draw(st.integers(0, 10))
    if choice <= 3:
        return E("bin", pick(draw, ("+", "-", "*", "/", "%")), (sub(), sub()), paren)
    if choice == 10:  # a field of a record literal: `{"net": ..., "vat": ...}.vat`
        keys = tuple(draw(st.lists(st.sampled_from(RECORD_KEYS), min_size=1, max_size=3, unique=True)))
        record = E("record", keys, tuple(sub() for _ in keys), chance(draw, 3))
        return E("field", pick(draw, keys), (record,), paren)
    if choice == 4:
        return E("bin", "**", (sub(), E("int", draw(st.integers(0, 3)))), paren)
    if choice == 5:
        return E(pick(draw, ("neg", "pos")), None, (sub(),), paren)
    if choice == 6:
        return E("cond", None, (gen_bool(draw, env, depth - 1), sub(), sub()), paren)
    if choice == 7:
        function = pick(draw, ("abs", "floor", "ceil", "round", "min", "max", "len"))
        if function == "round":
            return E("call", "round", (sub(), E("int", draw(st.integers(0, 4)))), paren)
        if function in ("min", "max"):
            return E("call", function, tuple(sub() for _ in range(draw(st.integers(1, 3)))), paren)
        if function == "len":
            return E("call", "len", (gen_string(draw, env, depth - 1),), paren)
        return E("call", function, (sub(),), paren)
    if choice == 8:
        items = tuple(sub() for _ in range(draw(st.integers(1, 3))))
        return E("call", pick(draw, ("min", "max")), (E("list", None, items),), paren)
    return E("bin", pick(draw, ("+", "*")), (sub(), sub()), paren)


def gen_string(draw, env: Env, depth: int) -> E:
    names = env.of(STR)
    if depth <= 0 or chance(draw, 3):
        if names and draw(st.booleans()):
            return E("name", pick(draw, names))
        return E("str", draw(text_values))
    sub = lambda: gen_string(draw, env, depth - 1)  # noqa: E731
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return E("bin", "+", (sub(), sub()))
    if choice == 1:
        return E("call", pick(draw, ("upper", "lower", "trim")), (sub(),))
    if choice == 2:
        return E("call", "text", (gen_number(draw, env, depth - 1),))
    return E("cond", None, (gen_bool(draw, env, depth - 1), sub(), sub()))


def gen_bool(draw, env: Env, depth: int) -> E:
    choice = draw(st.integers(0, 7))
    if depth <= 0 or choice <= 2:
        flags = env.of(BOOL)
        if flags and draw(st.booleans()):
            return E("name", pick(draw, flags))
        if chance(draw, 6):
            return E("bool", draw(st.booleans()))
        below = max(depth - 1, 0)
        return E("bin", pick(draw, COMPARE_OPS), (gen_number(draw, env, below), gen_number(draw, env, below)))
    sub = lambda: gen_bool(draw, env, depth - 1)  # noqa: E731
    if choice == 3:
        return E("not", None, (sub(),))
    if choice == 4:
        return E("bin", pick(draw, ("and", "or")), (sub(), sub()), chance(draw, 2))
    if choice == 5:
        return E(
            "bin",
            pick(draw, ("==", "!=", "<", ">=")),
            (gen_string(draw, env, depth - 1), gen_string(draw, env, depth - 1)),
        )
    if choice == 6:
        items = tuple(gen_number(draw, env, 0) for _ in range(draw(st.integers(0, 3))))
        return E("bin", pick(draw, ("in", "not in")), (gen_number(draw, env, depth - 1), E("list", None, items)))
    return E("bin", pick(draw, ("==", "!=")), (sub(), sub()))


def _style(bits: int) -> dict:
    return {
        "blank_before": bits & 7 == 0,
        "comment_before": bits >> 3 & 3 == 0,
        "comment_after": bits >> 5 & 3 == 0,
        "else_newline": bool(bits >> 7 & 1),
        "else_if": bool(bits >> 8 & 1),
        "empty_else": bits >> 9 & 7 == 0,
    }


_styles = st.integers(0, 2**12 - 1).map(_style)


def step_style() -> st.SearchStrategy[dict]:
    """Layout choices for one step, drawn as one integer (cheap to generate and shrink)."""
    return _styles


GENERATORS = {NUM: gen_number, STR: gen_string, BOOL: gen_bool}
VALUE_TYPES = (NUM, NUM, STR, BOOL)


def gen_value(draw, env: Env, depth: int) -> tuple[str, E]:
    kind = pick(draw, VALUE_TYPES)
    return kind, GENERATORS[kind](draw, env, depth)


def gen_template(draw, env: Env) -> tuple[str | Hole, ...]:
    """Text and holes. Text never holds `{{`, and never ends in `{` right before a hole."""
    parts: list[str | Hole] = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            text = (parts.pop() if parts and isinstance(parts[-1], str) else "") + draw(template_texts)
            if "{{" in text:
                text = text.replace("{", "(")
            if text:
                parts.append(text)
        elif not (parts and isinstance(parts[-1], str) and parts[-1].endswith("{")):
            if draw(st.booleans()):
                parts.append(Hole(gen_number(draw, env, 1), pick(draw, (None,) + FORMAT_SPECS)))
            else:
                parts.append(Hole(gen_value(draw, env, 1)[1], None))
    return tuple(parts)


def fresh_name(draw, env: Env) -> str:
    while True:
        name = draw(identifiers)
        if name not in env.used:
            env.used.add(name)
            return name


def gen_block(draw, env: Env, depth: int, *, must_return: bool, max_steps: int) -> tuple[Step, ...]:
    steps: list[Step] = []
    kinds = ("math", "math", "format", "lookup") + (("cond", "cond") if depth < 2 else ())
    for _ in range(draw(st.integers(0, max_steps))):
        style = draw(step_style())
        kind = pick(draw, kinds)
        if kind == "math":
            value_type, expr = gen_value(draw, env, 2)
            target = fresh_name(draw, env)
            steps.append(Step("math", target=target, expr=expr, style=style))
            env.vars[target] = value_type
        elif kind == "format":
            parts = gen_template(draw, env)
            target = fresh_name(draw, env)
            steps.append(Step("format", target=target, parts=parts, style=style))
            env.vars[target] = STR
        elif kind == "lookup":
            key = gen_number(draw, env, 1)
            default = gen_number(draw, env, 1) if draw(st.booleans()) else None
            target = fresh_name(draw, env)
            steps.append(
                Step("lookup", target=target, expr=key, table=pick(draw, env.tables), default=default, style=style)
            )
            env.vars[target] = ANYV
        else:
            test = gen_bool(draw, env, 2)
            then = gen_block(draw, env.child(), depth + 1, must_return=False, max_steps=2)
            otherwise: tuple[Step, ...] = ()
            shape = draw(st.integers(0, 2))
            if shape == 1:
                otherwise = gen_block(draw, env.child(), depth + 1, must_return=False, max_steps=2)
            elif shape == 2:
                # an `else if` chain link (its branches may not nest further conditions)
                inner = Step(
                    "cond",
                    expr=gen_bool(draw, env, 1),
                    then=gen_block(draw, env.child(), 2, must_return=False, max_steps=1),
                    otherwise=gen_block(draw, env.child(), 2, must_return=False, max_steps=1),
                    style=draw(step_style()),
                )
                otherwise = (inner,)
            steps.append(Step("cond", expr=test, then=then, otherwise=otherwise, style=style))
    if must_return or draw(st.booleans()):
        steps.append(Step("return", expr=gen_value(draw, env, 2)[1], style=draw(step_style())))
    return tuple(steps)


_default_decimals = st.builds(
    lambda a, b: a + b, st.text(alphabet="0123456789", max_size=3), st.sampled_from("123456789")
)


def gen_default(draw) -> str:
    """A default that survives a trip through a JSON float unchanged (the separate property
    on defaults in test_roundtrip.py covers arbitrary ones)."""
    whole = draw(st.integers(0, 10**6))
    if draw(st.booleans()):
        return str(whole)
    decimals = draw(_default_decimals)
    return f"{whole or 1}.{decimals}"


_descriptions = st.none() | st.text(max_size=12)
_risks = st.none() | st.sampled_from(["low", "medium", "high"])


@st.composite
def programs(draw, *, definitions: bool = True, comments: bool = False, max_steps: int = 4) -> ProgramModel:
    """A valid program: bare logic (parameters inferred) or a tool with declared parameters."""
    is_tool = definitions and draw(st.booleans())
    env = Env({}, {"rates", "prices"})
    params: dict[str, str] = {}
    for _ in range(draw(st.integers(0, 4))):
        name = fresh_name(draw, env)
        params[name] = pick(draw, ("number", "integer")) if is_tool else "number"
        env.vars[name] = NUM
    steps = gen_block(draw, env, 0, must_return=True, max_steps=max_steps)
    header = None
    if is_tool:
        header_params = []
        for name, type_ in params.items():
            default = gen_default(draw) if draw(st.booleans()) else None
            if default is not None and type_ == "integer":
                default = default.split(".")[0]
            header_params.append(Param(name, type_, default, draw(_descriptions)))
        header = Header(
            fresh_name_from(draw, tool_names, env), draw(st.text(max_size=20)), tuple(header_params), draw(_risks)
        )
    return ProgramModel(steps, header, params, comments and draw(st.booleans()))


def fresh_name_from(draw, names: st.SearchStrategy[str], env: Env) -> str:
    while True:
        name = draw(names)
        if name not in env.used:
            env.used.add(name)
            return name


def arguments_for(tool) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for a compiled tool: small decimals for numbers, integers for integers."""
    props = tool.parameters["properties"]
    required = set(tool.parameters["required"])
    fields = {}
    for name, schema in props.items():
        if schema.get("type") == "integer":
            value = st.integers(-50, 50).map(Decimal)
        else:
            value = st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False)
        fields[name] = value if name in required else st.none() | value
    return st.fixed_dictionaries(fields).map(lambda d: {k: v for k, v in d.items() if v is not None})


# --- fuzz -----------------------------------------------------------------------------------

TOKENS = (
    "tool",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "if",
    "else",
    "return",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "^",
    "&&",
    "||",
    "!",
    "?",
    ";",
    ":",
    ",",
    ".",
    "format",
    "lookup",
    "default",
    "description",
    "risk",
    "table",
    "low",
    "number",
    "array",
    "not",
    "in",
    "and",
    "or",
    "for",
    "true",
    "false",
    "null",
    "x",
    "y",
    "_a1",
    "round",
    "len",
    "sum",
    "1",
    "0",
    "1.5",
    "1e3",
    "1E+999",
    "9" * 120,
    '"s"',
    "'s'",
    '"{{x}}"',
    '"{{x:.2f}}"',
    '"{{"',
    '"{{}}"',
    '"{{x:zz}}"',
    '"\\q"',
    '"\\u00"',
    '"',
    "'",
    "\\",
    "#c",
    "\n",
    "\r\n",
    "\t",
    " ",
    "\x00",
    "é",
    "\u2028",
    "\ufeff",
    "🙂",
    "{{",
    "}}",
)


@st.composite
def token_soup(draw) -> str:
    tokens = draw(st.lists(st.sampled_from(TOKENS), max_size=40))
    separator = draw(st.sampled_from(["", " ", "\n"]))
    return separator.join(tokens)


@st.composite
def deep_nesting(draw) -> str:
    """Deeply nested brackets, unary operators, powers, blocks or lists, balanced or not."""
    depth = draw(st.integers(1, 600))
    kind = draw(st.sampled_from(["paren", "list", "neg", "not", "pow", "block", "call", "index", "ternary"]))
    balanced = draw(st.booleans())
    match kind:
        case "paren":
            body = "(" * depth + "1" + (")" * depth if balanced else "")
        case "list":
            body = "[" * depth + "1" + ("]" * depth if balanced else "")
        case "neg":
            body = "-" * depth + "1"
        case "not":
            body = "not " * depth + "true"
        case "pow":
            body = "**".join(["2"] * depth)
        case "call":
            body = "abs(" * depth + "1" + (")" * depth if balanced else "")
        case "index":
            body = "x" + "[0]" * depth
        case "ternary":
            body = "1 if true else " * depth + "0"
        case _:
            opening = "if true {\n" * depth
            return opening + "return 1\n" + ("}\n" * depth if balanced else "")
    return draw(st.sampled_from(["return ", "x = ", ""])) + body + "\n"


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=25,
)

expression_texts = st.one_of(
    token_soup(),
    st.text(max_size=20),
    st.sampled_from(["1 + 2", "x * 2", "x", "1 / 0", "round(x, 2)", "len(s)", "{{x}}", "a if b else c", ""]),
)
field_values = st.one_of(expression_texts, json_values)
OPS = ("math", "format", "lookup", "condition", "return", "Math", "loop", None, 3)


@st.composite
def step_like(draw, depth: int = 0) -> dict:
    step: dict[str, Any] = {}
    op = draw(st.sampled_from(OPS))
    if op is not None:
        step["op"] = op
    fields = ["expression", "output", "template", "table", "key", "default", "if", "then", "else", "value", "extra"]
    for key in draw(st.lists(st.sampled_from(fields), max_size=5, unique=True)):
        if key in ("then", "else") and depth < 3:
            step[key] = draw(st.lists(step_like(depth + 1), max_size=3) | json_values)
        elif key == "output":
            step[key] = draw(identifiers | json_values)
        else:
            step[key] = draw(field_values)
    return step


@st.composite
def program_like(draw) -> dict:
    """Dicts shaped roughly like JSON-DSL documents: most fields right, some wrong."""
    steps = draw(st.lists(step_like(), max_size=5) | json_values)
    if draw(st.booleans()):
        return {"steps": steps}
    doc: dict[str, Any] = {}
    for key in draw(
        st.lists(
            st.sampled_from(["name", "description", "parameters", "logic", "riskLevel", "tables", "steps", "bogus"]),
            max_size=6,
            unique=True,
        )
    ):
        if key == "logic":
            doc[key] = draw(st.just({"steps": steps}) | json_values)
        elif key == "parameters":
            doc[key] = draw(
                st.dictionaries(
                    identifiers | st.text(max_size=4),
                    st.fixed_dictionaries(
                        {
                            "type": st.sampled_from(
                                ["number", "integer", "string", "boolean", "array", "object", "any", "float", 3]
                            )
                        },
                        optional={
                            "default": json_values,
                            "description": json_values,
                            "items": json_values | st.just({"type": "number"}),
                            "extra": json_values,
                        },
                    )
                    | json_values,
                    max_size=3,
                )
                | json_values
            )
        elif key == "tables":
            doc[key] = draw(
                st.dictionaries(
                    identifiers,
                    st.fixed_dictionaries(
                        {"type": st.sampled_from(["number", "string", "object", "nope"])},
                        optional={"description": json_values},
                    )
                    | json_values,
                    max_size=2,
                )
                | json_values
            )
        elif key == "name":
            doc[key] = draw(tool_names | json_values)
        elif key == "riskLevel":
            doc[key] = draw(st.sampled_from(["low", "medium", "high", "extreme"]) | json_values)
        else:
            doc[key] = draw(json_values)
    return doc


def strip_spans(value: Any) -> Any:
    """A node (a dataclass) as plain data without any `span`, to compare ASTs built from
    different sources."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: strip_spans(v) for k, v in value.items() if k != "span"}
    if isinstance(value, (list, tuple)):
        return [strip_spans(v) for v in value]
    return value
