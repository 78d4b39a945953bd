"""Constructs of other languages get the toolkiln spelling as a hint, and a fix where the
rewrite is certain (issue 15, item 7); run errors render like compile errors."""

import json
import subprocess
import sys

import pytest

import toolkiln


def syntax_error(source):
    [error] = [d for d in toolkiln.check(source) if d.is_error]
    assert error.code == "E0101"
    return error


def fixed(source):
    text = toolkiln.apply_fixes(source)
    return text, [d.code for d in toolkiln.check(text) if d.is_error]


@pytest.mark.parametrize(
    ("source", "message", "result"),
    [
        ("return name.upper()\n", "is a method call", "return upper(name)\n"),
        ('return name.replace("a", "b")\n', "is a method call", 'return replace(name, "a", "b")\n'),
        ("return name.trim().length\n", "is a method call", "return trim(name).length\n"),
        ('return ", ".join(names)\n', "is a method call", 'return join(names, ", ")\n'),
        ('return names.join(", ")\n', "is a method call", 'return join(names, ", ")\n'),
        ("return order.customer.toUpperCase()\n", "is a method call", "return upper(order.customer)\n"),
        ("return Math.round(price * 1.19)\n", "toolkiln has no `Math`", "return round(price * 1.19)\n"),
        ("return math.floor(x)\n", "toolkiln has no `math`", "return floor(x)\n"),
        ('return nick ?? "anon"\n', "`??` is not an operator", 'return coalesce(nick, "anon")\n'),
        ("return a === b\n", "`===` is not an operator", "return a == b\n"),
        ("return a !== b\n", "`!==` is not an operator", "return a != b\n"),
        ("return a&&b\n", "`&&` is not an operator", "return a and b\n"),
        ("return a || b\n", "`||` is not an operator", "return a or b\n"),
        ("return !done\n", "`!` is not an operator", "return not done\n"),
        ("let total = price * 2\nreturn total\n", "`let` is not needed", "total = price * 2\nreturn total\n"),
        ("const t = 1\nreturn t\n", "`const` is not needed", "t = 1\nreturn t\n"),
        ("t = 1\nt += p * 2\nreturn t\n", "`+=` is not an operator", "t = 1\nt = t + (p * 2)\nreturn t\n"),
        ("t = 1\nt -= p\nreturn t\n", "`-=` is not an operator", "t = 1\nt = t - p\nreturn t\n"),
        ("i = 1\ni++\nreturn i\n", "`++` is not an operator", "i = 1\ni = i + 1\nreturn i\n"),
        ("m = `Hi ${name}!`\nreturn m\n", "template literal", 'm = format "Hi {{name}}!"\nreturn m\n'),
        ('m = f"Hi {name}!"\nreturn m\n', "f-string", 'm = format "Hi {{name}}!"\nreturn m\n'),
        ("return x is None\n", "`is` is not an operator", "return x == None\n"),
        ("return x is not None\n", "`is not` is not an operator", "return x != None\n"),
        (
            "if a > 1 {\n  return 1\n} elif a > 0 {\n  return 2\n}\nreturn 3\n",
            "`elif` is written `else if`",
            "if a > 1 {\n  return 1\n} else if a > 0 {\n  return 2\n}\nreturn 3\n",
        ),
        ("a = 1;\nreturn a\n", "`;` is not needed", "a = 1\nreturn a\n"),
        ("return {net: price}\n", "a record's keys are strings", 'return {"net": price}\n'),
        ("return email.strip().lower()\n", "is a method call", "return trim(email).lower()\n"),
        ("return trim(email).lower()\n", "is a method call", "return lower(trim(email))\n"),
        ('return replace(s, "(", "-").upper()\n', "is a method call", 'return upper(replace(s, "(", "-"))\n'),
        ("return items[0].upper()\n", "is a method call", "return upper(items[0])\n"),
        ('return n > 9 ? "a:b" : "c"\n', "`? :` is not an operator", 'return "a:b" if n > 9 else "c"\n'),
        ("t = (n > 1) ? f(1) : 2\nreturn t\n", "`? :` is not an operator", "t = f(1) if (n > 1) else 2\nreturn t\n"),
        ("subtotal = p * q\nsubtotal * 1.19\n", "a step is", "subtotal = p * q\nreturn subtotal * 1.19\n"),
        (
            'tool t(a: number) description "d" {\n  a * 2\n}\n',
            "a step is",
            'tool t(a: number) description "d" {\n  return a * 2\n}\n',
        ),
        ("return {net, vat}\n", "lists each key with its value", 'return {"net": net, vat}\n'),
        ("a = 1; b = 2\nreturn a + b\n", "`;` is not needed", "a = 1\nb = 2\nreturn a + b\n"),
        # a misspelt `return`: on main the hint said `write return retrun a`
        ("a = 1\nretrun a\n", "`retrun` is not a keyword", "a = 1\nreturn a\n"),
        ("rturn a * 2\n", "`rturn` is not a keyword", "return a * 2\n"),
    ],
)
def test_foreign_constructs_with_a_certain_fix(source, message, result):
    error = syntax_error(source)
    assert message in error.message and error.fix is not None and error.input and error.expected
    assert toolkiln.apply_fixes(source) == result


