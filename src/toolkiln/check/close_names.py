"""Finding the names within two edits of a name, fast enough for programs with thousands of
variables: a name's deletion variants are indexed once (the SymSpell method), so a lookup
costs the length of the name squared instead of one edit distance per variable."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

MOST_EDITS = 2


def most_edits(name: str) -> int:
    """How many edits a typo of `name` may have, by its letters: two, one for up to four
    letters, none for one or two (`x` and `y`, `p1` and `v1` are not typos of each other)."""
    letters = sum(ch.isalpha() for ch in name)
    return min(MOST_EDITS, (letters - 1) // 2)


def _digits(name: str) -> str:
    return "".join(ch for ch in name if ch.isdigit())


class CloseNames:
    """The names of a list (in the order given, a name counted from its first place) close
    to a name."""

    def __init__(self, names: Iterable[str]) -> None:
        self.position: dict[str, int] = {}  # a name -> where it first comes in the list
        for index, name in enumerate(names):
            self.position.setdefault(name, index)
        self.variants: dict[str, list[str]] = {}
        for name in self.position:
            for variant in _deletions(name, MOST_EDITS):
                self.variants.setdefault(variant, []).append(name)

    def close_to(self, name: str, before: int | None = None) -> list[str]:
        """The names within `most_edits(name)` edits of `name`, the closest only (several
        when tied), among the first `before` names if given."""
        most = most_edits(name)
        if most == 0:
            return []
        # Numbered names (`item1`, `item2`) are different things, not typos of each other.
        digits = _digits(name)
        candidates = {
            other
            for variant in _deletions(name, most)
            for other in self.variants.get(variant, ())
            if other != name and _digits(other) == digits
        }
        scored = sorted(
            (distance, other)
            for other in candidates
            if before is None or self.position[other] < before
            if (distance := edit_distance(name, other, most)) <= most
        )
        return [other for distance, other in scored if distance == scored[0][0]]


def _deletions(name: str, most: int) -> set[str]:
    """`name` with any `most` or fewer of its characters left out."""
    found = {name}
    for count in range(1, min(most, len(name)) + 1):
        found.update("".join(kept) for kept in combinations(name, len(name) - count))
    return found


def edit_distance(a: str, b: str, most: int) -> int:
    """Levenshtein distance of `a` and `b`, or `most + 1` once it is known to be larger."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > most:
            return most + 1
        previous = current
    return previous[-1]
