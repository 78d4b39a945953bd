"""Linting n8n workflow JSON: each finding has its code and points at the line and column of
the JSON value; workflows n8n runs as intended lint clean."""

import json
from pathlib import Path

import pytest

from toolkiln.cli import main
from toolkiln.workflow import check_workflow

TESTS = Path(__file__).parents[2]
CLEAN = sorted(
    [
        *TESTS.glob("integration/fixtures/*.json"),
        *TESTS.glob("golden/workflows/*.json"),
        *(TESTS / "unit/workflow/fixtures").glob("[el]*.json"),
    ]
)


def node(name, type_="n8n-nodes-base.noOp", version=1, **parameters):
    return {"name": name, "type": type_, "typeVersion": version, "position": [0, 0], "parameters": parameters}


def flow(*nodes, connections=None):
    return {
        "name": "w",
        "nodes": [node("Go", "n8n-nodes-base.manualTrigger"), *nodes],
        "connections": connections if connections is not None else {},
    }


def link(*targets, output_index=0):
    outputs = [[] for _ in range(output_index)] + [[{"node": t, "type": "main", "index": 0} for t in targets]]
    return {"main": outputs}


def found(data):
    return [(d.code, d.span.path if d.span else None) for d in check_workflow(data)]


@pytest.mark.parametrize("path", CLEAN, ids=[p.stem for p in CLEAN])
def test_workflows_n8n_runs_lint_clean(path):
    assert check_workflow(path.read_text(encoding="utf-8"), str(path)) == []


def test_ai_agent_and_community_nodes_are_only_unchecked():
    for name in ("ai_agent", "community_legacy"):
        text = (TESTS / f"unit/workflow/fixtures/{name}.json").read_text()
        assert {d.code for d in check_workflow(text)} == {"W0715"}


def test_unknown_types_versions_and_parameters():
    data = flow(
        node("A", "n8n-nodes-base.slak"),
        node("B", version=7),
        node("C", colour="red"),
        connections={"Go": link("A", "B", "C")},
    )
    assert found(data) == [
        ("W0716", "nodes[1].type"),
        ("W0716", "nodes[2].type"),
        ("W0717", "nodes[3].parameters.colour"),
    ]


def test_dangling_connections_and_outputs():
    data = flow(
        node("A"),
        node("B", "n8n-nodes-base.if", 2.2, conditions={}),
        connections={
            "Go": link("A", "Ghost"),
            "Nobody": link("A"),
            "A": link("B", output_index=1),
            "B": link("A", output_index=2),
        },
    )
    assert sorted(found(data)) == [
        ("E0718", "connections.Go.main[0][1].node"),
        ("E0718", "connections.Nobody"),
        ("W0723", "nodes[1]"),
        ("W0736", "connections.A.main[1][0]"),
        ("W0736", "connections.B.main[2][0]"),
    ]


def test_an_error_output_counts_when_the_node_continues_on_error():
    data = flow(
        dict(node("A"), onError="continueErrorOutput"),
        node("B"),
        connections={"Go": link("A"), "A": link("B", output_index=1)},
    )
    assert found(data) == []


def test_unreachable_nodes_but_not_sticky_notes():
    data = flow(node("Left"), node("Note", "n8n-nodes-base.stickyNote", content="hi"))
    assert found(data) == [("W0719", "nodes[1]")]


def test_loops_outside_loop_over_items():
    data = flow(node("A"), node("B"), connections={"Go": link("A"), "A": link("B"), "B": link("A")})
    assert found(data) == [("W0723", "nodes[1]")]


def test_expressions_without_equals_and_code_is_exempt():
    data = flow(
        node(
            "A",
            "n8n-nodes-base.set",
            3.4,
            options={},
            assignments={
                "assignments": [
                    {"id": "1", "name": "x", "value": "Hi {{ $json.name }}", "type": "string"},
                    {"id": "2", "name": "y", "value": "={{ $json.name }}", "type": "string"},
                    {"id": "3", "name": "z", "value": "{{ not a variable }}", "type": "string"},
                ]
            },
        ),
        node("B", "n8n-nodes-base.code", 2, jsCode="const t = `{{ $json.x }}`;"),
        connections={"Go": link("A", "B")},
    )
    assert found(data) == [("W0725", "nodes[1].parameters.assignments.assignments[0].value")]


@pytest.mark.parametrize(
    ("parameters", "path"),
    [
        (
            {
                "headerParameters": {
                    "parameters": [{"name": "Authorization", "value": "Bearer abcdefghijklmnopqrstuvwxyz012345"}]
                }
            },
            "headerParameters.parameters[0].value",
        ),
        (
            {"queryParameters": {"parameters": [{"name": "api_key", "value": "k-123"}]}},
            "queryParameters.parameters[0].value",
        ),
        ({"jsonBody": '{"key": "sk-proj-abcdefghijklmnopqrstuvwx"}'}, "jsonBody"),
        ({"options": {"password": "hunter2"}}, "options.password"),
    ],
)
def test_literal_secrets(parameters, path):
    data = flow(
        node("H", "n8n-nodes-base.httpRequest", 4.2, url="https://x.test", **parameters), connections={"Go": link("H")}
    )
    assert found(data) == [("E0721", f"nodes[1].parameters.{path}")]


