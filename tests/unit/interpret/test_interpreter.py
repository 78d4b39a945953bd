from decimal import Decimal

import pytest

import toolkiln
from toolkiln import Limits, RunError


def run(source, args=None, **options):
    return toolkiln.compile(source).run(args or {}, **options)


def run_error(source, args=None, **options):
    with pytest.raises(RunError) as info:
        run(source, args, **options)
    return info.value


def test_issue_example_returns_31_5():
    logic = {
        "steps": [
            {"op": "math", "expression": "weight_kg * 2.50 + 5.00", "output": "base_cost"},
            {
                "op": "condition",
                "if": "weight_kg > 10",
                "then": [{"op": "math", "expression": "base_cost * 0.9", "output": "base_cost"}],
            },
            {"op": "format", "template": "Shipping cost: ${{base_cost}}", "output": "message"},
            {"op": "return", "value": "base_cost"},
        ]
    }
    tool = toolkiln.compile(logic)
    assert tool.parameters["properties"] == {"weight_kg": {"type": "number"}}
    assert tool.run({"weight_kg": 12}) == Decimal("31.5")
    assert tool.run({"weight_kg": 10}) == Decimal("30")


def test_numbers_are_exact_decimals():
    assert run("return 0.1 + 0.2 == 0.3") is True
    assert run("return x + y", {"x": 0.1, "y": 0.2}) == Decimal("0.3")
    assert run("return 1 / 3") == Decimal("0.3333333333333333333333333333")
    assert run("return 2 ** 10") == Decimal(1024)
    assert run("return -7 % 3") == Decimal(-1)  # sign of the left operand, like JS
    assert run("return x", {"x": Decimal("1.10")}) == Decimal("1.10")
    assert run("return +x", {"x": Decimal("1.234567890123456789012345678901")}) == Decimal(
        "1.234567890123456789012345679"
    )


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("round(2.5)", "3"),
        ("round(-2.5)", "-3"),
        ("round(2.675, 2)", "2.68"),
        ("round(1234, -2)", "1.2E+3"),
        ("floor(-1.5)", "-2"),
        ("ceil(1.1)", "2"),
        ("abs(-3)", "3"),
        ("min(3, 1, 2)", "1"),
        ("max([4, 9])", "9"),
        ("sum([1, 2, 3.5])", "6.5"),
        ("avg([1, 2])", "1.5"),
        ("clamp(120, 0, 100)", "100"),
        ("sqrt(16)", "4"),
        ('number(" 12.50 ")', "12.50"),
        ('len("héllo")', "5"),
        ("count(x for x in [1, 2, 3] if x > 1)", "2"),
    ],
)
def test_number_builtins(expression, expected):
    assert run(f"return {expression}") == Decimal(expected)


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('lower("AbC")', "abc"),
        ('upper("abc")', "ABC"),
        ('trim("  a ")', "a"),
        ('replace("a-b-c", "-", "+")', "a+b+c"),
        ('join(["a", 1, true], ", ")', "a, 1, true"),
        ("text(31.500)", "31.5"),
        ('"a" + "b"', "ab"),
        ('coalesce(null, "x")', "x"),
    ],
)
def test_text_builtins(expression, expected):
    assert run(f"return {expression}") == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('contains("hello", "ell")', True),
        ("contains([1, 2], 2.0)", True),
        ('"b" in ["a", "b"]', True),
        ('"z" not in ["a"]', True),
        ("[1, 2] == [1.0, 2.00]", True),
        ('starts_with("abc", "ab")', True),
        ("any([false, true])", True),
        ("all([])", True),
        ("true or 1 / 0 == 1", True),
        ("false and 1 / 0 == 1", False),
    ],
)
def test_boolean_results(expression, expected):
    assert run(f"return {expression}") is expected


def test_equality_never_coerces():
    assert run("return a == b", {"a": 1, "b": True}) is False
    assert run("return a == b", {"a": 0, "b": None}) is False
    assert run("return a != b", {"a": "1", "b": 1}) is True


def test_aggregation_over_line_items():
    source = "return sum(i.price * i.qty for i in items)"
    items = [{"price": 19.99, "qty": 3}, {"price": 0.01, "qty": 1}]
    assert run(source, {"items": items}) == Decimal("59.98")


def test_templates_render_numbers_plainly_and_with_specs():
    source = 'm = format "Cost: ${{c}} / {{c:.2f}} / {{big:,.2f}} / {{r:.1%}} / {{n}} {{flag}}"\nreturn m'
    result = run(source, {"c": Decimal("31.500"), "big": 1234567.891, "r": 0.125, "n": None, "flag": True})
    assert result == "Cost: $31.5 / 31.50 / 1,234,567.89 / 12.5% / null true"


def test_fixed_decimals_never_show_negative_zero():
    assert run('m = format "{{x:.2f}}"\nreturn m', {"x": Decimal("-0.001")}) == "0.00"


def test_lookup_tables_default_and_errors():
    source = "rate = lookup zones[zone] default 0\nreturn rate"
    tables = {"zones": {"north": 4.5, "7": 9}}
    assert run(source, {"zone": "north"}, tables=tables) == Decimal("4.5")
    assert run(source, {"zone": "south"}, tables=tables) == 0
    assert run("return lookup_key", {"lookup_key": 1}) == 1
    strict = "rate = lookup zones[zone]\nreturn rate"
    assert run(strict, {"zone": 7}, tables=tables) == 9  # number keys look up by plain text
    assert run_error(strict, {"zone": "south"}, tables=tables).code == "E0502"
    assert run_error(strict, {"zone": "north"}).code == "E0512"


