"""The JSON Schema of an n8n node's parameters, a `.wf` node block (issue 30, item 2):
written from the node catalog, valid JSON Schema, satisfied by every node toolkiln emits for
the golden workflows, and on the shared corpus's Kitz workflows it refuses as unknown exactly
the parameters the lint warns about (W0717)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from toolkiln.backends.n8n.catalog import load_catalog
from toolkiln.backends.n8n.node_schema import node_schema
from toolkiln.cli import main
from toolkiln.documents import check_text
from toolkiln.workflow.compile import compile_workflow

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = sorted((ROOT / "tests" / "golden" / "workflows").glob("*.wf"))
KITZ = ROOT.parent / "shared" / "corpus" / "peers" / "kitz" / "n8n-workflows"
CATALOG = load_catalog()


def schema_of(node: dict) -> dict | None:
    """The schema of the node's type at its version (without one, n8n runs the newest: W0730)."""
    node_type = node.get("type")
    if not CATALOG.has(node_type):
        return None
    version = str(node.get("typeVersion", CATALOG.versions(node_type)[-1]))
    return node_schema(CATALOG, node_type, version) if CATALOG.has(node_type, version) else None


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_every_node_toolkiln_emits_validates_against_its_schema(path):
    nodes = compile_workflow(path.read_text(encoding="utf-8"), str(path)).to_n8n()["nodes"]
    assert nodes
    for node in nodes:
        schema = schema_of(node)
        assert schema is not None, node["type"]
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(node.get("parameters", {}))


def test_the_unknown_parameters_are_the_ones_the_lint_warns_about():
    if not KITZ.is_dir():
        pytest.skip(f"the corpus is not at {KITZ} (a checkout without ../shared)")
    compared = 0
    for path in sorted(KITZ.glob("*.json")):
        workflow = json.loads(path.read_text(encoding="utf-8"))
        refused = set()
        for index, node in enumerate(workflow["nodes"]):
            schema = schema_of(node)
            if schema is None:
                continue
            compared += 1
            parameters = node.get("parameters", {})
            if not jsonschema.Draft202012Validator(schema).is_valid(parameters):
                refused |= {f"nodes[{index}].parameters.{name}" for name in set(parameters) - set(schema["properties"])}
        checked = check_text(path.read_text(encoding="utf-8"), str(path))
        warned = {d.span.path for d in checked if d.span is not None and d.code == "W0717"}
        assert refused == warned, path.name
    assert compared > 50


def test_the_command_prints_a_node_schema_and_refuses_an_unknown_node(capsys):
    assert main(["schema", "node", "n8n-nodes-base.slack", "2.2"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == node_schema(CATALOG, "n8n-nodes-base.slack", "2.2")
    assert printed["additionalProperties"] is False and "resource" in printed["properties"]
    assert main(["schema", "node", "n8n-nodes-base.nope"]) == 2
    assert "noOp" in capsys.readouterr().err
