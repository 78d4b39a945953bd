"""Diagnostics a model and a pipeline can act on (issue 15, item 7): the hints' warnings,
the machine-readable `input` / `expected` / `fix`, and applying the certain fixes."""

import json
import subprocess
import sys

import pytest

import toolkiln
from toolkiln.ast.spans import Span
from toolkiln.diagnostics.model import Fix


def found(source):
    return [(d.code, d.input, d.fix.replacement if d.fix else None) for d in toolkiln.check(source)]


def reported(source, code):
    """The one diagnostic of `code` that checking `source` gives."""
    [diagnostic] = [d for d in toolkiln.check(source) if d.code == code]
    return diagnostic


def fixed(source):
    """The source after one round of fixes, and what checking it then reports."""
    text = toolkiln.apply_fixes(source)
    return text, [d.code for d in toolkiln.check(text)]


# --- W0120: an inferred parameter that is a typo of a variable ------------------------------


def test_a_typo_that_became_a_parameter_is_a_warning_with_its_fix():
    source = "base_cost = price * qty\nreturn base_cst * 2\n"
    assert ("W0120", "base_cst", "base_cost") in found(source)
    [warning] = [d for d in toolkiln.check(source) if d.code == "W0120"]
    assert "did you mean `base_cost`?" in warning.message and warning.expected == ("base_cost",)
    assert (warning.span.line, warning.span.column) == (2, 8)
    assert fixed(source) == ("base_cost = price * qty\nreturn base_cost * 2\n", [])
    assert [p.name for p in toolkiln.compile(fixed(source)[0]).signature.parameters] == ["price", "qty"]


@pytest.mark.parametrize(
    "source",
    [
        "y = x * 2\nreturn y + z\n",  # one-letter names are not typos of each other
        "total = totl + 1\nreturn total\n",  # `total` has no value yet where `totl` is read
        "cost = 1\ncast = 2\nreturn cst + cost + cast\n",  # two candidates: no certain one
        "subtotal = price * qty\nreturn subtotal + shipping\n",  # far from every variable
        "item1 = price * 2\nreturn item1 + item2\n",  # numbered names are not typos of each other
        "v1 = 2\nreturn v1 + p1\n",
    ],
)
def test_no_typo_warning_without_one_certain_variable(source):
    assert "W0120" not in [code for code, _, _ in found(source)]


# --- W0121: `${name}` and `{name}` in templates ---------------------------------------------


def test_foreign_holes_in_a_template_get_the_double_brace_spelling():
    source = 'total = price * 2\nmsg = format "Hi ${who}: {total} or {total:.2f}, {unknown}"\nreturn msg\n'
    assert [f for f in found(source) if f[0] == "W0121"] == [
        ("W0121", "{total}", "{{total}}"),
        ("W0121", "{total:.2f}", "{{total:.2f}}"),
    ]
    text, codes = fixed(source)
    assert 'format "Hi ${who}: {{total}} or {{total:.2f}}, {unknown}"' in text and codes == []


def test_foreign_holes_in_a_json_template_are_fixed_inside_the_json_string():
    source = json.dumps(
        {
            "steps": [
                {"op": "math", "expression": "price * 2", "output": "total"},
                {"op": "format", "template": 'Pr\u00e4is "${total}"', "output": "msg"},
                {"op": "return", "value": "msg"},
            ]
        }
    )
    warning = reported(source, "W0121")
    assert (warning.input, warning.fix.replacement) == ("${total}", "{{total}}")
    text = toolkiln.apply_fixes(source)
    assert json.loads(text)["steps"][1]["template"] == 'Pr\u00e4is "{{total}}"'
    assert toolkiln.check(text) == []


def test_a_template_with_escapes_gets_the_hint_without_a_fix():
    source = 'total = 1\nmsg = format "a\\tb {total}"\nreturn msg\n'
    warning = reported(source, "W0121")
    assert warning.fix is None and warning.hint == "write `{{total}}`"


def test_a_plain_string_with_a_hole_becomes_a_format_step():
    source = 'total = 1\nmsg = "Total: ${total} of {total:.2f}, {other}"\nreturn msg\n'
    first, second = [d for d in toolkiln.check(source) if d.code == "W0121"]
    assert "format" in first.hint and first.fix is not None and second.fix is None  # one fix, the whole string
    assert fixed(source) == ('total = 1\nmsg = format "Total: {{total}} of {{total:.2f}}, {other}"\nreturn msg\n', [])
    inside = 'total = 1\nreturn "Total: {total}" + "!"\n'  # not the whole value of a step: a hint only
    assert reported(inside, "W0121").fix is None


# --- W0122 and E0304: `.length` --------------------------------------------------------------


def test_length_field_on_an_inferred_parameter_is_a_warning_with_len():
    assert found("return items.length + 1\n") == [("W0122", ".length", "len(items)")]
    assert fixed("return items.length + 1\n") == ("return len(items) + 1\n", [])


