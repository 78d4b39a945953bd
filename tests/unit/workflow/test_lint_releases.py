"""Diagnostics that depend on the n8n release toolkiln targets (issue 26): what that release
refuses is an error, what only a later release refuses is a warning naming it; the file still
imports and round-trips unchanged."""

import io
import json
import zipfile
from importlib import resources

import pytest

import toolkiln
from toolkiln.backends.n8n import lint
from toolkiln.backends.n8n.catalog import Catalog
from toolkiln.workflow import check_workflow


def workflow(*nodes):
    trigger = {"name": "Go", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]}
    return {
        "name": "w",
        "nodes": [trigger, *nodes],
        "connections": {"Go": {"main": [[{"node": n["name"], "type": "main", "index": 0} for n in nodes]]}},
        "settings": {"executionOrder": "v1"},
    }


def function(name="Legacy", type_="n8n-nodes-base.function"):
    parameters = {"functionCode": "return items;"}
    return {"name": name, "type": type_, "typeVersion": 1, "position": [200, 0], "parameters": parameters}


def found(data, n8n_version=None):
    return [(d.code, d.span.path, d.message, d.hint) for d in check_workflow(data, n8n_version=n8n_version)]


@pytest.fixture
def n8n_2_42(monkeypatch):
    """A catalog labelled n8n 2.42.0 (no 2.42 is on the npm registry yet: the 2.41.1 nodes)."""
    blob = resources.files("toolkiln.backends.n8n").joinpath("data", "catalog-2.41.1.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:  # (its header, and a member per node type)
        data = json.loads(archive.read("catalog.json"))
        nodes = {name[6:-5]: json.loads(archive.read(name)) for name in archive.namelist() if name.startswith("nodes/")}
    catalog = Catalog({**data, "nodes": nodes, "n8n": "2.42.0"})
    monkeypatch.setattr(lint, "load_catalog", lambda version=None: catalog)
    return catalog


@pytest.mark.parametrize(
    ("type_", "mode"),
    [("n8n-nodes-base.function", "runOnceForAllItems"), ("n8n-nodes-base.functionItem", "runOnceForEachItem")],
)
def test_function_nodes_warn_before_2_42_naming_the_release_and_the_code_node(type_, mode):
    for version in ("2.41.1", "1.123.50"):
        [(code, path, message, hint)] = found(workflow(function(type_=type_)), version)
        assert (code, path) == ("W0727", "nodes[1].type")
        assert message == f"`{type_}` is deprecated: n8n {version} runs it, n8n 2.42 and later refuse it"
        assert hint == f"replace it with the Code node (`n8n-nodes-base.code`, mode {mode})"


def test_function_nodes_are_an_error_for_2_42_and_still_import(n8n_2_42):
    data = workflow(function(), function("Each", "n8n-nodes-base.functionItem"))
    findings = found(data)
    assert [(code, path) for code, path, _, _ in findings] == [("E0726", "nodes[1].type"), ("E0726", "nodes[2].type")]
    assert findings[0][2] == "n8n 2.42.0 refuses workflows with the deprecated node `n8n-nodes-base.function`"
    imported = toolkiln.import_n8n(data)
    assert {d.code for d in imported.diagnostics} == {"E0726"}
    assert imported.to_n8n() == data


def test_a_dsl_node_step_of_a_deprecated_type_gets_the_same_warning():
    text = 'workflow w\ndescription "d"\non manual\nnode "F" type "n8n-nodes-base.function" version 1 {}\n'
    assert [d.code for d in check_workflow(text, n8n_version="2.41.1")] == ["W0727"]


def without_position():
    return workflow({"name": "Pass on", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}})


def test_a_node_without_position_is_an_error_for_n8n_2():
    [(code, path, message, hint)] = found(without_position())  # the default: 2.41.1
    assert (code, path) == ("E0728", "nodes[1]")
    assert message == "n8n 2.41.1 refuses node `Pass on`: it has no position [x, y]"
    assert hint == 'give it one, e.g. "position": [0, 0]'


def test_a_node_without_position_is_a_warning_for_n8n_1_naming_the_release_that_refuses_it():
    [(code, path, message, _)] = found(without_position(), "1.123.50")
    assert (code, path) == ("W0729", "nodes[1]")
    assert message == "node `Pass on` has no position [x, y]: n8n 1.123.50 accepts it, n8n 2.0 and later refuse it"


@pytest.mark.parametrize("position", [None, [0], [0, "1"], "0,0", [True, 0]])
def test_a_position_that_is_not_two_numbers_counts_as_none(position):
    data = without_position()
    data["nodes"][1]["position"] = position
    assert [code for code, *_ in found(data)] == ["E0728"]


def test_a_file_without_positions_still_imports_and_round_trips():
    data = without_position()
    imported = toolkiln.import_n8n(data)
    assert imported.to_n8n() == data
    assert toolkiln.import_n8n(imported.to_n8n()).to_text() == imported.to_text()
