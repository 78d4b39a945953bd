"""Two versions of a definition side by side, line against line (difflib's opcodes)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    change: str  # "equal", "replace", "delete" (only on the left), "insert" (only on the right)
    left_number: int | None
    left: str
    right_number: int | None
    right: str


def side_by_side(old: str, new: str) -> list[Row]:
    left, right = old.splitlines(), new.splitlines()
    rows: list[Row] = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for offset in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + offset, j1 + offset
            has_left, has_right = i < i2, j < j2
            change = tag if has_left and has_right else ("delete" if has_left else "insert")
            rows.append(
                Row(
                    change,
                    i + 1 if has_left else None,
                    left[i] if has_left else "",
                    j + 1 if has_right else None,
                    right[j] if has_right else "",
                )
            )
    return rows
