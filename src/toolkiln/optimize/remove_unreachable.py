"""Removal of steps that can never run: those after a `return`, or after an `if` whose
branches both return (the checker warns about them, W0208).

Later passes count on it: liveness (remove_unused) rightly finds a variable read only by such a
step dead and removes its assignment, and the step must not outlive what it reads.
"""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.optimize.rewrite import map_blocks, with_steps
from toolkiln.semantics.limits import Limits


def remove_unreachable_steps(program: n.Program, *, limits: Limits) -> n.Program:
    if not _has_unreachable(program.steps):
        return program  # the common case: nothing follows a return
    return with_steps(program, map_blocks(program.steps, _cut_after_return))


def _always_returns(step: n.Step) -> bool:
    if isinstance(step, n.Return):
        return True
    return (
        isinstance(step, n.If) and bool(step.otherwise) and _block_returns(step.then) and _block_returns(step.otherwise)
    )


def _block_returns(steps: tuple[n.Step, ...]) -> bool:
    return any(_always_returns(step) for step in steps)


def _cut_after_return(steps: tuple[n.Step, ...]) -> tuple[n.Step, ...]:
    for index, step in enumerate(steps):
        if _always_returns(step):
            return steps[: index + 1]
    return steps


def _has_unreachable(steps: tuple[n.Step, ...]) -> bool:
    for index, step in enumerate(steps):
        if _always_returns(step) and index < len(steps) - 1:
            return True
        if isinstance(step, n.If) and (_has_unreachable(step.then) or _has_unreachable(step.otherwise)):
            return True
    return False
