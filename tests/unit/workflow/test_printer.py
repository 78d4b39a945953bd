"""The workflow printer: parsing printed text gives the same AST, and printing is idempotent,
for every DSL source of the workflow tests, the golden files and every imported fixture."""

import sys
from pathlib import Path

import pytest

from toolkiln.backends.workflow_printer import is_plain_name, print_workflow
from toolkiln.syntax.workflow_text import parse_workflow
from toolkiln.workflow import compile_workflow, import_n8n

sys.path.insert(0, str(Path(__file__).parents[2] / "property"))
import test_workflow_nodes as nodes  # noqa: E402
from strategies import strip_spans  # noqa: E402

TESTS = Path(__file__).parents[2]
SOURCES = [
    *(p.read_text() for p in sorted(TESTS.glob("golden/workflows/*.wf"))),
    nodes.SWITCH,
    nodes.WEBHOOK + 'http crm POST "https://crm.test/{{body.id}}/n?a={{\'x\'}}" query { since = body.days } '
                    'headers { "X-Source" = "toolkiln", if = 1 } body { text = upper(body.note) } '
                    'credentials httpHeaderAuth "CRM key"\nrespond r (1 if crm.id else 2)',
    nodes.WEBHOOK + "http h GET \"https://x.test\" body {}\nwait p 5 minutes\nrespond r body with {\"a\": [1]}",
    'workflow "Form intake" with {"settings": {"x": true}, "pinData": {}}\non node "Form" type '
    '"n8n-nodes-base.formTrigger" version 2.2 {"formTitle": "Hi \\"there\\""} credentials formApi "F" '
    'with {"webhookId": "abc"}\nset s { x = -1, y = not true }\nafter s[1] -> 2, "Form", "nothing"\n'
    'merge m by position\nafter nothing\nnode "set" type "x" version 1.5 {"content": "# hi"}',
    nodes.HEAD + 'on schedule cron "0 9 * * 1-5" timezone "Europe/Madrid"\nset a { x = 1 }',
    nodes.HEAD + 'on schedule every 15 minutes\nif c a.x > 1 { set a { x = 1 } } else { switch s { case 1 > 2 '
                 '{ } } }',
]
IMPORTED = sorted([*TESTS.glob("integration/fixtures/*.json"), *TESTS.glob("golden/workflows/*.json"),
                   *(TESTS / "unit/workflow/fixtures").glob("*.json")])


def ast(text):
    workflow, diagnostics = parse_workflow(text)
    assert workflow is not None, diagnostics
    return strip_spans(workflow.model_dump())


@pytest.mark.parametrize("source", SOURCES)
def test_print_then_parse_gives_the_same_ast(source):
    workflow, _ = parse_workflow(source)
    text = print_workflow(workflow)
    assert ast(text) == strip_spans(workflow.model_dump())
    assert print_workflow(parse_workflow(text)[0]) == text


@pytest.mark.parametrize("path", IMPORTED, ids=[p.stem for p in IMPORTED])
def test_imported_workflows_print_parseable_text(path):
    imported = import_n8n(path.read_text())
    assert ast(imported.to_text()) == strip_spans(imported.ast.model_dump())


def test_canonical_layout():
    text = compile_workflow(nodes.WEBHOOK + "if c body.n > 1 { set a { x = 1 } } else { respond r body }\n"
                            'respond q body with {"notes": "n"}').to_text()
    assert text == ('workflow w\ndescription "d"\n\non webhook POST "/w" respond with node\n\n'
                    "if c body.n > 1 {\n  set a {\n    x = 1,\n  }\n} else {\n  respond r body\n}\n"
                    'respond q body with {"notes": "n"}\n')


@pytest.mark.parametrize(("name", "plain"), [("order", True), ("Order_2", True), ("set", False),
                                             ("nothing", False), ("and", False), ("My Node", False), ("2x", False)])
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
