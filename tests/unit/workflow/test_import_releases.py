"""What n8n accepts, toolkiln imports (issue 26, item 3): two nodes of one name and nodes
without a typeVersion import losslessly (the exact JSON comes back), the diagnostics say what
the chosen n8n release does with them, and the DSL text either says it (`toolkiln:omit`) or is
refused with E0732."""

import copy

import pytest

import toolkiln
from toolkiln.diagnostics.render import render_text
from toolkiln.errors import CompileError
from toolkiln.workflow import check_workflow, compile_workflow


def node(name, type_="n8n-nodes-base.noOp", **properties):
    return {"name": name, "type": type_, "typeVersion": 1, "position": [0, 0], "parameters": {}, **properties}


def workflow(*nodes, connections=None):
    trigger = node("Go", "n8n-nodes-base.manualTrigger")
    return {
        "name": "w",
        "nodes": [trigger, *nodes],
        "connections": connections or {"Go": {"main": [[{"node": nodes[0]["name"], "type": "main", "index": 0}]]}},
        "settings": {"executionOrder": "v1"},
    }


def shared_name():
    return workflow(node("A"), node("A", position=[200, 0]))


def codes_of(diagnostics):
    return [(d.code, d.span.path) for d in diagnostics]


def test_two_nodes_of_one_name_are_an_error_for_n8n_2_naming_its_refusal():
    [finding] = check_workflow(shared_name())  # the default: 2.41.1
    assert (finding.code, finding.span.path) == ("E0722", "nodes[2].name")
    assert finding.message == (
        "n8n 2.41.1 refuses this workflow (duplicate_node_name): nodes 1 and 2 are both called `A`"
    )


def test_two_nodes_of_one_name_are_a_warning_for_n8n_1_naming_the_release_that_refuses():
    [finding] = check_workflow(shared_name(), n8n_version="1.123.50")
    assert (finding.code, finding.span.path) == ("W0731", "nodes[2].name")
    assert finding.message == "nodes 1 and 2 are both called `A`: n8n 1.123.50 accepts it, n8n 2.0 and later refuse it"


@pytest.mark.parametrize(("n8n_version", "code"), [("2.41.1", "E0722"), ("1.123.50", "W0731")])
def test_a_workflow_with_two_nodes_of_one_name_imports_and_comes_back_exactly(n8n_version, code):
    data = shared_name()
    imported = toolkiln.import_n8n(copy.deepcopy(data), n8n_version=n8n_version)
    assert [d.code for d in imported.diagnostics] == [code]
    assert imported.to_n8n() == data
    assert [step.name for step in imported.ast.steps] == ["A", "A (2)"]


def test_a_workflow_with_two_nodes_of_one_name_has_no_text_and_says_why_where():
    text = (
        '{"name": "w", "nodes": [\n'
        ' {"name": "A", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},\n'
        ' {"name": "A", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "position": [0, 0]}\n'
        '], "connections": {}}'
    )
    imported = toolkiln.import_n8n(text, "two.json")
    with pytest.raises(CompileError) as error:
        imported.to_text()
    [refusal] = error.value.diagnostics
    assert (refusal.code, refusal.severity, refusal.file) == ("E0732", "error", "two.json")
    assert refusal.message == "no DSL text: nodes 0 and 1 are both called `A`"
    assert "3:11" in render_text(refusal)  # the second node's name, where the file says it


def test_the_names_of_the_ast_stay_unique_beside_a_node_already_called_like_the_rename():
    data = workflow(node("A"), node("A (2)"), node("A"))
    imported = toolkiln.import_n8n(copy.deepcopy(data))
    assert [step.name for step in imported.ast.steps] == ["A", "A (2)", "A (3)"]
    assert imported.to_n8n() == data


def versionless(name="Set", type_="n8n-nodes-base.set", **properties):
    found = node(name, type_, **properties)
    del found["typeVersion"]
    return found


def test_a_node_without_a_type_version_is_a_warning_naming_the_version_n8n_runs():
    [finding] = check_workflow(workflow(versionless()))
    assert (finding.code, finding.span.path) == ("W0730", "nodes[1]")
    assert finding.message == (
        "node `Set` has no typeVersion: n8n 2.41.1 stores it as it is and runs version 3.5 of "
        "`n8n-nodes-base.set`, its default"
    )
    assert finding.hint == 'write the version it runs, e.g. "typeVersion": 3.5'


def test_for_n8n_1_a_node_without_a_type_version_warns_that_its_webhook_is_not_registered():
    data = {"name": "w", "nodes": [versionless("Hook", "n8n-nodes-base.webhook")], "connections": {}}
    [finding] = check_workflow(data, n8n_version="1.123.50")
    assert finding.code == "W0730"
    assert finding.message == (
        "node `Hook` has no typeVersion: n8n 1.123.50 stores it as it is, but does not register a webhook "
        "trigger without one when it activates the workflow; n8n 2.x runs version 2.1 of "
        "`n8n-nodes-base.webhook`, its default"
    )


def test_a_node_without_a_type_version_is_checked_as_the_version_n8n_runs():
    data = workflow(versionless(parameters={"colour": "red"}))
    assert codes_of(check_workflow(data)) == [("W0730", "nodes[1]"), ("W0717", "nodes[1].parameters.colour")]


def test_a_node_of_an_unknown_type_without_a_type_version_says_so():
    [version, unknown] = check_workflow(workflow(versionless("X", "n8n-nodes-base.nothingLikeThis")))
    assert version.code == "W0730"
    assert version.message.endswith("stores it as it is and runs the node type's default version")
    assert unknown.code == "W0716"


def test_nodes_without_a_type_version_round_trip_as_json_and_as_text():
    data = workflow(versionless(), connections={"Go": {"main": [[{"node": "Set", "type": "main", "index": 0}]]}})
    del data["nodes"][0]["typeVersion"]
    imported = toolkiln.import_n8n(copy.deepcopy(data))
    assert imported.to_n8n() == data
    text = imported.to_text()
    assert 'version 3.5 {} with {"position": [0, 0], "toolkiln:omit": ["id", "typeVersion"]}' in text
    assert compile_workflow(text).to_n8n() == data


def test_a_type_version_that_is_not_a_number_is_still_not_a_workflow():
    data = workflow(node("A", typeVersion="1"))
    with pytest.raises(CompileError) as error:
        toolkiln.import_n8n(data)
    assert [d.code for d in error.value.diagnostics] == ["E0724"]