def test_length_field_on_a_text_is_the_type_error_with_the_len_fix():
    source = 'tool t(name: string)\ndescription "d"\n{\n  return name.length\n}\n'
    assert [(code, fix) for code, _, fix in found(source)] == [("E0306", "len(name)")]
    assert fixed(source)[1] == []
    numbers = 'tool t(n: number)\ndescription "d"\n{\n  return n.length\n}\n'
    assert [fix for _, _, fix in found(numbers)] == [None]  # a number has no length to take


# --- the checker's own diagnostics, with their fixes -----------------------------------------


def test_unknown_variable_with_one_close_name_is_fixed():
    source = 'tool t(price: number)\ndescription "d"\n{\n  net = price * 2\n  return nett\n}\n'
    error = reported(source, "E0201")
    assert (error.input, error.expected, error.fix.replacement) == (
        "nett",
        ("net", "price"),
        "net",
    )
    assert fixed(source)[1] == []


def test_function_names_of_other_languages_are_renamed_to_the_builtin():
    assert fixed("return length(items) + average(scores)\n") == ("return len(items) + avg(scores)\n", [])
    error = reported("return uper(name)\n", "E0204")
    assert (error.input, error.fix.replacement, error.hint) == ("uper", "upper", "use upper: upper(text)")
    assert "upper" in error.expected
    assert reported("return lenght(items)\n", "E0204").fix is None  # three edits from `len`


def test_a_number_added_to_text_is_wrapped_in_text():
    source = 'return "Total: " + price * 2\n'
    [error] = toolkiln.check(source)
    assert (error.code, error.input, error.expected) == ("E0301", "number", ("string",))
    assert fixed(source) == ('return "Total: " + text(price * 2)\n', [])


def test_a_declared_number_added_to_text_is_wrapped_too():
    source = 'tool t(count: integer)\ndescription "d"\n{\n  return "Items: " + count\n}\n'
    assert reported(source, "E0306").fix.replacement == "text(count)"
    assert fixed(source)[1] == []


@pytest.mark.parametrize(
    ("source", "code", "found", "allowed"),
    [
        ('tool t(a: string) description "d" {\n  return a * 2\n}\n', "E0306", "string", ("number",)),
        ('return round("x", 2)\n', "E0303", "string", ("number",)),
        ('x = "a"\nif x {\n  return 1\n}\nreturn 2\n', "E0302", "string", ("boolean",)),
        ('tool t(a: number?) description "d" {\n  return a + 1\n}\n', "E0301", "number?", ("number",)),
    ],
)
def test_type_errors_carry_the_type_found_and_the_types_allowed(source, code, found, allowed):
    error = reported(source, code)
    assert (error.input, error.expected) == (found, allowed)


def test_the_json_form_carries_input_expected_and_fix():
    entry = reported("base = 2\nreturn bose\n", "W0120").to_dict()
    assert entry["code"] == "W0120" and entry["input"] == "bose" and entry["expected"] == ["base"]
    assert entry["fix"] == {
        "path": None,
        "start": 16,
        "end": 20,
        "line": 2,
        "column": 8,
        "end_line": 2,
        "end_column": 12,
        "replacement": "base",
    }


def test_overlapping_fixes_are_left_for_the_next_round():
    text = "return a + b\n"
    whole, inner, after = Span(start=7, end=12), Span(start=11, end=12), Span(start=12, end=12)
    made = [
        toolkiln.Diagnostic(code="E0101", severity="error", message="m", span=s, fix=Fix.replace(s, r))
        for s, r in ((whole, "x"), (inner, "y"), (after, "!"))
    ]
    assert toolkiln.apply_fixes(text, made) == "return x!\n"  # `inner` overlaps `whole`: next round


def test_check_fix_rewrites_files_until_no_fix_is_left(tmp_path):
    tool = tmp_path / "broken.tk"
    tool.write_text(
        'base_cost = price * qty\nmsg = format "Cost: {base_cost}"\nreturn msg + text(base_cst) + tags.length\n'
    )
    result = subprocess.run(
        [sys.executable, "-m", "toolkiln", "check", "--fix", str(tool)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert tool.read_text() == (
        'base_cost = price * qty\nmsg = format "Cost: {{base_cost}}"\nreturn msg + text(base_cost) + text(len(tags))\n'
    )
    assert "applied" in result.stderr and "0 error(s)" in result.stdout


# --- a byte-order mark -------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".tk", ".json"])
def test_a_utf8_byte_order_mark_is_accepted(tmp_path, suffix):
    body = "return x * 2\n" if suffix == ".tk" else '{"steps": [{"op": "return", "value": "x * 2"}]}'
    path = tmp_path / f"bom{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert toolkiln.check(path) == []
    assert toolkiln.compile(path).run({"x": 4}) == 8


def test_a_byte_order_mark_keeps_columns_as_in_the_file(tmp_path):
    path = tmp_path / "bom.tk"
    path.write_bytes("\ufeffreturn x +* 2\n".encode())
    [error] = toolkiln.check(path)
    assert (error.code, error.span.line, error.span.column) == ("E0101", 1, 12)
