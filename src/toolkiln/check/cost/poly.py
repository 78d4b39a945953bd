"""Polynomials over input sizes with non-negative coefficients: the form of a cost bound.

A variable is a `Size`: `len(items)` (a list's items, an object's fields or a text's
characters), `nodes(items)` (items and fields at every depth), or a limit of the run
(`max_list`, ...). Every coefficient is non-negative and every size is, so a polynomial only
grows with its sizes: the coefficient-wise maximum of two bounds bounds both (`join`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

Monomial = tuple["Size", ...]  # sorted; () is the constant term


@dataclass(frozen=True, order=True)
class Size:
    """`measure(root steps)`: `measure` is "len" or "nodes" of a part of an argument (`origin`
    "arg") or of a table's values ("table"), or "limit": a limit of the run named by `root`.
    A step is "[*]" (any item of a list, any field of an object), ".name" (a field) or ".."
    (any part, at any depth); a size is the largest over every part the path reaches."""

    measure: str
    origin: str
    root: str
    steps: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.measure == "limit":
            return self.root
        table = "table " if self.origin == "table" else ""
        return f"{self.measure}({table}{self.root}{''.join(self.steps)})"


class Poly:
    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Monomial, Fraction] | None = None) -> None:
        self.terms: dict[Monomial, Fraction] = {m: c for m, c in (terms or {}).items() if c}

    @staticmethod
    def const(value: int | Fraction) -> Poly:
        return Poly({(): Fraction(value)})

    @staticmethod
    def var(size: Size) -> Poly:
        return Poly({(size,): Fraction(1)})

    def __add__(self, other: Poly | int) -> Poly:
        other = other if isinstance(other, Poly) else Poly.const(other)
        terms = dict(self.terms)
        for monomial, coefficient in other.terms.items():
            terms[monomial] = terms.get(monomial, Fraction(0)) + coefficient
        return Poly(terms)

    __radd__ = __add__

    def __mul__(self, other: Poly | int | Fraction) -> Poly:
        if not isinstance(other, Poly):
            return Poly({m: c * Fraction(other) for m, c in self.terms.items()})
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                monomial = tuple(sorted(m1 + m2))
                terms[monomial] = terms.get(monomial, Fraction(0)) + c1 * c2
        return Poly(terms)

    __rmul__ = __mul__

    def join(self, other: Poly) -> Poly:
        """A bound of both: the larger coefficient of each term."""
        terms = dict(self.terms)
        for monomial, coefficient in other.terms.items():
            terms[monomial] = max(terms.get(monomial, Fraction(0)), coefficient)
        return Poly(terms)

    def covers(self, other: Poly) -> bool:
        """Whether every coefficient of `other` is at most this one's (so self >= other)."""
        return all(self.terms.get(m, Fraction(0)) >= c for m, c in other.terms.items())

    @property
    def is_zero(self) -> bool:
        return not self.terms

    def sizes(self) -> set[Size]:
        return {size for monomial in self.terms for size in monomial}

    def evaluate(self, value_of: Callable[[Size], int]) -> int:
        """The bound at these sizes, rounded up."""
        total = Fraction(0)
        for monomial, coefficient in self.terms.items():
            total += coefficient * math.prod(value_of(size) for size in monomial)
        return math.ceil(total)

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        ordered = sorted(self.terms.items(), key=lambda term: (len(term[0]), [str(s) for s in term[0]]))
        return " + ".join(_term(monomial, coefficient) for monomial, coefficient in ordered)

    def __repr__(self) -> str:
        return f"Poly({self})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))


def _term(monomial: Monomial, coefficient: Fraction) -> str:
    if not monomial:
        return f"{math.ceil(coefficient):,}"  # rounded up: still a bound
    factors = "·".join(_power(size, count) for size, count in _grouped(monomial))
    if coefficient == 1:
        return factors
    if coefficient.numerator == 1:
        return f"{factors}/{coefficient.denominator}"
    return f"{_number(coefficient)}·{factors}"


def _grouped(monomial: Monomial) -> Iterable[tuple[Size, int]]:
    counts: dict[Size, int] = {}
    for size in monomial:
        counts[size] = counts.get(size, 0) + 1
    return counts.items()


def _power(size: Size, count: int) -> str:
    return str(size) if count == 1 else f"{size}^{count}"


def _number(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:,}"
    return f"{value.numerator}/{value.denominator}"


ZERO = Poly()
ONE = Poly.const(1)
