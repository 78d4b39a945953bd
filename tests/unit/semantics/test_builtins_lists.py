"""The list builtins: results, types, failures with their codes, and hostile sizes refused
quickly."""

from decimal import Decimal

import pytest
from builtin_calls import code, quickly, value

import toolkiln

INVOICES = [
    {"id": "a", "due": 30, "customer": "Zed"},
    {"id": "b", "due": 10, "customer": "Ann"},
    {"id": "c", "due": 30, "customer": "Bob"},
    {"id": "d", "due": 5, "customer": "Ann"},
]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("sort([3, 1.5, -2, 1.50])", [-2, Decimal("1.5"), Decimal("1.50"), 3]),
        ('sort(["b", "B", "a", "é"])', ["B", "a", "b", "é"]),
        ("sort([])", []),
        ("unique([3, 1, 3, 2, 1, 1.0])", [3, 1, 2]),
        ('unique([1, true, "1", null, null])', [1, True, "1", None]),
        ("first([4, 5])", 4),
        ("last([4, 5])", 5),
        ("flatten([[1, 2], [], [3, [4]]])", [1, 2, 3, [4]]),
        ("flatten([])", []),
        ("range(3)", [0, 1, 2]),
        ("range(0)", []),
        ("range(-2)", []),
        ("range(2, 5)", [2, 3, 4]),
        ("range(-1, 1)", [-1, 0]),
        ("range(5, 2)", []),
        ('zip([1, 2, 3], ["a", "b"])', [[1, "a"], [2, "b"]]),
        ("zip([], [1])", []),
        ('count(["open", "paid", "open"], "open")', 2),
        ("count([1, 1.0, true], 1)", 2),
        ("count([[1], [1.0]], [1])", 2),
        ("count([1, 2])", 2),
        ('sort(["ccc", "a", "bb", "d"], [len(w) for w in ["ccc", "a", "bb", "d"]])', ["a", "d", "bb", "ccc"]),
        ("sort([1, 2, 3], [0 - x for x in [1, 2, 3]])", [3, 2, 1]),
        ("count_if([true, false, true])", 2),
        ("count_if(x > 1 for x in [1, 2, 3])", 2),
        ("count_if([])", 0),
        (
            'group_by(["a", "bb", "c", "dd", "e"], [len(w) for w in ["a", "bb", "c", "dd", "e"]])',
            [{"key": 1, "items": ["a", "c", "e"]}, {"key": 2, "items": ["bb", "dd"]}],
        ),
        ("group_by([1, 2, 3], [1, 1.0, true])", [{"key": 1, "items": [1, 2]}, {"key": True, "items": [3]}]),
        ("group_by([], [])", []),
    ],
)
def test_list_builtins(expression, expected):
    assert value(expression) == expected


def test_sort_by_a_field_is_stable():
    ids = value('[i.id for i in sort(invoices, "due")]', invoices=INVOICES)
    assert ids == ["d", "b", "a", "c"]
    assert value('[i.id for i in sort(invoices, "customer")]', invoices=INVOICES) == ["b", "d", "c", "a"]


def test_group_by_a_field_into_records():
    groups = value('group_by(invoices, "customer")', invoices=INVOICES)
    assert [(g["key"], [i["id"] for i in g["items"]]) for g in groups] == [
        ("Zed", ["a"]),
        ("Ann", ["b", "d"]),
        ("Bob", ["c"]),
    ]
    totals = value(
        '[{"customer": g.key, "due": sum(i.due for i in g.items)} for g in group_by(invoices, "customer")]',
        invoices=INVOICES,
    )
    assert totals == [{"customer": "Zed", "due": 30}, {"customer": "Ann", "due": 15}, {"customer": "Bob", "due": 30}]


def test_group_by_is_typed_as_a_list_of_records():
    source = 'tool t(xs: array[string])\ndescription "d"\n{ return group_by(xs, [len(x) for x in xs]) }'
    assert toolkiln.compile(source).result_type == '[{"key": number, "items": array[string]}]'.replace("[{", "array[{")
    codes = [d.code for d in toolkiln.check('xs = ["a"]\nreturn group_by(xs, "k")[0].itemz')]
    assert codes == ["E0320"]


