"""Advice on logic as models write it: the warnings for mistakes that still check (a typo
that became a parameter, `${name}` in a template, `.length`), and the certain fixes the
checker's own diagnostics can carry (a misspelt variable, a function named as in another
language, a number added to text).

It runs after the checker, on the program and what the checker found, so the checker
stays about types and flow; every warning here has a code of the hints group (W012x).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import ANY, OBJECT, Type
from toolkiln.ast.visitor import walk
from toolkiln.check.close_names import CloseNames
from toolkiln.check.scope import assigned_names, free_reads
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, Fix
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.foreign_names import SAME_AS_BUILTIN

# Fields models read for a length, from JavaScript (`.length`), Java and Ruby (`.size`).
LENGTH_FIELDS = ("length", "size")
# Function names from other languages with a builtin that does the same, to rename to.
RENAMED_FUNCTIONS = SAME_AS_BUILTIN
# The literals of other languages, read as names: what toolkiln writes for them.
FOREIGN_LITERALS = {
    "None": "null",
    "undefined": "null",
    "nil": "null",
    "NULL": "null",
    "Null": "null",
    "True": "true",
    "TRUE": "true",
    "False": "false",
    "FALSE": "false",
}
# `${name}`, `{name}` and `{name:.2f}` in literal text (a `{{` hole never reaches here). The
# patterns here are text: `re` compiles each when first used and keeps it (semantics/dates.py).
_FOREIGN_HOLE = r"\$?\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(:[^{}]*)?\}"


def advise(
    program: n.Program, diagnostics: list[Diagnostic], inferred: Iterable[str], types: dict[int, Type]
) -> list[Diagnostic]:
    """`diagnostics` with fixes attached where one is certain, and the hints' warnings added.
    The language server runs this on every change: the tree is walked once for all of it, and
    the order of reads (a second walk, per step) is made only when a name may need it."""
    inferred = set(inferred)
    declared = [p.name for p in program.parameters or ()]
    found = _Found(program, {(d.span.path, d.span.start, d.span.end) for d in diagnostics if d.span is not None})
    order = _Order(program, declared)
    known = assigned_names(program) | set(declared) | inferred
    out = [_length_fix(_with_fix(d, found.nodes, order, declared, types), found.fields, types) for d in diagnostics]
    out += _typo_parameters(order, inferred) if inferred else []
    out += _template_braces(found, known)
    out += _length_fields(found.length_reads, types)
    return out


class _Found:
    """What the advice reads of a tree, gathered in one walk: the expression nodes at the
    spans of the diagnostics, the `.length` reads, the texts that may hold braces."""

    def __init__(self, program: n.Program, wanted: set[tuple[str | None, int, int]]) -> None:
        self.nodes: dict[tuple[str | None, int, int], n.Node] = {}  # the outermost node of a span
        self.fields: dict[tuple[str | None, int, int], n.Field_] = {}  # `.length` reads by their target
        self.length_reads: list[n.Field_] = []
        self.texts: list[n.Format | n.StringLit] = []
        self.whole_values: set[int] = set()  # the values of `x = ...` steps
        for node in walk(program):
            span = node.span
            if wanted and isinstance(node, _EXPRESSIONS) and (key := (span.path, span.start, span.end)) in wanted:
                self.nodes.setdefault(key, node)
            if isinstance(node, n.Field_) and node.name in LENGTH_FIELDS:
                target = node.target.span
                self.fields[(target.path, target.start, target.end)] = node
                self.length_reads.append(node)
            elif isinstance(node, (n.Format, n.StringLit)):
                self.texts.append(node)
            elif isinstance(node, n.Assign):
                self.whole_values.add(id(node.value))


# --- warnings -----------------------------------------------------------------------------


class _Order:
    """Which variables are assigned before each read, in the order the steps run, and the
    names close to a name among those (parameters declared first, then the variables). The
    steps are scanned as far as a question needs: the reads of a misspelt name in an early
    step do not wait for the reads of every later step."""

    def __init__(self, program: n.Program, declared: list[str]) -> None:
        self.declared = declared
        self.assigned: list[str] = []  # in order, as far as scanned
        self._reads: list[tuple[n.Name, int]] = []  # a read, and how many were assigned before it
        self._before: dict[int, int] = {}
        self._steps = _in_order(program.steps)
        self._close: CloseNames | None = None  # over the names assigned when it was made
        self._close_covers = 0

    @property
    def reads(self) -> list[tuple[n.Name, int]]:
        """Every read, and how many variables were assigned before it."""
        self._scan_all()
        return self._reads

    def before(self, read: n.Name) -> int:
        """How many variables were assigned before `read` runs (0 for a name that is not a read)."""
        while id(read) not in self._before and self._scan_a_step():
            pass
        return self._before.get(id(read), 0)

    def _scan_all(self) -> None:
        while self._scan_a_step():
            pass

    def _scan_a_step(self) -> bool:
        """Take in the next step as it runs; False once every step is in."""
        scanned = next(self._steps, None)
        if scanned is None:
            return False
        step, step_reads = scanned
        if step_reads is None:
            self.assigned.append(step.target)  # type: ignore[union-attr]  # only assigning steps
        for read in step_reads or ():
            self._reads.append((read, len(self.assigned)))
            self._before[id(read)] = len(self.assigned)
        return True

    def close_to(self, name: str, assigned_before: int) -> list[str]:
        """The closest names to `name` among the variables assigned before a read (and the
        declared parameters)."""
        if self._close is None or self._close_covers < assigned_before:
            if self._close is not None:  # a later read than the first asked: every name, once
                self._scan_all()
            self._close = CloseNames(self.declared + self.assigned)
            self._close_covers = len(self.assigned)
        return self._close.close_to(name, len(self.declared) + assigned_before)


def _typo_parameters(order: _Order, inferred: set[str]) -> list[Diagnostic]:
    """W0120 at each read of an inferred parameter that is one or two edits from a variable
    assigned before it (so that the fix reads a variable that has its value there); W0123
    where it is the literal of another language (`None`)."""
    found = []
    for read, count in order.reads:
        if read.name not in inferred:
            continue
        literal = FOREIGN_LITERALS.get(read.name)
        if literal is not None:
            found.append(
                Diagnostic.of(
                    codes.FOREIGN_LITERAL,
                    f"`{read.name}` is a name here, so it becomes a parameter; the literal is `{literal}`",
                    read.span,
                    hint=f"write `{literal}`",
                    input=read.name,
                    expected=(literal,),
                    fix=Fix.replace(read.span, literal),
                )
            )
            continue
        close = order.close_to(read.name, count)
        if len(close) != 1:
            continue
        found.append(
            Diagnostic.of(
                codes.PARAMETER_TYPO,
                f"`{read.name}` is not assigned, so it becomes a parameter; did you mean `{close[0]}`?",
                read.span,
                hint=f"write `{close[0]}`, or give the parameter a name no variable is close to",
                input=read.name,
                expected=tuple(close),
                fix=Fix.replace(read.span, close[0]),
            )
        )
    return found


def _in_order(steps: tuple[n.Step, ...]) -> Iterator[tuple[n.Step, list[n.Name] | None]]:
    """The steps as they run: (step, the names it reads), then (step, None) once it has
    assigned its target; an `if` reads its condition before either branch runs."""
    stack: list[tuple[n.Step, bool]] = [(step, False) for step in reversed(steps)]
    while stack:
        step, done = stack.pop()
        if done:
            yield step, None
        elif isinstance(step, n.If):
            yield step, list(free_reads(step.condition))
            stack += [(inner, False) for inner in reversed(step.then + step.otherwise)]
        else:
            yield step, list(free_reads(step))
            if isinstance(step, n.ASSIGNING_STEPS):
                stack.append((step, True))


def _template_braces(found: _Found, known: set[str]) -> list[Diagnostic]:
    """W0121 for `${name}` / `{name}` in a format template or a plain string."""
    braces_found = []
    for node in found.texts:
        if isinstance(node, n.Format):
            for part in node.template.parts:
                if isinstance(part, n.TextPart):
                    braces_found += _braces_in(part.text, part.span, known, template=True)
        else:
            braces = _braces_in(node.value, node.span, known, template=False)
            if braces and id(node) in found.whole_values:
                braces[0] = replace(braces[0], fix=_as_format_step(node, known))
            braces_found += braces
    return braces_found


def _as_format_step(string: n.StringLit, known: set[str]) -> Fix | None:
    """`msg = "Hello {name}"` (text DSL) -> `msg = format "Hello {{name}}"`: the string's
    text is copied around its holes, so quotes and escapes stay as written; certain only
    where the source spelt it without escapes (offsets then match the value's)."""
    span = string.span
    if span.path is not None or span.line != span.end_line or span.end - span.start != len(string.value) + 2:
        return None
    pieces: list[str | Span] = ["format "]
    position = 0  # in the value; the source has the opening quote before it
    for match in re.finditer(_FOREIGN_HOLE, string.value):
        if match.group(1) not in known:
            continue
        pieces += [_sub_span(span, position, match.start() + 1), "{{" + match.group(1) + (match.group(2) or "") + "}}"]
        position = match.end() + 1
    pieces.append(_sub_span(span, position, len(string.value) + 2))
    return Fix.replace(span, *pieces)


def _braces_in(text: str, span: Span, known: set[str], *, template: bool) -> list[Diagnostic]:
    found = []
    # A fix needs offsets: only where the source spelt the text as it reads (no escapes).
    exact = template and span.end - span.start == len(text) and span.line > 0
    for match in re.finditer(_FOREIGN_HOLE, text):
        name, spec = match.group(1), match.group(2) or ""
        if name not in known:
            continue
        hole = "{{" + name + spec + "}}"
        where = _sub_span(span, match.start(), match.end()) if exact else span
        if template:
            message = f"`{match.group(0)}` is literal text in a template: holes are written `{hole}`"
            hint = f"write `{hole}`"
        else:
            message = f"`{match.group(0)}` in a string is literal text: a string is not a template"
            hint = f'build the text with a format step: `message = format "... {hole} ..."`'
        found.append(
            Diagnostic.of(
                codes.TEMPLATE_BRACES,
                message,
                where,
                hint=hint,
                input=match.group(0),
                expected=(hole,),
                fix=Fix.replace(where, hole) if exact else None,
            )
        )
    return found


def _sub_span(span: Span, start: int, end: int) -> Span:
    """The part `start:end` of a span that lies on one line (a template's text part)."""
    return replace(
        span,
        start=span.start + start,
        end=span.start + end,
        column=span.column + start,
        end_line=span.line,
        end_column=span.column + end,
    )


def _length_fields(length_reads: list[n.Field_], types: dict[int, Type]) -> list[Diagnostic]:
    """W0122 for `x.length` where x may be anything or an object (a text or list is E0304)."""
    found = []
    for node in length_reads:
        if types.get(id(node.target), ANY) in (ANY, OBJECT):
            found.append(
                Diagnostic.of(
                    codes.LENGTH_FIELD,
                    f"`.{node.name}` reads a field named `{node.name}`; it does not measure a text or a list",
                    node.span,
                    hint="the length of a text or list is len(x)",
                    input=f".{node.name}",
                    expected=("len(x)",),
                    fix=Fix.replace(node.span, "len(", node.target.span, ")"),
                )
            )
    return found


# --- fixes for the checker's diagnostics ---------------------------------------------------


_EXPRESSIONS = (
    n.Name,
    n.Call,
    n.Field_,
    n.Binary,
    n.Unary,
    n.Index,
    n.Conditional,
    n.ListExpr,
    n.Comprehension,
    n.Try,
    *n.LITERALS,
)


def _with_fix(
    d: Diagnostic,
    nodes: dict[tuple[str | None, int, int], n.Node],
    order: _Order,
    declared: list[str],
    types: dict[int, Type],
) -> Diagnostic:
    span = d.span
    node = None if span is None else nodes.get((span.path, span.start, span.end))
    if node is None or span is None or d.fix is not None:
        return d
    update: dict[str, Any] = {}  # fields of the Diagnostic
    if d.code == codes.UNKNOWN_VARIABLE.code and isinstance(node, n.Name):
        before = order.before(node)
        literal = FOREIGN_LITERALS.get(node.name)
        close = [literal] if literal is not None else order.close_to(node.name, before)
        update = {"input": node.name, "expected": tuple(sorted({*declared, *order.assigned[:before]}))}
        if len(close) == 1:
            update["fix"] = Fix.replace(span, close[0])
        if literal is not None:
            update["hint"] = f"the literal is `{literal}`"
    elif d.code == codes.UNKNOWN_FUNCTION.code and isinstance(node, n.Call):
        update = {"input": node.function, "expected": tuple(BUILTINS)}
        renamed = RENAMED_FUNCTIONS.get(node.function) or _only(CloseNames(BUILTINS).close_to(node.function))
        if renamed is not None:
            name_span = _sub_span(span, 0, len(node.function)) if span.line == span.end_line else None
            if name_span is not None:
                update["fix"] = Fix.replace(name_span, renamed)
            update["hint"] = f"use {renamed}: {BUILTINS[renamed].signature}"
    elif (
        d.code in (codes.OPERAND_TYPE.code, codes.PARAMETER_TYPE.code)
        and "`+` on text needs string" in d.message
        and types.get(id(node), ANY).is_numeric
    ):
        update = {"input": str(types[id(node)]), "expected": ("string",)}
        update["fix"] = Fix.replace(span, "text(", span, ")")
    elif d.code in _TYPE_ERRORS and id(node) in types:
        update = {"input": str(types[id(node)]), "expected": _expected_types(d.message)}
    return replace(d, **update) if update else d


# The type errors, whose `input` is the type found and `expected` the types the message names.
_TYPE_ERRORS = frozenset(
    code.code
    for code in (
        codes.OPERAND_TYPE,
        codes.CONDITION_TYPE,
        codes.ARGUMENT_TYPE,
        codes.NO_FIELD,
        codes.NOT_INDEXABLE,
        codes.PARAMETER_TYPE,
        codes.NOT_ITERABLE,
        codes.FORMAT_SPEC_TYPE,
    )
)
# How the checker's messages name what was allowed: "... needs number, but ..." and
# "argument `x` of round must be number or string, not ...".
_NEEDS = r"\bneeds ([^,:]+?), but\b|\bmust be (.+?), not\b"


def _expected_types(message: str) -> tuple[str, ...] | None:
    match = re.search(_NEEDS, message)
    if match is None:
        return None
    return tuple((match.group(1) or match.group(2)).split(" or "))


def _length_fix(
    d: Diagnostic, fields: dict[tuple[str | None, int, int], n.Field_], types: dict[int, Type]
) -> Diagnostic:
    """`name.length` on a text or list is reported at `name` (E0304, or E0306 for a declared
    parameter): the certain fix is `len(name)`."""
    span = d.span
    field = None if span is None else fields.get((span.path, span.start, span.end))
    if field is None or d.fix is not None or "cannot read field" not in d.message:
        return d
    if types.get(id(field.target), ANY).name not in ("string", "array"):
        return d
    return replace(
        d,
        hint="the length of a text or list is len(x)",
        input=f".{field.name}",
        expected=("len(x)",),
        fix=Fix.replace(field.span, "len(", field.target.span, ")"),
    )


def _only(names: list[str]) -> str | None:
    return names[0] if len(names) == 1 else None
