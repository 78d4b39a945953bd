"""The list builtins against Python's sorted, set-free dedup, itertools-like references on
generated lists of numbers and strings."""

from __future__ import annotations

from decimal import Decimal

from builtin_runs import relaxed, run
from hypothesis import given
from hypothesis import strategies as st

numbers = st.one_of(st.integers(-1000, 1000), st.decimals(-100, 100, places=2, allow_nan=False))
number_lists = st.lists(numbers, max_size=30)
string_lists = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=4), max_size=30)
scalars = st.one_of(numbers, st.booleans(), st.none(), st.sampled_from(["a", "b", "1"]))


@relaxed
@given(st.one_of(number_lists, string_lists))
def test_sort_is_sorted(items):
    assert run("sort(xs)", xs=items) == sorted(items)


@relaxed
@given(st.lists(st.tuples(st.integers(0, 5), st.integers()), max_size=30))
def test_sort_by_a_field_is_stable(pairs):
    records = [{"k": key, "n": n} for key, n in pairs]
    assert run('sort(xs, "k")', xs=records) == sorted(records, key=lambda record: record["k"])


def reference_unique(items: list[object]) -> list[object]:
    """Keep an item unless an earlier kept one is equal and of the same type (1 is not true)."""
    kept: list[object] = []
    for item in items:
        if not any(type(item) is type(other) and item == other for other in kept):
            kept.append(item)
    return kept


def as_values(items: list[object]) -> list[object]:
    return [Decimal(item) if type(item) is int else item for item in items]


@relaxed
@given(st.lists(scalars, max_size=30))
def test_unique_keeps_the_first_of_equal_items(items):
    assert run("unique(xs)", xs=items) == reference_unique(as_values(items))


@relaxed
@given(st.lists(scalars, min_size=1, max_size=30))
def test_first_last_and_count(items):
    assert run("first(xs)", xs=items) == items[0]
    assert run("last(xs)", xs=items) == items[-1]
    target = items[len(items) // 2]
    values = as_values(items)
    same = [v for v in values if type(v) is type(as_values([target])[0]) and v == as_values([target])[0]]
    assert run("count(xs, v)", xs=items, v=target) == len(same)


@relaxed
@given(st.lists(number_lists, max_size=10))
def test_flatten_is_one_level(lists):
    assert run("flatten(xs)", xs=lists) == [item for items in lists for item in items]


@relaxed
@given(st.integers(-20, 200), st.integers(-20, 200))
def test_range_is_pythons(start, end):
    assert run("range(n)", n=end) == list(range(end))
    assert run("range(a, b)", a=start, b=end) == list(range(start, end))


@relaxed
@given(number_lists, string_lists)
def test_zip_is_pythons(first, second):
    assert run("zip(a, b)", a=first, b=second) == [list(pair) for pair in zip(first, second)]


@relaxed
@given(st.lists(st.tuples(st.integers(0, 5), st.integers()), max_size=30))
def test_sort_by_computed_keys_is_stable(pairs):
    """The keys as a list, one per item, computed by a comprehension: as Python's key=."""
    records = [{"k": key, "n": n} for key, n in pairs]
    assert run("sort(xs, [x.k % 3 for x in xs])", xs=records) == sorted(records, key=lambda r: r["k"] % 3)


def reference_groups(items: list[object], keys: list[object]) -> list[dict[str, object]]:
    """Groups of equal keys (equal and of the same type), in order of first appearance."""
    groups: list[dict[str, object]] = []
    for item, key in zip(items, keys):
        group = next((g for g in groups if type(g["key"]) is type(key) and g["key"] == key), None)
        if group is None:
            group = {"key": key, "items": []}
            groups.append(group)
        group["items"].append(item)  # type: ignore[attr-defined]
    return groups


@relaxed
@given(st.lists(st.tuples(scalars, numbers), max_size=30))
def test_group_by_is_the_reference_grouping(pairs):
    keys, items = [key for key, _ in pairs], [item for _, item in pairs]
    records = [{"k": key, "v": item} for key, item in pairs]
    expected = reference_groups(as_values(items), as_values(keys))
    assert run("group_by(xs, ks)", xs=items, ks=keys) == expected
    by_field = run('group_by(xs, "k")', xs=records)
    assert [[r["v"] for r in g["items"]] for g in by_field] == [g["items"] for g in expected]


@relaxed
@given(number_lists)
def test_count_if_counts_the_true_conditions(items):
    assert run("count_if(x > 0 for x in xs)", xs=items) == sum(1 for x in items if x > 0)