@pytest.mark.parametrize(
    ("expression", "args", "expected_code"),
    [
        ("sort(xs, [1])", {"xs": [1, 2]}, "E0511"),  # one key per item
        ("group_by(xs, [1, 2, 3])", {"xs": [1, 2]}, "E0511"),
        ("group_by(xs, [[1], [2]])", {"xs": [1, 2]}, "E0509"),
        ('group_by(xs, "k")', {"xs": [{"k": {"a": 1}}]}, "E0509"),
        ('group_by(xs, "k")', {"xs": [{"j": 1}]}, "E0510"),
        ('group_by(xs, "k")', {"xs": [1]}, "E0509"),
        ("count_if(o.xs)", {"o": {"xs": [True, 1]}}, "E0509"),
        ("sort(xs)", {"xs": [1, "a"]}, "E0509"),  # numbers and strings do not compare
        ("sort(xs)", {"xs": [True, False]}, "E0509"),
        ("sort(xs)", {"xs": [[1], [0]]}, "E0509"),
        ('sort(xs, "due")', {"xs": [1, 2]}, "E0509"),
        ('sort(xs, "due")', {"xs": [{"due": 1}, {"other": 2}]}, "E0510"),
        ('sort(xs, "due")', {"xs": [{"due": 1}, {"due": "x"}]}, "E0509"),
        ("first(xs)", {"xs": []}, "E0511"),
        ("last(xs)", {"xs": []}, "E0511"),
        ("flatten(o.xs)", {"o": {"xs": [[1], 2]}}, "E0509"),
        ("unique(xs)", {"xs": [[1], [1]]}, "E0509"),
        ("unique(xs)", {"xs": [{"a": 1}]}, "E0509"),
        ("range(n)", {"n": 2.5}, "E0511"),
        ("range(1, n)", {"n": 2.5}, "E0511"),
    ],
)
def test_list_failures_have_codes(expression, args, expected_code):
    assert code(expression, **args) == expected_code


@pytest.mark.parametrize(
    ("source", "result_type"),
    [
        ('tool t(xs: array[number])\ndescription "d"\n{ return sort(xs) }', "array[number]"),
        ('tool t(xs: array[string])\ndescription "d"\n{ return first(xs) }', "string"),
        ('tool t(xs: array[array[number]])\ndescription "d"\n{ return flatten(xs) }', "array[number]"),
        ('tool t(xs: array[number])\ndescription "d"\n{ return zip(xs, range(3)) }', "array[array[number]]"),
        ('tool t(s: string)\ndescription "d"\n{ return slice(s, 1) }', "string"),
        ('tool t(s: string)\ndescription "d"\n{ return split(s, ",") }', "array[string]"),
    ],
)
def test_result_types_are_checked(source, result_type):
    assert toolkiln.compile(source).result_type == result_type


@pytest.mark.parametrize(
    "source",
    [
        "return flatten([1, 2])",  # not a list of lists
        "return sort([1], 2)",  # the key is a field name
        'return range("3")',
        "return zip([1])",
        "return count_if([1, 2])",  # conditions are booleans
        "return group_by([1, 2])",  # the key is needed
    ],
)
def test_wrong_arguments_are_compile_errors(source):
    codes = [d.code for d in toolkiln.check(source) if d.is_error]
    assert codes and set(codes) <= {"E0303", "E0205"}


# --- hostile sizes ----------------------------------------------------------------------------


def test_a_range_of_a_million_is_refused_before_it_is_made():
    assert quickly("range(1000000)") == "E0503"  # charged first, by the default budget
    assert quickly("range(1000000)", toolkiln.Limits(max_operations=10**9)) == "E0505"
    assert quickly("range(-1e99, 1e99)") == "E0503"
    assert len(value("range(100000)")) == 100_000


def test_flatten_of_a_list_shared_many_times_is_refused_before_it_is_made():
    """[xs for v in xs] holds one list 100,000 times: 10^10 items flattened."""
    xs = list(range(100_000))
    assert quickly("flatten([xs for v in xs])", toolkiln.Limits(max_operations=10**12), xs=xs) == "E0505"
    assert quickly("flatten([xs for v in xs])", xs=xs) == "E0503"


def test_sorting_the_largest_list_fits_the_default_budget():
    assert value("last(sort(xs))", xs=list(range(100_000, 0, -1))) == 100_000


def test_sorting_in_a_loop_is_charged():
    assert quickly("[len(sort(xs)) for v in xs]", xs=list(range(2_000))) == "E0503"


def test_grouping_in_a_loop_is_charged():
    assert quickly("[len(group_by(xs, xs)) for v in xs]", xs=list(range(3_000))) == "E0503"


@pytest.mark.parametrize("function", ["sort", "unique", "first", "flatten", "count", "count_if"])
def test_a_list_of_a_million_never_reaches_a_builtin(function):
    assert quickly(f"{function}(xs)", xs=list(range(1_000_000))) == "E0508"  # refused as an argument
