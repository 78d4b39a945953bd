"""Applying the certain fixes diagnostics carry, so that a pipeline repairs without a model.

A diagnostic may carry two kinds of advice. Its `fix` is certain: the replacement has one
meaning, the one the author meant, so a program is repaired with it on a model's or a
person's behalf (`repair`, `toolkiln.apply_fixes`, `check --fix`, the factory before a
re-ask). Its `hint` is words: a guess or a choice (which of two names was meant, how a loop
becomes a `map`), shown to whoever writes the program and never applied for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from toolkiln.diagnostics.model import Diagnostic, Fix

# Each round applies every fix that does not overlap another; a syntax error hides the rest
# of the text, so a fix can reveal the next. The bound stops a pair of fixes that undo each other.
MAX_FIX_ROUNDS = 20
# How many applied fixes a summary names (the audit line stays short).
SUMMARY_FIXES = 5
SHOWN_CHARS = 40


@dataclass(frozen=True)
class AppliedFix:
    """One certain fix applied: the diagnostic's code, the text replaced, its replacement and
    where it was (a JSON path, or line and column)."""

    code: str
    before: str
    after: str
    where: str

    def describe(self) -> str:
        return f"`{_short(self.before)}` -> `{_short(self.after)}` at {self.where}"


@dataclass(frozen=True)
class Repaired:
    """`text` with the certain fixes applied, round after round; what was applied, in order;
    and the diagnostics of the repaired text."""

    text: str
    applied: tuple[AppliedFix, ...]
    diagnostics: list[Diagnostic]

    def summary(self) -> str:
        """The line for the audit and the model: "applied 2 fixes: `===` -> `==` at
        steps[1].expression, ..."; empty when none was."""
        if not self.applied:
            return ""
        shown = ", ".join(fix.describe() for fix in self.applied[:SUMMARY_FIXES])
        more = len(self.applied) - SUMMARY_FIXES
        plural = "fix" if len(self.applied) == 1 else "fixes"
        return f"applied {len(self.applied)} {plural}: {shown}" + (f" and {more} more" if more > 0 else "")


def _fixed(diagnostics: Iterable[Diagnostic]) -> list[tuple[Diagnostic, Fix]]:
    """The diagnostics whose fix can be applied to the checked text (located in it, as those
    of `toolkiln.check` of a file or a string are), in order, none overlapping an earlier one."""
    chosen: list[tuple[Diagnostic, Fix]] = []
    end = -1
    located = (
        (d, d.fix)
        for d in diagnostics
        if d.fix is not None and d.fix.replacement is not None and (d.fix.span.path is None or d.fix.span.in_file)
    )
    for diagnostic, fix in sorted(located, key=lambda pair: (pair[1].span.start, pair[1].span.end)):
        if fix.span.start >= end:
            chosen.append((diagnostic, fix))
            end = max(end, fix.span.end)
    return chosen


def text_fixes(diagnostics: Iterable[Diagnostic]) -> list[Fix]:
    """The fixes that can be applied to the checked text, in order, none overlapping."""
    return [fix for _, fix in _fixed(diagnostics)]


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic]) -> str:
    """`text` with every certain fix of `diagnostics` (those `toolkiln.check` reported for
    exactly this text) applied. Fixes that would overlap an earlier one are left for the
    next check: apply, check again, until no fix is left."""
    return _applied(text, text_fixes(diagnostics))


def _applied(text: str, fixes: list[Fix]) -> str:
    out: list[str] = []
    position = 0
    for fix in fixes:
        out += [text[position : fix.span.start], fix.replacement or ""]
        position = fix.span.end
    out.append(text[position:])
    return "".join(out)


def repair(text: str, check: Callable[[str], list[Diagnostic]], rounds: int = MAX_FIX_ROUNDS) -> Repaired:
    """Check `text`, apply its certain fixes, check again, until no fix is left (at most
    `rounds` rounds). `check` is `toolkiln.check` or one with the caller's tools."""
    diagnostics = check(text)
    applied: list[AppliedFix] = []
    for _ in range(rounds):
        chosen = _fixed(diagnostics)
        if not chosen:
            break
        applied += [_applied_fix(text, diagnostic, fix) for diagnostic, fix in chosen]
        text = _applied(text, [fix for _, fix in chosen])
        diagnostics = check(text)
    return Repaired(text, tuple(applied), diagnostics)


def _applied_fix(text: str, diagnostic: Diagnostic, fix: Fix) -> AppliedFix:
    span = fix.span
    where = span.path if span.path else f"line {span.line}, column {span.column}"
    return AppliedFix(diagnostic.code, text[span.start : span.end], fix.replacement or "", where)


def _short(text: str) -> str:
    text = text.replace("\n", "\\n")  # a fix across lines (a block) stays on the summary's line
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."
