"""Calling one builtin expression as a tool, for the test_builtins_* modules: its value, or
the code of the RunError it stops with (and, for hostile inputs, within how long)."""

import time

import pytest

import toolkiln
from toolkiln.errors import RunError


def value(expression: str, **args: object) -> object:
    return toolkiln.compile(f"return {expression}").run(args)


def code(expression: str, limits: toolkiln.Limits | None = None, **args: object) -> str:
    with pytest.raises(RunError) as raised:
        toolkiln.compile(f"return {expression}").run(args, limits=limits)
    return raised.value.code


def quickly(expression: str, limits: toolkiln.Limits | None = None, **args: object) -> str:
    """The code, which must come within a second (as the whole run's default max_seconds):
    refused before the work is done, not stopped by the clock."""
    started = time.perf_counter()
    found = code(expression, limits, **args)
    assert time.perf_counter() - started < 1.0, expression
    return found