def test_secrets_read_from_expressions_or_credentials_are_fine():
    parameters = {
        "headerParameters": {
            "parameters": [{"name": "Authorization", "value": "={{ $json.token }}"}, {"name": "X-Api-Key", "value": ""}]
        }
    }
    data = flow(
        node("H", "n8n-nodes-base.httpRequest", 4.2, url="https://x.test", **parameters), connections={"Go": link("H")}
    )
    assert found(data) == []


@pytest.mark.parametrize(
    "value",
    [
        "YOUR_API_KEY",
        "Bearer ",
        "Bearer <YOUR_BRIGHT_DATA_API_KEY>",
        "Bearer [YOUR API KEY HERE]",
        "Bearer {{Token}}",
        "Bearer $OPENAI_API_KEY",
        "Bearer undefined",
        "Bearer key_XXXXXXXXX",
        "bot[your-telegram-bot-token]",
        "APY*********************************",
        "PWDVALUE",
        "enter-your-api-key-here",
        "secret of your client",
        "Apikey api",
    ],
)
def test_placeholders_are_not_secrets(value):
    """Templates ship with values for the user to fill in (about 300 of 365 findings on public
    workflow collections were such placeholders)."""
    parameters = {"headerParameters": {"parameters": [{"name": "Authorization", "value": value}]}}
    data = flow(
        node("H", "n8n-nodes-base.httpRequest", 4.2, url="https://x.test", **parameters), connections={"Go": link("H")}
    )
    assert found(data) == []


@pytest.mark.parametrize(
    "value",
    [
        "Bearer apify_api_8UZf2KdZTkPihmNauBubgDsjAYTfKP4nsQSN",
        "dTzUfBoTFLxNhuzc1zsnDbCeii98ZaE5By4aQPQEOxLJAS9y6i",
        "Basic YXBpOnNrX2VhNDVmY2YxN2E1NjMxY2I1ZmQxZGVmNjJmZTY3Y2JiYjM3MjQ2N2M=",
        "3AFID4BGE9PDQ2WTFDO1X61H4RNQLE",
    ],
)
def test_real_looking_secrets_next_to_placeholder_rules_are_still_found(value):
    parameters = {"headerParameters": {"parameters": [{"name": "Authorization", "value": value}]}}
    data = flow(
        node("H", "n8n-nodes-base.httpRequest", 4.2, url="https://x.test", **parameters), connections={"Go": link("H")}
    )
    assert found(data) == [("E0721", "nodes[1].parameters.headerParameters.parameters[0].value")]


def test_parameters_n8n_resolves_itself_are_not_unwrapped_expressions():
    """The HTML node renders `{{ }}` in its template itself; a resource locator's cached URL
    is the editor's and never evaluated."""
    data = flow(
        node("T", "n8n-nodes-base.html", 1.2, operation="generateHtmlTemplate", html="<p>{{ $json.name }}</p>"),
        node(
            "S",
            "n8n-nodes-base.googleSheets",
            4.5,
            documentId={"__rl": True, "value": "=abc", "mode": "list", "cachedResultUrl": "https://x/{{ $json.id }}"},
        ),
        connections={"Go": link("T"), "T": link("S")},
    )
    assert [code for code, _ in found(data) if code == "W0725"] == []


def test_duplicate_names():
    assert found(flow(node("A"), node("A"), connections={"Go": link("A")})) == [("E0722", "nodes[2].name")]


def test_locations_are_lines_and_columns_of_the_file():
    text = json.dumps(flow(node("A", "n8n-nodes-base.slak"), connections={"Go": link("A")}), indent=2)
    (diagnostic,) = check_workflow(text, "w.json")
    line = text.splitlines().index('      "type": "n8n-nodes-base.slak",') + 1
    assert (diagnostic.file, diagnostic.span.line, diagnostic.span.column) == ("w.json", line, 15)
    assert diagnostic.span.in_file and diagnostic.hint == "did you mean `n8n-nodes-base.slack`?"


def test_check_command_lints_exports(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(flow(node("A"), node("A"), connections={"Go": link("A")})))
    good = TESTS / "integration/fixtures/schedule_noop.json"
    assert main(["check", str(good)]) == 0
    assert main(["check", "--format", "json", str(bad)]) == 1
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])[0]["code"] == "E0722"
    (tmp_path / "list.json").write_text("[]")
    assert main(["check", str(tmp_path / "list.json")]) == 1  # no workflow: checked as a tool file
    assert "E0106" in capsys.readouterr().out


def test_non_json_and_lists_are_diagnostics():
    assert [d.code for d in check_workflow("[1]")] == ["E0724"]
    assert [d.code for d in check_workflow('{"name": "x", "nodes": [1]}')] == ["E0724"]
    assert [(d.code, d.span.line) for d in check_workflow('{\n"nodes": ]')] == [("E0724", 2)]
