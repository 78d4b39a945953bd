"""The only builtins whose result is not fixed by their arguments: `uuid()`, `random()` and
`random_int(lo, hi)`. Each draws from the run's random source (semantics/chance.py), which
the caller may seed as it sets the clock. They are not pure, so the optimizer never folds
them, and each call draws anew (two calls in one run differ; a name bound to one keeps it)."""

from __future__ import annotations

from decimal import Decimal

from toolkiln.ast.types import NUMBER, STRING
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import Arg, builtin, fault
from toolkiln.semantics.chance import current_source, draw_int, draw_uuid
from toolkiln.semantics.limits import Limits

FRACTION_DIGITS = 16
"""random()'s decimal places: 10**16 values in [0, 1), each as likely (a double's 53 bits
hold about 15.95 digits)."""
_SCALE = 10**FRACTION_DIGITS


@builtin(
    "uuid",
    (),
    STRING,
    "A new random UUID (version 4, RFC 9562), in lower case: uuid() = "
    '"1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b". Drawn from the run\'s random source: '
    "tool.run(args, random=7) repeats a run's UUIDs. Never computed at compile time.",
    pure=False,
)
def _uuid_v4(limits: Limits) -> str:
    return draw_uuid()


@builtin(
    "random",
    (),
    NUMBER,
    f"A random number from 0 up to but not including 1, with at most {FRACTION_DIGITS} decimal "
    "places, each as likely: random() = 0.5804715027341622. From the run's random source, "
    "like uuid().",
    pure=False,
)
def _random(limits: Limits) -> Decimal:
    return Decimal(current_source().randrange(_SCALE)).scaleb(-FRACTION_DIGITS).normalize()


def _whole(value: Decimal, which: str) -> int:
    if not value.is_finite() or value != value.to_integral_value():
        raise fault(codes.INVALID_OPERATION, f"random_int's {which} must be a whole number, not {value}")
    return int(value)


@builtin(
    "random_int",
    (Arg("lo", (NUMBER,)), Arg("hi", (NUMBER,))),
    NUMBER,
    "A random whole number from lo to hi, both included, each as likely: random_int(1, 6) is a "
    "die's throw. lo and hi are whole numbers, lo at most hi (E0511 otherwise). From the run's "
    "random source, like uuid().",
    pure=False,
)
def _random_int(limits: Limits, lo: Decimal, hi: Decimal) -> Decimal:
    low, high = _whole(lo, "lo"), _whole(hi, "hi")
    if low > high:
        raise fault(codes.INVALID_OPERATION, f"random_int's lo ({lo}) is more than its hi ({hi})")
    return Decimal(draw_int(low, high))
