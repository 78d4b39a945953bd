"""What the cost analysis knows of a value: bounds of its size, as polynomials of the sizes of
the arguments (and tables) it comes from.

`length` bounds a list's items, an object's fields or a text's characters; `nodes` the items
and fields at every depth (what equality and reading a table's value walk); `rendered` the
characters of the value as text (a template's hole, `text(x)`); `item()` the shape of any item
(a list's item, an object's field value, a text's character), `field(name)` of a field, and
`deep()` of any part at any depth. An argument is a `PathShape` (its sizes are variables named
by where they are); what the analysis cannot bound by the arguments is bounded by the run's
limits (`TOP`), which is where the bound is conservative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from toolkiln.ast.types import Type
from toolkiln.check.cost.poly import ZERO, Poly, Size

TEXT, LIST, OBJECT, SCALAR_KIND, UNKNOWN = "text", "list", "object", "scalar", "any"


def limit(name: str) -> Poly:
    return Poly.var(Size("limit", "limit", name))


MAX_LIST, MAX_TEXT = limit("max_list"), limit("max_text")
MAX_LENGTH, MAX_NODES = limit("max_length"), limit("max_nodes")  # the larger of list and text; any value
NUMBER_TEXT = limit("max_text")  # a number of any scale renders as up to a whole text
INTEGER_TEXT = limit("max_digits") + 1


class Shape:
    kind: str = UNKNOWN

    def length(self) -> Poly:
        raise NotImplementedError

    def nodes(self) -> Poly:
        raise NotImplementedError

    def rendered(self) -> Poly:
        return self.length() if self.kind == TEXT else MAX_TEXT

    def item(self) -> Shape:
        raise NotImplementedError

    def field(self, name: str) -> Shape:
        return self.item()

    def deep(self) -> Shape:
        return join(self, self.item().deep()) if self.kind in (LIST, OBJECT) else self

    def size(self) -> Poly:
        """The builtins' measure of reading it (semantics size_of): a text's characters by
        64, a list's or object's items, a scalar nothing."""
        if self.kind == SCALAR_KIND:
            return ZERO
        return self.length() * Fraction(1, 64) if self.kind == TEXT else self.length()


@dataclass(frozen=True, eq=False)
class Known(Shape):
    """A value the program builds: its bounds are known from its parts."""

    kind: str
    length_bound: Poly = ZERO
    nodes_bound: Poly = ZERO
    items: Shape | None = None
    fields: dict[str, Shape] | None = field(default=None)
    text_bound: Poly | None = None

    def length(self) -> Poly:
        return self.length_bound

    def nodes(self) -> Poly:
        return self.nodes_bound

    def rendered(self) -> Poly:
        return self.text_bound if self.text_bound is not None else super().rendered()

    def item(self) -> Shape:
        if self.items is not None:
            return self.items
        if self.fields:
            values = list(self.fields.values())
            result = values[0]
            for value in values[1:]:
                result = join(result, value)
            return result
        return text_of(Poly.const(1)) if self.kind == TEXT else NULL

    def field(self, name: str) -> Shape:
        if self.fields is not None:
            return self.fields.get(name, NULL)
        return self.item() if self.kind != TEXT else NULL

    def deep(self) -> Shape:
        if self.kind in (LIST, OBJECT) and (self.items is not None or self.fields):
            return join(self, self.item().deep())
        return self


def scalar(rendered: Poly) -> Known:
    return Known(SCALAR_KIND, text_bound=rendered)


NULL = scalar(Poly.const(4))
BOOLEAN = scalar(Poly.const(5))
NUMBER = scalar(NUMBER_TEXT)
INTEGER = scalar(INTEGER_TEXT)
DATE = scalar(Poly.const(10))
DATETIME = scalar(Poly.const(32))  # 2026-01-01T00:00:00.000000+05:30


def text_of(length: Poly) -> Known:
    return Known(TEXT, length_bound=length)


def list_of(length: Poly, items: Shape) -> Known:
    return Known(LIST, length, length * 1 + length * items.nodes(), items=items)


def record_of(fields: dict[str, Shape]) -> Known:
    nodes = Poly.const(len(fields))
    for value in fields.values():
        nodes = nodes + value.nodes()
    return Known(OBJECT, Poly.const(len(fields)), nodes, fields=dict(fields))


class Top(Shape):
    """Anything within the run's limits."""

    kind = UNKNOWN

    def length(self) -> Poly:
        return MAX_LENGTH

    def nodes(self) -> Poly:
        return MAX_NODES

    def item(self) -> Shape:
        return self

    def deep(self) -> Shape:
        return self


