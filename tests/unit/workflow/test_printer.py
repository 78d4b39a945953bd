"""The workflow printer: parsing printed text gives the same AST, and printing is idempotent,
for every DSL source of the workflow tests, the golden files and every imported fixture."""

import sys
from pathlib import Path

import pytest

from toolkiln.backends.workflow_printer import is_plain_name, print_workflow
from toolkiln.syntax.workflow_text import parse_workflow
from toolkiln.workflow import compile_workflow, import_n8n

sys.path.insert(0, str(Path(__file__).parents[2] / "property"))
import test_workflow_nodes as nodes
from strategies import strip_spans

TESTS = Path(__file__).parents[2]
SOURCES = [
    *(p.read_text() for p in sorted(TESTS.glob("golden/workflows/*.wf"))),
    nodes.SWITCH,
    nodes.WEBHOOK + "http crm POST \"https://crm.test/{{body.id}}/n?a={{'x'}}\" query { since = body.days } "
    'headers { "X-Source" = "toolkiln", if = 1 } body { text = upper(body.note) } '
    'credentials httpHeaderAuth "CRM key"\nrespond r (1 if crm.id else 2)',
    nodes.WEBHOOK + 'http h GET "https://x.test" body {}\nwait p 5 minutes\nrespond r body with {"a": [1]}',
    'workflow "Form intake" with {"settings": {"x": true}, "pinData": {}}\non node "Form" type '
    '"n8n-nodes-base.formTrigger" version 2.2 {"formTitle": "Hi \\"there\\""} credentials formApi "F" '
    'with {"webhookId": "abc"}\nset s { x = -1, y = not true }\nafter s[1] -> 2, "Form", "nothing"\n'
    'merge m by position\nafter nothing\nnode "set" type "x" version 1.5 {"content": "# hi"}',
    nodes.HEAD + 'on schedule cron "0 9 * * 1-5" timezone "Europe/Madrid"\nset a { x = 1 }',
    nodes.HEAD + "on schedule every 15 minutes\nif c a.x > 1 { set a { x = 1 } } else { switch s { case 1 > 2 { } } }",
]
IMPORTED = sorted(
    [
        *TESTS.glob("integration/fixtures/*.json"),
        *TESTS.glob("golden/workflows/*.json"),
        *(TESTS / "unit/workflow/fixtures").glob("*.json"),
    ]
)


def ast(text):
    workflow, diagnostics = parse_workflow(text)
    assert workflow is not None, diagnostics
    return strip_spans(workflow)


@pytest.mark.parametrize("source", SOURCES)
def test_print_then_parse_gives_the_same_ast(source):
    workflow, _ = parse_workflow(source)
    text = print_workflow(workflow)
    assert ast(text) == strip_spans(workflow)
    assert print_workflow(parse_workflow(text)[0]) == text


@pytest.mark.parametrize("path", IMPORTED, ids=[p.stem for p in IMPORTED])
def test_imported_workflows_print_parseable_text(path):
    imported = import_n8n(path.read_text())
    assert ast(imported.to_text()) == strip_spans(imported.ast)


def test_canonical_layout():
    text = compile_workflow(
        nodes.WEBHOOK + "if c body.n > 1 { set a { x = 1 } } else { respond r body }\n"
        'respond q body with {"notes": "n"}'
    ).to_text()
    assert text == (
        'workflow w\ndescription "d"\n\non webhook POST "/w" respond with node\n\n'
        "if c body.n > 1 {\n  set a {\n    x = 1,\n  }\n} else {\n  respond r body\n}\n"
        'respond q body with {"notes": "n"}\n'
    )


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("order", True),
        ("Order_2", True),
        ("set", False),
        ("nothing", False),
        ("and", False),
        ("My Node", False),
        ("2x", False),
    ],
)
def test_names_that_need_quotes(name, plain):
    assert is_plain_name(name) is plain


def test_fmt_command(tmp_path, capsys):
    from toolkiln.cli import main

    path = tmp_path / "w.wf"
    path.write_text(nodes.WEBHOOK + "set a{x=1}\nrespond r a")
    assert main(["workflow", "fmt", "--check", str(path)]) == 1
    assert main(["workflow", "fmt", str(path)]) == 0
    assert path.read_text() == compile_workflow(path.read_text()).to_text()
    assert main(["workflow", "fmt", "--check", str(path)]) == 0


def test_fmt_keeps_comments(tmp_path):
    """`toolkiln fmt` and `toolkiln workflow fmt` deleted every comment of a .wf file."""
    from toolkiln.cli import main

    source = "# Orders, priced\n" + nodes.WEBHOOK + "# the price\nset a{x=1}  # one\nrespond r a # answer\n# the end\n"
    for command in (["workflow", "fmt"], ["fmt"]):
        path = tmp_path / "w.wf"
        path.write_text(source)
        assert main([*command, str(path)]) == 0
        text = path.read_text()
        assert [line.strip() for line in text.splitlines() if "#" in line] == [
            "# Orders, priced",
            "# the price",
            "set a {  # one",
            "respond r a  # answer",
            "# the end",
        ]
        assert main(["workflow", "fmt", "--check", str(path)]) == 0


def test_the_readme_workflow_is_in_canonical_form(tmp_path):
    from toolkiln.cli import main

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```\nworkflow order_total\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "order_total.wf"
    path.write_text("workflow order_total\n" + block)
    assert main(["workflow", "fmt", "--check", str(path)]) == 0


def test_names_spelt_like_step_keywords_parse_after_operators():
    # Regression (found by tests/property/test_workflow_roundtrip.py): after an operator the
    # lexer read `set`, `after`, `wait` as the next step's keyword, so these did not parse.
    workflow = compile_workflow(
        nodes.WEBHOOK + "set set { x = 1 }\nset wait { ok = true }\n"
        "set s { a = 1 + set.x, b = body.after, c = wait.ok and set.x > 0 }\n"
        "if c 1 + set.x > 2 { respond r s }"
    ).ast
    fields = {field.name: field.value for field in workflow.steps[2].fields}
    assert (fields["a"].right.target.name, fields["b"].name, fields["c"].right.left.target.name) == (
        "set",
        "after",
        "set",
    )


def test_a_respond_body_naming_a_keyword_is_parenthesized():
    # Regression: `respond r 1 + set.x` ends its body at `set`; the printer adds parentheses.
    workflow = compile_workflow(nodes.WEBHOOK + "set set { x = 1 }\nrespond r (1 + set.x)").ast
    text = print_workflow(workflow)
    assert "respond r (1 + set.x)\n" in text
    assert ast(text) == strip_spans(workflow)
    assert "respond q body.x\n" in print_workflow(compile_workflow(nodes.WEBHOOK + "respond q body.x").ast)


def test_the_words_that_may_follow_a_respond_body_are_the_grammars():
    """FOLLOWING_WORDS is what the LALR table accepts (besides more expression) after an atom of
    a respond body; a new step keyword in the grammar must be added there."""
    from toolkiln.backends.workflow_printer import FOLLOWING_WORDS
    from toolkiln.syntax.words import RESERVED
    from toolkiln.syntax.workflow_text import workflow_parser

    parser = workflow_parser()
    words = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    table = parser.parser.parser.parser.parse_table
    found = {
        words[key]
        for actions in table.states.values()
        if {"NAME", "OP"} <= set(actions)
        for key in actions
        if key in words and words[key].isalpha()
    }
    assert found - RESERVED == FOLLOWING_WORDS
