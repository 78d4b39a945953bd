"""An `if` whose condition is a constant becomes the branch it always takes."""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.optimize.rewrite import any_step, map_blocks, with_steps
from toolkiln.semantics.limits import Limits


def eliminate_dead_branches(program: n.Program, *, limits: Limits) -> n.Program:
    if not any_step(program.steps, _is_constant_if):
        return program  # (see any_step)
    return with_steps(program, map_blocks(program.steps, _inline_constant_ifs))


def _is_constant_if(step: n.Step) -> bool:
    return isinstance(step, n.If) and isinstance(step.condition, n.BoolLit)


def _inline_constant_ifs(steps: tuple[n.Step, ...]) -> tuple[n.Step, ...]:
    out: list[n.Step] = []
    for step in steps:
        match step:
            case n.If(condition=n.BoolLit(value=value)):
                out.extend(step.then if value else step.otherwise)
            case _:
                out.append(step)
    return tuple(out)
