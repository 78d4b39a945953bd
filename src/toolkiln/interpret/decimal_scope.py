"""Running closures with the run's decimal context as the thread's current one.

Decimal's operators (`a * b`) read the current context and cost a third of the context's
methods (`ctx.multiply(a, b)`, which parse a tuple of arguments); switching the current
context per run with getcontext/setcontext would cost more than three operations save. A
`contextvars.Context` prepared once, in which the decimal context is already set, costs about
30 ns to enter and leaves the caller's own decimal context untouched. (Inside it, other
context variables are unset; toolkiln reads none.)
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from decimal import Context, setcontext
from typing import Any, TypeVar

T = TypeVar("T")


class DecimalScope:
    """`scope.run(fn, *args)`; hot callers inline it as `try: scope.enter(fn, *args)` with
    `except RuntimeError as error: scope.recover(error, fn, *args)`, for an `fn` that never
    lets a plain RuntimeError out (a runner's executor turns every exception into a RunError).

    `Context.run` refuses a context in use (by another thread, or by this program calling
    itself) with exactly `RuntimeError`, before calling `fn`; so an error of that exact type
    is the refusal, and anything else (a RecursionError, which is a subclass) came from `fn`."""

    def __init__(self, context: Context) -> None:
        self.context = context
        prepared = contextvars.Context()
        prepared.run(setcontext, context)
        self.enter = prepared.run

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` with `self.context` as the current decimal context; `fn` may raise
        anything (a plain RuntimeError of its own is carried past the refusal's test)."""
        try:
            try:
                value: T = self.enter(_carrying, fn, *args)
            except RuntimeError as error:
                value = self.recover(error, _carrying, fn, *args)
            return value
        except _Carried as carried:
            own = carried.error
        raise own  # (outside the handler: its context stays its own)

    def run_sealed(self, fn: Callable[..., T], *args: Any) -> T:
        """`scope.run` for an `fn` that never lets a plain RuntimeError out (one call less)."""
        try:
            return self.enter(fn, *args)
        except RuntimeError as error:
            return self.recover(error, fn, *args)

    def recover(self, error: RuntimeError, fn: Callable[..., T], *args: Any) -> T:
        """After `enter` raised: if it refused because the prepared context is in use, run
        `fn(*args)` in a fresh one; an error raised by `fn` itself propagates."""
        if type(error) is not RuntimeError:
            raise error  # from inside fn (a RecursionError): not a refusal
        return contextvars.copy_context().run(_with_context, self.context, fn, *args)


class _Carried(Exception):
    """A plain RuntimeError raised by a function that `DecimalScope.run` ran, carried out of
    the scope so that it is not taken for the scope's refusal."""

    def __init__(self, error: RuntimeError) -> None:
        self.error = error


def _carrying(fn: Callable[..., T], *args: Any) -> T:
    try:
        return fn(*args)
    except RuntimeError as error:
        if type(error) is RuntimeError:
            raise _Carried(error) from None
        raise


def _with_context(context: Context, fn: Callable[..., T], *args: Any) -> T:
    setcontext(context)
    return fn(*args)
