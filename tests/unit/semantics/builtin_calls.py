"""Calling one builtin expression as a tool, for the test_builtins_* modules: its value, or
the code of the RunError it stops with (and, for hostile inputs, that a budget stopped it)."""

import dataclasses

import pytest

import toolkiln
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError


def value(expression: str, **args: object) -> object:
    return toolkiln.compile(f"return {expression}").run(args)


def code(expression: str, limits: toolkiln.Limits | None = None, **args: object) -> str:
    with pytest.raises(RunError) as raised:
        toolkiln.compile(f"return {expression}").run(args, limits=limits)
    return raised.value.code


def quickly(expression: str, limits: toolkiln.Limits | None = None, **args: object) -> str:
    """The code of a hostile run under a clock that cannot stop it (60 s): a budget must
    refuse it before the work is done. (Timing the run instead failed on a loaded machine.)"""
    patient = dataclasses.replace(limits or toolkiln.Limits(), max_seconds=60)
    found = code(expression, patient, **args)
    assert found != codes.TIME_LIMIT.code, f"{expression}: stopped by the clock, not by a budget"
    return found
