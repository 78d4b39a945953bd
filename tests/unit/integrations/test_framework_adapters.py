"""Every agent-framework adapter, through its framework's own invocation path: the schema the
framework shows its model is the registry's OpenAI export; a call gives the registry's reply
with its digits and counts once; a failed or refused call comes back as data with its code; a
call held for a person's approval does not run until approved; a tool the model creates
follows the policy; without the framework, R0760."""

from __future__ import annotations

import importlib
import json
import sys

import pytest
from unit.integrations.drivers import DRIVERS
from unit.integrations.framework_support import TRIPLE, WAIT_AT_MOST, approve_when_held

from toolkiln.diagnostics import codes

frameworks = pytest.mark.parametrize("driver", DRIVERS, ids=lambda driver: driver.framework)


@frameworks
def test_the_framework_shows_its_model_the_schema_of_the_openai_export(driver, registry):
    registry.create({**registry.get("price").definition, "name": "tax", "description": "Tax"})
    expected = {d["function"]["name"]: d["function"]["parameters"] for d in registry.definitions("openai")}
    assert driver.schemas(registry) == expected
    assert list(driver.schemas(registry, names=["tax"])) == ["tax"]


@frameworks
def test_a_call_gives_the_registrys_reply_with_its_digits_and_counts_once(driver, registry):
    text, failed = driver.call(registry, "price", {"x": 2})
    assert text == '{"ok": true, "result": 2.20}' and failed in (False, None)
    assert registry.get("price").usage_count == 1


@frameworks
def test_a_failed_call_comes_back_as_data_with_its_code(driver, registry):
    text, failed = driver.call(registry, "price", {"x": "two"})
    reply = json.loads(text)
    assert reply["ok"] is False and failed in (True, None)
    assert [error["code"] for error in reply["errors"]] == [codes.INVALID_ARGUMENT.code]
    assert "`x`" in reply["message"] and reply["errors"][0]["hint"]


@frameworks
def test_a_call_a_person_denies_comes_back_as_data_and_never_runs(driver, registry):
    registry.require_call_approval("price")
    person = approve_when_held(registry, approve=False)
    text, failed = driver.call(registry, "price", {"x": 3}, approval_timeout=WAIT_AT_MOST)
    person.join()
    reply = json.loads(text)
    assert reply["ok"] is False and failed in (True, None)
    assert reply["errors"][0]["code"] == codes.CALL_DENIED.code and "not now" in reply["message"]
    assert registry.get("price").usage_count == 0


@frameworks
def test_a_call_held_for_approval_does_not_run(driver, registry):
    registry.require_call_approval("price")
    text, failed = driver.call(registry, "price", {"x": 2}, approval_timeout=0)
    reply = json.loads(text)
    assert reply["ok"] is False and failed in (True, None)
    assert reply["errors"][0]["code"] == codes.CALL_PENDING.code and reply["call"]
    (held,) = registry.calls()
    assert (held.id, held.arguments, held.caller.kind) == (reply["call"], {"x": 2}, "model")
    assert registry.get("price").usage_count == 0


@frameworks
def test_a_held_call_waits_and_runs_once_a_person_approves_it(driver, registry):
    registry.require_call_approval("price")
    person = approve_when_held(registry)
    text, failed = driver.call(registry, "price", {"x": 3}, approval_timeout=WAIT_AT_MOST)
    person.join()
    assert json.loads(text)["ok"] is True and '"result": 3.30' in text and failed in (False, None)
    assert registry.get("price").usage_count == 1 and registry.calls("approved")


@frameworks
def test_without_its_framework_the_adapter_says_which_extra_to_install(driver, monkeypatch):
    from toolkiln.integrations.calls import FrameworkNotInstalled

    for name in [name for name in sys.modules if name.split(".")[0] == driver.needs] or [driver.needs]:
        monkeypatch.setitem(sys.modules, name, None)  # (importing it now raises ImportError)
    monkeypatch.delitem(sys.modules, driver.module, raising=False)
    with pytest.raises(FrameworkNotInstalled) as raised:
        importlib.import_module(driver.module)
    assert raised.value.code == codes.FRAMEWORK_NOT_INSTALLED.code == "R0760"
    assert f"toolkiln[{driver.framework}]" in raised.value.hint


@frameworks
def test_a_tool_the_model_creates_follows_the_policy_a_high_risk_one_waits_unoffered(driver, registry):
    risky = {**TRIPLE, "riskLevel": "high"}
    text, failed = driver.call(registry, "create_compute_tool", {"definition": risky}, include_meta=True)
    assert json.loads(text)["ok"] is True and failed in (False, None)
    record = registry.get("triple")
    assert (record.status, record.created_by) == ("pending_approval", "llm")
    assert "triple" not in driver.schemas(registry, include_meta=True)  # (not offered until a person approves)
    refused, _ = driver.call(registry, "toggle_custom_tool", {"name": "triple", "enabled": True}, include_meta=True)
    assert json.loads(refused)["ok"] is False and "pending approval" in json.loads(refused)["message"]
    assert registry.get("triple").status == "pending_approval"