@pytest.mark.parametrize(
    ("source", "message", "hint"),
    [
        ("return items.map(x => x * 2)\n", "is a method call", "[x * 2 for x in items]"),
        ("return items.filter(x => x > 0)\n", "is a method call", "[x for x in items if x > 0]"),
        ("return price.toFixed(2)\n", "is a method call", "{{x:.2f}}"),
        ("return Math.pow(a, 2)\n", "toolkiln has no `Math`", "a ** b"),
        ("return user?.name\n", "optional chaining", "user.name if user != null else null"),
        ("total = 0\nfor x in xs {\n  total = total + x\n}\nreturn total\n", "`for` loops", "comprehension"),
        ("return `Hi ${name}`\n", "template literal", 'format "Hi {{name}}"'),
        ("if x > 1: return 1\nreturn 0\n", "braces", "if condition { ... }"),  # the body on the header's line
        ("return f(a ? 1 : 2)\n", "`? :` is not an operator", "a if condition else b"),
        ("def total(price, qty):\n    return price * qty\n", "`def` is not in toolkiln", "tool name("),
        ("x = 1\nx * 2\nreturn x\n", "unexpected `*`", "expected `=`"),  # not the last line: no return meant
        ("x = a ? b : c ? d : e\nreturn x\n", "`? :` is not an operator", "a if condition else b"),
        ("return a ^ 2\n", "`^` is not an operator", "**"),
    ],
)
def test_foreign_constructs_with_a_hint_only(source, message, hint):
    """Where the meaning differs (`?.` yields null, `^` is XOR in JavaScript) or the rewrite
    is not one span, the hint spells it in toolkiln and nothing is rewritten."""
    error = syntax_error(source)
    assert message in error.message and hint in error.hint and error.fix is None
    assert toolkiln.apply_fixes(source) == source


def test_a_method_call_in_a_json_expression_is_fixed_inside_the_string():
    source = json.dumps({"steps": [{"op": "return", "value": 'name.replace("a", "b")'}]}, indent=2)
    error = syntax_error(source)
    assert error.span.path == "steps[0].value" and error.fix.replacement == "replace(name, "
    text, errors = fixed(source)
    assert json.loads(text)["steps"][0]["value"] == 'replace(name, "a", "b")' and errors == []


def test_a_json_expression_is_one_value_not_steps():
    ternary = json.dumps({"steps": [{"op": "return", "value": 'n > 9 ? "big" : "small"'}]})
    assert json.loads(toolkiln.apply_fixes(ternary))["steps"][0]["value"] == '"big" if n > 9 else "small"'
    unfinished = json.dumps({"steps": [{"op": "return", "value": "a +"}]})
    assert syntax_error(unfinished).fix is None  # not a step: no `return` to add


def test_python_literals_read_as_names_are_fixed():
    [warning] = [d for d in toolkiln.check("return x == None\n") if d.code == "W0123"]
    assert (warning.input, warning.fix.replacement) == ("None", "null")
    assert fixed("return x == None or flag == True\n") == ("return x == null or flag == true\n", [])
    declared = 'tool t(x: number?) description "d" {\n  return x == None\n}\n'
    error = [d for d in toolkiln.check(declared) if d.is_error][0]
    assert (error.code, error.fix.replacement) == ("E0201", "null")


def test_a_misspelt_argument_name_gets_did_you_mean():
    tool = toolkiln.compile("return price * qty\n")
    with pytest.raises(toolkiln.RunError) as missing:
        tool.run({"prise": 2, "qty": 1})
    assert "`prise` was given: did you mean `price`?" in missing.value.message
    assert missing.value.to_dict()["input"] == "prise" and missing.value.to_dict()["expected"] == ["price", "qty"]
    with pytest.raises(toolkiln.RunError) as extra:
        tool.run({"price": 2, "qty": 1, "qtty": 3})
    assert extra.value.hint == "did you mean `qty`?" and extra.value.input == "qtty"


@pytest.mark.parametrize(
    ("name", "source", "location", "line"),
    [
        (
            "div.tk",
            'tool r(a: number, b: number) description "d" {\n  return a / b\n}\n',
            ":2:10",
            "2 |   return a / b",
        ),
        ("div.json", '{"steps": [{"op": "return", "value": "a / b"}]}', ":1:39 (at steps[0].value)", "1 | {"),
    ],
)
def test_run_errors_show_the_source_line_and_a_caret(tmp_path, name, source, location, line):
    path = tmp_path / name
    path.write_text(source)
    result = subprocess.run(
        [sys.executable, "-m", "toolkiln", "run", str(path), "--args", '{"a": 1, "b": 0}'],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = result.stderr.splitlines()
    assert result.returncode == 1 and lines[0] == "error[E0501]: division by zero"
    assert lines[1] == f" --> {path}{location}" and lines[3].startswith(line)
    caret = lines[4]
    assert caret.strip(" |") == "^^^^^" and lines[3].index("a / b") == caret.index("^")


@pytest.mark.parametrize(
    ("source", "result"),
    [
        (
            'tool vat(amount: float, n: int = 1)\ndescription "d"\n{\n  return amount * n\n}\n',
            'tool vat(amount: number, n: integer = 1)\ndescription "d"\n{\n  return amount * n\n}\n',
        ),
        (
            json.dumps({"name": "t", "description": "d", "parameters": {"x": {"type": "int"}}, "logic": {"steps": []}}),
            json.dumps(
                {"name": "t", "description": "d", "parameters": {"x": {"type": "integer"}}, "logic": {"steps": []}}
            ),
        ),
    ],
)
def test_type_names_of_other_languages_are_fixed(source, result):
    error = [d for d in toolkiln.check(source) if d.code == "E0111"][0]
    assert error.input in ("float", '"int"') and "number" in error.expected
    assert toolkiln.apply_fixes(toolkiln.apply_fixes(source)) == result


def test_a_misspelt_return_gets_did_you_mean_as_the_json_front_end_gives():
    diagnostic = syntax_error("a = 1\nretrun a\n")
    assert diagnostic.hint == "did you mean `return`?"
    assert syntax_error("result a\n").hint == "write `return result a`"  # not close to `return`
