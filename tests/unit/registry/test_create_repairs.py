"""Where a model's definition arrives (the meta-tools, so MCP and the agent loops; REST
create through `Create(fix=True)`), its certain fixes are applied before it is checked: a
mistake a fix repairs is saved in one call, the reply and the audit note name each fix, and
a refusal names the fixes applied and only what remains. A person's other paths apply
nothing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from toolkiln import Registry
from toolkiln.llm.prompts import COMPUTE_EXAMPLE
from toolkiln.registry.applying import Create
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

FIXES = ["`&&` -> `and` at logic.steps[0].if", "`!==` -> `!=` at logic.steps[0].if"]


def with_js_habits(name: str = "shipping_cost", expect_first: int = 10) -> dict[str, Any]:
    definition = copy.deepcopy(COMPUTE_EXAMPLE)
    definition["name"] = name
    definition["logic"]["steps"][0]["if"] = "order_value >= 100 && weight_kg !== 0"
    definition["examples"][0]["expect"] = expect_first
    return definition


@pytest.fixture
def registry(tmp_path: Path):
    with Registry(tmp_path / "reg", durable=False) as reg:
        yield reg


def test_a_meta_tool_create_is_saved_after_its_certain_fixes(registry):
    reply = registry.call_meta("create_compute_tool", {"definition": with_js_habits()})

    assert reply["ok"] is True and reply["fixes_applied"] == FIXES
    assert (
        registry.get("shipping_cost").definition["logic"]["steps"][0]["if"] == "order_value >= 100 and weight_kg != 0"
    )
    assert registry.run("shipping_cost", {"weight_kg": 2}) == 10
    (entry,) = registry.audit_log("shipping_cost")
    assert entry.note == "applied 2 fixes: " + ", ".join(FIXES)


def test_a_refusal_names_the_fixes_applied_and_only_what_remains(registry):
    reply = registry.call_meta("create_compute_tool", {"definition": with_js_habits(expect_first=11)})

    assert reply["ok"] is False and reply["fixes_applied"] == FIXES
    assert [e["code"] for e in reply["errors"]] == ["E0611"]  # not the E0101 of `&&`
    assert "shipping_cost" not in registry


def test_a_text_definition_through_the_door_is_repaired(registry):
    text = json.dumps(with_js_habits(), indent=1)
    outcome = registry.apply(Create(text, note="from a model", fix=True), principal="llm")

    assert outcome.ok and outcome.fixes == tuple(FIXES)
    assert outcome.reply()["fixes_applied"] == FIXES
    assert registry.audit_log("shipping_cost")[0].note == "from a model; applied 2 fixes: " + ", ".join(FIXES)


def test_without_fix_the_door_applies_nothing(registry):
    outcome = registry.apply(Create(with_js_habits()), principal="user")

    assert not outcome.ok and outcome.fixes == () and outcome.errors[0].code == "E0101"
    assert "fixes_applied" not in outcome.reply()


def test_a_clean_definition_is_saved_as_sent(registry):
    clean = copy.deepcopy(COMPUTE_EXAMPLE)
    reply = registry.call_meta("create_compute_tool", {"definition": clean})

    assert reply["ok"] is True and "fixes_applied" not in reply
    assert registry.audit_log("shipping_cost")[0].note is None


def rest_client(tmp_path: Path) -> TestClient:
    app = create_app(Settings(registry=tmp_path / "served"))
    registry = app.state.services.registries.default
    token = TokenStore(state_folder(registry.path)).create("writer", "write", "model")[0]
    return TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})


def test_rest_create_applies_the_certain_fixes_and_says_which(tmp_path):
    client = rest_client(tmp_path)

    saved = client.post("/api/v1/tools", json={"definition": with_js_habits()})
    refused = client.post("/api/v1/tools", json={"definition": with_js_habits("other", expect_first=11)})

    assert saved.status_code == 201 and saved.json()["fixes_applied"] == FIXES
    assert saved.json()["definition"]["logic"]["steps"][0]["if"] == "order_value >= 100 and weight_kg != 0"
    assert refused.status_code == 422 and refused.json()["fixes_applied"] == FIXES
    assert [d["code"] for d in refused.json()["diagnostics"]] == ["E0611"]


def test_a_definition_with_examples_gets_the_type_checks_fixes():
    from toolkiln.registry.repairing import with_certain_fixes

    definition = {
        "name": "code_length",
        "description": "Length of a code",
        "parameters": {"code": {"type": "string"}},
        "logic": {"steps": [{"op": "return", "value": "code.length"}]},
        "examples": [{"args": {"code": "ab"}, "expect": 2}],
    }
    fixed = with_certain_fixes(definition)
    assert fixed.definition["logic"]["steps"][0]["value"] == "len(code)"
    assert fixed.definition["examples"] == definition["examples"]


def test_rest_patch_applies_the_certain_fixes_of_the_program_it_makes(tmp_path):
    client = rest_client(tmp_path)
    assert client.post("/api/v1/tools", json={"definition": copy.deepcopy(COMPUTE_EXAMPLE)}).status_code == 201
    logic = copy.deepcopy(COMPUTE_EXAMPLE["logic"])
    logic["steps"][0]["if"] = "order_value >= 100 && weight_kg !== 0"

    patched = client.patch("/api/v1/tools/shipping_cost", json={"changes": {"logic": logic}})

    assert patched.status_code == 200, patched.json()
    assert patched.json()["fixes_applied"] == FIXES
    assert patched.json()["definition"]["logic"]["steps"][0]["if"] == "order_value >= 100 and weight_kg != 0"
    described = client.patch("/api/v1/tools/shipping_cost", json={"changes": {"description": "Shipping"}})
    assert described.status_code == 200 and not described.json().get("fixes_applied")


def test_an_update_without_fix_applies_nothing_and_a_refused_one_quotes_nothing(registry):
    from toolkiln.registry.applying import Update

    registry.create(copy.deepcopy(COMPUTE_EXAMPLE))
    logic = copy.deepcopy(COMPUTE_EXAMPLE["logic"])
    logic["steps"][0]["if"] = "order_value >= 100 && weight_kg !== 0"
    plain = registry.apply(Update("shipping_cost", {"logic": logic}), principal="user")
    assert not plain.ok and plain.fixes == ()
    # fixed, but refused (a rename): the fixes are of the stored tool's program, never said
    renamed = registry.apply(Update("shipping_cost", {"logic": logic, "name": "other"}, fix=True), principal="user")
    assert not renamed.ok and renamed.fixes == ()