TOP = Top()

_SCALARS = {"number": NUMBER, "integer": INTEGER, "boolean": BOOLEAN, "null": NULL, "date": DATE, "datetime": DATETIME}


def of_type(type_: Type) -> Shape:
    """A value built by the run of which only the type is known: its sizes at the limits."""
    if type_.name in _SCALARS:
        return _SCALARS[type_.name] if not type_.nullable else join(_SCALARS[type_.name], NULL)
    if type_.name == "string":
        return text_of(MAX_TEXT)
    if type_.name == "array":
        return list_of(MAX_LIST, of_type(type_.item_type()))
    return TOP


@dataclass(frozen=True, eq=False)
class PathShape(Shape):
    """A part of an argument or of a table's values, of declared type `type_`: its sizes are
    the variables `len(path)` and `nodes(path)`."""

    origin: str
    root: str
    steps: tuple[str, ...]
    type_: Type

    @property
    def kind(self) -> str:  # type: ignore[override]
        name = self.type_.name
        if name in _SCALARS:
            return SCALAR_KIND
        return {"string": TEXT, "array": LIST, "object": OBJECT}.get(name, UNKNOWN)

    def _size(self, measure: str, steps: tuple[str, ...] | None = None) -> Poly:
        return Poly.var(Size(measure, self.origin, self.root, self.steps if steps is None else steps))

    def length(self) -> Poly:
        return ZERO if self.kind == SCALAR_KIND else self._size("len")

    def nodes(self) -> Poly:
        if self.kind in (SCALAR_KIND, TEXT):
            return ZERO
        if ".." in self.steps:  # any part of a value has at most the nodes of the whole
            return self._size("nodes", self.steps[: self.steps.index("..")])
        if self.kind == LIST and self.type_.item_type().name != "any":
            return self.length() + self.length() * self.item().nodes()
        return self._size("nodes")

    def rendered(self) -> Poly:
        if self.kind == SCALAR_KIND:
            scalar_shape = _SCALARS[self.type_.name]
            return scalar_shape.rendered() if not self.type_.nullable else scalar_shape.rendered().join(NULL.rendered())
        return super().rendered()

    def _at(self, step: str, type_: Type) -> PathShape:
        if ".." in self.steps:
            return self
        return PathShape(self.origin, self.root, (*self.steps, step), type_)

    def item(self) -> Shape:
        if self.kind == TEXT:
            return text_of(Poly.const(1))
        if self.kind == SCALAR_KIND:
            return NULL
        return self._at("[*]", self.type_.item_type() if self.kind == LIST else _ANY)

    def field(self, name: str) -> Shape:
        if self.kind in (TEXT, SCALAR_KIND, LIST):
            return NULL  # (a field of anything but an object is an error)
        declared = self.type_.field_type(name)
        if declared is None:
            return NULL
        return self._at("." + name, declared)

    def deep(self) -> Shape:
        if self.kind in (SCALAR_KIND, TEXT) or ".." in self.steps:
            return self
        return PathShape(self.origin, self.root, (*self.steps, ".."), _ANY)


_ANY = Type(name="any")


@dataclass(frozen=True, eq=False)
class Joined(Shape):
    """A value that is one of two shapes (the two branches of an `if`)."""

    first: Shape
    second: Shape

    @property
    def kind(self) -> str:  # type: ignore[override]
        a, b = self.first.kind, self.second.kind
        if a == b or b == SCALAR_KIND:
            return a
        return b if a == SCALAR_KIND else UNKNOWN

    def length(self) -> Poly:
        return self.first.length().join(self.second.length())

    def nodes(self) -> Poly:
        return self.first.nodes().join(self.second.nodes())

    def rendered(self) -> Poly:
        return self.first.rendered().join(self.second.rendered())

    def item(self) -> Shape:
        return join(self.first.item(), self.second.item())

    def field(self, name: str) -> Shape:
        return join(self.first.field(name), self.second.field(name))

    def deep(self) -> Shape:
        return join(self.first.deep(), self.second.deep())


def join(a: Shape, b: Shape) -> Shape:
    if a is b:
        return a
    if isinstance(a, Top) or isinstance(b, Top):
        return TOP
    return Joined(a, b)
