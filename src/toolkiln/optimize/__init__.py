"""The optimizer: pure passes over a checked program, one module each, run in PASSES order.

Every pass keeps what the program does: the optimized program returns the same value, or
fails with the same error code, as the original (a hypothesis property checks this).
"""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.optimize.dead_branches import eliminate_dead_branches
from toolkiln.optimize.fold_constants import fold_constants
from toolkiln.optimize.propagate_copies import propagate_copies
from toolkiln.optimize.remove_unreachable import remove_unreachable_steps
from toolkiln.optimize.remove_unused import remove_unused_assignments
from toolkiln.optimize.simplify import simplify
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits

PASSES = (
    propagate_copies,
    fold_constants,
    simplify,
    eliminate_dead_branches,
    remove_unreachable_steps,
    remove_unused_assignments,
)
MAX_ROUNDS = 4


def optimize(program: n.Program, *, limits: Limits = DEFAULT_LIMITS) -> n.Program:
    """Run the passes until nothing changes (each round can enable the next: a propagated
    constant folds, a folded condition kills a branch, a removed copy frees a constant).

    Every pass is `rule(program, *, limits)`: `limits` are those the program will run under,
    so that a fold fails, and is left for the run to report, exactly where the run would."""
    for _ in range(MAX_ROUNDS):
        before = program
        for rule in PASSES:
            program = rule(program, limits=limits)
        if program is before:
            break
    return program


__all__ = ["PASSES", "optimize"]