def test_declared_table_type_is_checked_at_run_time():
    source = 'tool t(k: string)\ndescription "t"\ntable zones: number\n{\n  v = lookup zones[k]\n  return v\n}'
    assert run_error(source, {"k": "a"}, tables={"zones": {"a": "cheap"}}).code == "E0513"


def test_argument_validation():
    tool = toolkiln.compile(
        'tool t(n: integer, tags: array[string], opt: boolean = false)\ndescription "t"\n{\n  return n\n}'
    )
    assert tool.run({"n": 2, "tags": ["a"]}) == 2
    for bad in [
        {"n": 2.5, "tags": []},
        {"n": "2", "tags": []},
        {"tags": []},
        {"n": 1, "tags": [1]},
        {"n": 1, "tags": [], "extra": 1},
        {"n": True, "tags": []},
        {"n": float("nan"), "tags": []},
    ]:
        with pytest.raises(RunError) as info:
            tool.run(bad)
        assert info.value.code == "E0508", bad
    assert tool.parameters["required"] == ["n", "tags"]
    # Optional: null is accepted for it (and means the default), so the schema allows null.
    assert tool.parameters["properties"]["opt"] == {"type": ["boolean", "null"], "default": False}


@pytest.mark.parametrize(
    "source, args, code",
    [
        ("return 1 / x", {"x": 0}, "E0501"),
        ("return 10 ** 1000 * 10 ** 1000", {}, "E0506"),
        ("return 9 ** 9 ** 9", {}, "E0511"),
        ("return 10 ** 100000", {}, "E0511"),
        ("return sqrt(-1)", {}, "E0511"),
        ("return r.price", {"r": {"cost": 1}}, "E0510"),
        ("return xs[5]", {"xs": [1]}, "E0510"),
        ("return r.a * 2", {"r": {"a": "x"}}, "E0509"),
        ("return avg(xs)", {"xs": []}, "E0511"),
    ],
)
def test_run_time_failures_have_codes_and_locations(source, args, code):
    error = run_error(source, args)
    assert error.code == code
    assert error.span is not None and error.span.line == 1


def test_limits_are_enforced_and_can_be_overridden_per_call():
    tool = toolkiln.compile("return sum(x * 2 for x in xs)")
    xs = list(range(1000))
    assert tool.run({"xs": xs}) == Decimal(999000)
    with pytest.raises(RunError) as info:
        tool.run({"xs": xs}, limits=Limits(max_operations=500))
    assert info.value.code == "E0503"
    with pytest.raises(RunError) as info:
        tool.run({"xs": xs}, limits=Limits(max_list_length=10))
    assert info.value.code == "E0508"
    text = toolkiln.compile("return s + upper(s)")
    with pytest.raises(RunError) as info:
        text.run({"s": "x" * 60}, limits=Limits(max_string_length=100))
    assert info.value.code == "E0504"
    with pytest.raises(RunError) as info:
        toolkiln.compile("return x * x").run({"x": 10**8}, limits=Limits(max_number_digits=10))
    assert info.value.code == "E0506"


def test_run_many_reports_errors_per_row():
    tool = toolkiln.compile("return 10 / x")
    results = tool.run_many([{"x": 2}, {"x": 0}, {"x": "a"}, {"x": 4}])
    assert results[0] == 5 and results[3] == Decimal("2.5")
    assert [r.code for r in results[1:3]] == ["E0501", "E0508"]


def test_compile_error_carries_diagnostics():
    with pytest.raises(toolkiln.CompileError) as info:
        toolkiln.compile("return 1 +")
    assert info.value.diagnostics[0].code == "E0101"
    assert isinstance(info.value, toolkiln.Error)


def test_zero_to_a_negative_power_is_division_by_zero():
    assert run_error("return x ** -1", {"x": 0}).code == "E0501"


def test_table_keys_are_numbers_by_their_plain_text_and_integer_tables_hold_whole_numbers():
    tables = {"sizes": {Decimal("2.50"): "medium", 3: "large", 1.5: "small"}}
    source = 'v = lookup sizes[w] default "none"\nreturn v'
    assert [run(source, {"w": w}, tables=tables) for w in (2.5, 3, 1.5, 4)] == ["medium", "large", "small", "none"]
    integer_table = (
        'tool t(k: string)\ndescription "t"\ntable counts: integer\n{\n  v = lookup counts[k]\n  return v\n}'
    )
    assert run(integer_table, {"k": "a"}, tables={"counts": {"a": 2}}) == 2
    assert run_error(integer_table, {"k": "a"}, tables={"counts": {"a": 1.5}}).code == "E0513"


def test_lists_from_tables_respect_the_list_limit():
    source = "v = lookup t[k]\nreturn len(v)"
    error = run_error(source, {"k": "a"}, tables={"t": {"a": list(range(20))}}, limits=Limits(max_list_length=10))
    assert error.code == "E0505"


def test_clamp_refuses_an_empty_range():
    assert run_error("return clamp(5, 10, 0)").code == "E0511"


def test_bad_limits_are_toolkiln_errors():
    with pytest.raises(toolkiln.Error):
        Limits(max_seconds=0)


def test_enum_members_are_taken_as_their_values():
    import enum

    class Size(enum.StrEnum):
        SMALL = "s"

    class Count(enum.IntEnum):
        TWO = 2

    tool = toolkiln.compile(
        'tool t(size: string, n: integer)\ndescription "t"\n{\n  return format_size\n}'.replace(
            "format_size", "size + text(n)"
        )
    )
    assert tool.run({"size": Size.SMALL, "n": Count.TWO}) == "s2"
