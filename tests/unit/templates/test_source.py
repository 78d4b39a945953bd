"""Template files: the header, placeholders in code, strings and comments, and every mistake
in a file (E0805, located in it)."""

import pytest

from toolkiln.errors import CompileError
from toolkiln.templates.source import Placeholder, parse_template

HEADER = 'template "T"\ndescription "D"\nparam a: string = "x" "A"\n'
BODY = 'workflow t\non manual\nset s { v = "${a}" }\n'


def errors(text):
    with pytest.raises(CompileError) as error:
        parse_template("t", text)
    return [(d.code, d.message, d.span.line) for d in error.value.diagnostics]


def test_header_and_placeholder_contexts():
    template = parse_template(
        "t",
        HEADER + 'param n: integer "N"\n---\nworkflow t # ${a} stays\non manual\n'
        'set s { v = \'${a}\', w = ${n}, x = "\\"${a}", y = "$$${a}" }\n',
    )
    assert (template.slug, template.title, template.description) == ("t", "T", "D")
    assert [(p.name, p.type.name, p.default, p.required) for p in template.parameters] == [
        ("a", "string", "x", False),
        ("n", "integer", None, True),
    ]
    placeholders = [(p.name, p.quote) for p in template.body if isinstance(p, Placeholder)]
    assert placeholders == [("a", "'"), ("n", None), ("a", '"'), ("a", '"')]
    assert template.body[0] == "workflow t # ${a} stays\non manual\nset s { v = '"
    assert template.body[-3] == '", y = "$'  # `$$` is a literal `$`
    assert template.dsl.startswith("workflow t")


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (
            HEADER + 'param b: colour "B"\n---\n' + BODY.replace("${a}", "${a}${b}"),
            "unknown parameter type `colour`",
            4,
        ),
        (
            HEADER + 'param b: integer = "three" "B"\n---\n' + BODY.replace("${a}", "${a}${b}"),
            "the default of `b` is not a whole number: 'three' is not a whole number",
            4,
        ),
        (
            HEADER + 'param b: time = "9am" "B"\n---\n' + BODY.replace("${a}", "${a}${b}"),
            "the default of `b` is not a time of day \"HH:MM\" on a 24-hour clock, e.g. 09:00: '9am' is not a time of day",
            4,
        ),
        (HEADER + "---\n" + BODY.replace("${a}", "${a}${aa}"), "`aa` is no parameter of this template", 7),
        (HEADER + 'param b: string "B"\n---\n' + BODY, "parameter `b` is never used", 4),
        (HEADER + 'param a: string "again"\n---\n' + BODY, "parameter `a` is declared twice", 4),
        (HEADER + "---\n" + BODY.replace("${a}", "${a}${A}"), "malformed placeholder", 7),
        (HEADER + 'title "nope"\n---\n' + BODY, "not a header line", 4),
        ('description "D"\n---\n' + BODY, 'the header needs a `template "Title"` and a `description "..."` line', 2),
        (HEADER + BODY, "no `---` line ends the header", 1),
        ('template "bad \\q"\ndescription "D"\n---\nworkflow t\non manual\n', "invalid escape `\\q`", 1),
    ],
)
def test_malformed_template_files(text, message, line):
    found = errors(text)
    assert all(code == "E0805" for code, _, _ in found)
    assert (message, line) in [(m, ln) for _, m, ln in found], found


def test_the_unknown_placeholder_hint_suggests_a_parameter():
    with pytest.raises(CompileError) as error:
        parse_template("t", HEADER.replace("param a", "param ab") + "---\n" + BODY.replace("${a}", "${ab}${b}"))
    hints = {d.message: d.hint for d in error.value.diagnostics}
    assert hints["`b` is no parameter of this template"] == "did you mean `ab`?"
    assert error.value.diagnostics[0].file == "t.wf"
