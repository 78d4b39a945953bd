"""Approval of each call: a call the policy (or the tool) holds does not run; it is kept with its
arguments until an admin person approves (it runs then, once) or denies it, or it expires."""

from __future__ import annotations

import json
import multiprocessing
import threading
from dataclasses import replace
from decimal import Decimal

import pytest
from unit.registry.stores import FOLDER_ONLY, in_database, stored_bytes

from toolkiln import Registry
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.registry import PermissionDenied, Principal
from toolkiln.registry.call_rules import CallRule, capabilities_used
from toolkiln.registry.errors import StoreError
from toolkiln.registry.models import utc_now
from toolkiln.registry.pending_calls import Caller
from toolkiln.registry.policy import Policy
from toolkiln.registry.principals import LOCAL_MODEL, LOCAL_USER

ADMIN = Principal("person", "root", "admin", via="token root")
WRITER = Principal("person", "dev", "write", via="token dev")
MODEL = Principal("model", "agent", "admin", via="token agent")
SERVICE = Principal("service", "ci", "admin", via="token ci")
MODELS_WAIT = Policy(call_rules=(CallRule.parse("principal=model"),))


def opened(path, policy=MODELS_WAIT, **options) -> Registry:
    return Registry(path, policy=policy, durable=False, **options)


@pytest.fixture
def held(registry_location, make_def):
    """A registry whose model calls wait, with the tool `double`, and one held call of it."""
    with opened(registry_location) as reg:
        reg.create(make_def())
        outcome = reg.invoke("double", {"x": 21}, principal=MODEL, conversation="conv-1")
        yield reg, outcome


def test_without_rules_every_call_runs_as_before(reg, make_def):
    reg.create(make_def())
    outcome = reg.invoke("double", {"x": 2}, principal=LOCAL_MODEL)
    assert (outcome.ok, outcome.result, outcome.call) == (True, Decimal(4), None)
    assert reg.calls(status=None) == []


def test_a_held_call_does_not_run_and_is_kept_with_its_caller_and_conversation(held):
    reg, outcome = held
    assert not outcome.ok and outcome.pending and outcome.call is not None
    assert [e.code for e in outcome.errors] == [codes.CALL_PENDING.code]
    assert outcome.errors[0].hint and "principal=model" in outcome.errors[0].hint
    assert outcome.reply()["call"] == outcome.call and "has not run" in outcome.reply()["message"]
    assert reg.get("double").usage_count == 0
    (call,) = reg.calls()
    assert (call.id, call.tool, call.version, call.arguments, call.conversation) == (
        outcome.call,
        "double",
        1,
        {"x": 21},
        "conv-1",
    )
    assert (call.caller.kind, call.caller.name, call.status) == ("model", "agent", "pending")
    assert (call.expires - call.created).total_seconds() == MODELS_WAIT.call_expiry_seconds
    if not in_database(reg):  # (the folder's own files)
        stored = json.loads((reg.path / "calls" / f"{call.id}.json").read_text())
        assert "calls/" in (reg.path / ".gitignore").read_text().splitlines()  # run-time state, not in git
        assert stored["arguments"] == {"x": 21} and stored["status"] == "pending"


def test_a_person_call_runs_when_only_models_wait(held):
    reg, _ = held
    outcome = reg.invoke("double", {"x": 1}, principal=WRITER)
    assert (outcome.ok, outcome.result) == (True, Decimal(2))


def test_approving_runs_the_stored_arguments_once_and_the_waiter_gets_the_outcome(held):
    reg, pending = held
    approved = reg.decide_call(pending.call, approve=True, by=ADMIN, reason="fine")
    assert (approved.ok, approved.result, approved.version, approved.call) == (True, Decimal(42), 1, pending.call)
    assert reg.get("double").usage_count == 1
    waited = reg.wait_for_call(pending.call, timeout=0)
    assert (waited.ok, waited.result, waited.version) == (True, Decimal(42), 1)
    call = reg.call(pending.call)
    assert (call.status, call.decided_by.name, call.reason, call.outcome["ok"]) == ("approved", "root", "fine", True)
    assert reg.calls() == [] and [c.id for c in reg.calls("approved")] == [pending.call]


def test_a_denied_call_comes_back_as_data_with_the_reason_and_never_runs(held):
    reg, pending = held
    denied = reg.decide_call(pending.call, approve=False, by=ADMIN, reason="not on a Sunday")
    assert not denied.ok and [e.code for e in denied.errors] == [codes.CALL_DENIED.code]
    reply = reg.wait_for_call(pending.call, timeout=0).reply()
    assert reply["ok"] is False and "not on a Sunday" in reply["message"] and reply["call"] == pending.call
    assert reg.get("double").usage_count == 0


@pytest.mark.parametrize("decider", [MODEL, SERVICE, WRITER, "llm"])
def test_only_an_admin_person_decides_a_call(held, decider):
    reg, pending = held
    outcome = reg.decide_call(pending.call, approve=True, by=decider)
    assert [e.code for e in outcome.errors] == [codes.PERMISSION_DENIED.code]
    assert reg.call(pending.call).status == "pending" and reg.get("double").usage_count == 0


def test_a_call_nobody_decided_in_time_is_denied_expired(registry_location, make_def):
    with opened(registry_location, Policy(call_rules=MODELS_WAIT.call_rules, call_expiry_seconds=0)) as reg:
        reg.create(make_def())
        pending = reg.invoke("double", {"x": 1}, principal=MODEL)
        assert pending.pending
        (call,) = reg.calls("denied")
        assert (call.status, call.reason) == ("denied", "expired")
        late = reg.decide_call(pending.call, approve=True, by=ADMIN)
        assert [e.code for e in late.errors] == [codes.CALL_DECIDED.code] and "expired" in late.message
        assert "expired" in reg.wait_for_call(pending.call).message
        assert reg.get("double").usage_count == 0


def test_an_unknown_or_malformed_call_id_is_not_found(held):
    reg, _ = held
    for call_id in ["c" + "0" * 24, "../tools/double", 7]:
        outcome = reg.decide_call(call_id, approve=True, by=ADMIN)
        assert [e.code for e in outcome.errors] == [codes.CALL_NOT_FOUND.code]


def test_a_call_made_to_an_older_version_does_not_run(held, make_def):
    reg, pending = held
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    outcome = reg.decide_call(pending.call, approve=True, by=ADMIN)
    assert [e.code for e in outcome.errors] == [codes.CALL_TOOL_CHANGED.code]
    assert reg.get("double").usage_count == 0


def test_of_concurrent_decisions_in_threads_exactly_one_wins(held):
    reg, pending = held
    start, outcomes = threading.Barrier(8), []

    def decide(approve: bool) -> None:
        start.wait()
        outcomes.append(reg.decide_call(pending.call, approve=approve, by=ADMIN))

    threads = [threading.Thread(target=decide, args=(i % 2 == 0,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    losers = [o for o in outcomes if o.errors and o.errors[0].code == codes.CALL_DECIDED.code]
    assert len(outcomes) == 8 and len(losers) == 7
    ran = reg.call(pending.call).status == "approved"
    assert reg.get("double").usage_count == (1 if ran else 0)


def _decide_in_a_process(path: str, call_id: str, approve: bool, start, results) -> None:
    with Registry(path, policy=MODELS_WAIT, durable=False) as reg:
        start.wait()
        outcome = reg.decide_call(call_id, approve=approve, by=ADMIN)
        results.put(outcome.errors[0].code if outcome.errors else "ran")


def test_of_concurrent_decisions_in_processes_exactly_one_wins(held):
    reg, pending = held
    context = multiprocessing.get_context("fork")
    start, results = context.Barrier(4), context.Queue()
    processes = [
        context.Process(target=_decide_in_a_process, args=(reg.location, pending.call, i % 2 == 0, start, results))
        for i in range(4)
    ]
    for process in processes:
        process.start()
    codes_seen = sorted(results.get(timeout=60) for _ in processes)
    for process in processes:
        process.join(timeout=60)
    assert codes_seen.count(codes.CALL_DECIDED.code) == 3
    call = reg.call(pending.call)
    winner = "ran" if call.status == "approved" else codes.CALL_DENIED.code
    assert codes_seen == sorted([winner] + [codes.CALL_DECIDED.code] * 3)
    assert (call.outcome is not None) == (call.status == "approved")


def test_a_tool_can_ask_for_approval_of_each_call_set_by_an_admin_person_only(registry_location, make_def):
    with opened(registry_location, Policy()) as reg:
        reg.create(make_def(), created_by=LOCAL_MODEL)  # (a model's tool: a model may update it)
        assert b'"approve_calls"' not in stored_bytes(reg, "double")
        for somebody in (MODEL, SERVICE, WRITER):
            with pytest.raises(PermissionDenied):
                reg.require_call_approval("double", by=somebody)
        assert reg.require_call_approval("double", by=ADMIN).approve_calls
        assert reg.invoke("double", {"x": 1}, principal=LOCAL_USER).pending  # a person's call too
        reg.update("double", {"description": "Doubles"}, by=LOCAL_MODEL)
        assert reg.get("double").approve_calls  # a model's new version keeps it
        assert [e.action for e in reg.audit_log("double")][-2] == "approve_calls"
        reg.require_call_approval("double", required=False, by=ADMIN)
        assert reg.invoke("double", {"x": 1}, principal=MODEL).ok


def test_a_rule_matches_only_when_every_part_it_names_holds(registry_location, make_def):
    rule = CallRule.parse("principal=model,risk=high")
    with opened(registry_location, Policy(call_rules=(rule,))) as reg:
        reg.create(make_def())
        reg.create(make_def("risky", risk="high"))
        assert reg.invoke("double", {"x": 1}, principal=MODEL).ok
        assert reg.invoke("risky", {"x": 1}, principal=WRITER).ok
        assert reg.invoke("risky", {"x": 1}, principal=MODEL).pending


def test_the_capabilities_a_tool_uses_are_the_words_of_a_rule(registry_location):
    script = {"kind": "script", "name": "fetch", "description": "Fetches.", "runtime": "bash", "body": "cat"}
    with opened(registry_location, Policy(call_rules=(CallRule.parse("capability=network"),))) as reg:
        reg.create({**script, "network": True})
        reg.create({**script, "name": "echo"})
        assert capabilities_used(reg.get("fetch"), reg._store.compiled("fetch")) == frozenset({"network"})
        assert capabilities_used(reg.get("echo"), reg._store.compiled("echo")) == frozenset()
        assert reg.invoke("fetch", {}, principal=ADMIN).pending


@pytest.mark.parametrize("text", ["risk=extreme", "principal=robot", "network", "capability="])
def test_a_rule_that_does_not_parse_says_what_the_parts_are(text):
    with pytest.raises(ValueError, match="risk=low|medium|high"):
        CallRule.parse(text)
    assert CallRule.parse("all").described() == "all"


def wrapper() -> dict:
    return {
        "name": "wrapper",
        "description": "Doubles through double",
        "parameters": {"x": {"type": "number"}},
        "logic": {
            "steps": [
                {"op": "call", "tool": "double", "args": {"x": "x"}, "output": "y"},
                {"op": "return", "value": "y"},
            ]
        },
    }


def test_a_call_step_is_no_way_around_the_approval_of_the_tool_it_calls(registry_location, make_def):
    with opened(registry_location, Policy(call_rules=(CallRule.parse("principal=model,risk=high"),))) as reg:
        reg.create(make_def(risk="high"))
        reg.create(wrapper())  # low risk itself
        assert reg.invoke("wrapper", {"x": 1}, principal=WRITER).ok  # a person's: no rule matches
        held = reg.invoke("wrapper", {"x": 4}, principal=MODEL)
        assert held.pending and "`wrapper` calls `double`" in held.errors[0].hint
        with pytest.raises(RunError) as refused:  # outside a checked call (`run`), refused
            reg.run("wrapper", {"x": 1})
        assert refused.value.code == codes.CALL_PENDING.code
        approved = reg.decide_call(held.call, approve=True, by=ADMIN)
        assert (approved.ok, approved.result) == (True, Decimal(8))


def test_a_flag_on_a_called_tool_holds_the_callers_calls(registry_location, make_def):
    with opened(registry_location, Policy()) as reg:
        reg.create(make_def())
        reg.create(wrapper())
        reg.require_call_approval("double", by=ADMIN)
        assert reg.invoke("wrapper", {"x": 1}, principal=ADMIN).pending


def test_an_approval_whose_outcome_cannot_be_kept_still_answers_the_run(held, monkeypatch):
    reg, pending = held

    def full_disk(call_id, outcome):
        raise StoreError("cannot write calls/: No space left on device")

    monkeypatch.setattr(reg.pending_calls, "finish", full_disk)
    approved = reg.decide_call(pending.call, approve=True, by=ADMIN)
    assert (approved.ok, approved.result, approved.call) == (True, Decimal(42), pending.call)
    assert reg.call(pending.call).status == "approved"  # decided once: it is not run again


@FOLDER_ONLY  # (the folder's lock file)
def test_a_link_planted_as_the_calls_lock_is_not_followed(held, tmp_path):
    reg, pending = held
    target = tmp_path / "elsewhere"
    target.write_text("keep me")
    (reg.path / "calls" / ".lock").unlink(missing_ok=True)
    (reg.path / "calls" / ".lock").symlink_to(target)
    refused = reg.decide_call(pending.call, approve=True, by=ADMIN)
    assert [e.code for e in refused.errors] == [codes.STORE_ERROR.code] and refused.call is None
    assert target.read_text() == "keep me" and reg.call(pending.call).status == "pending"


@FOLDER_ONLY  # (files planted in the folder's calls/)
def test_files_in_calls_that_are_no_calls_are_not_listed_and_break_nothing(held):
    reg, pending = held
    folder = reg.path / "calls"
    (folder / ("c" + "1" * 24 + ".json")).write_text("{not json")
    (folder / ("c" + "2" * 24 + ".json")).write_bytes(b" " * (5 * 1024 * 1024))  # past the size cap
    (folder / ("c" + "3" * 24 + ".json")).symlink_to(folder / f"{pending.call}.json")
    assert [call.id for call in reg.calls(None)] == [pending.call]
    refused = reg.decide_call("c" + "2" * 24, approve=True, by=ADMIN)
    assert refused.call is None and refused.errors[0].code != codes.CALL_PENDING.code


def test_a_caller_with_too_many_calls_waiting_is_refused_and_others_are_not(registry_location, make_def):
    with opened(registry_location, replace(MODELS_WAIT, max_pending_calls=2)) as reg:
        reg.create(make_def())
        assert all(reg.invoke("double", {"x": x}, principal=MODEL).pending for x in (1, 2))
        third = reg.invoke("double", {"x": 3}, principal=MODEL)
        assert [e.code for e in third.errors] == [codes.TOO_MANY_PENDING_CALLS.code] and third.call is None
        other = Principal("model", "another", "run")
        assert reg.invoke("double", {"x": 3}, principal=other).pending
        reg.decide_call(reg.calls()[0].id, approve=False, by=ADMIN, reason="enough")
        assert reg.invoke("double", {"x": 4}, principal=MODEL).pending  # one was decided: room again


def test_a_caller_cannot_grow_the_calls_without_bound_decided_ones_are_forgotten(registry_location, make_def):
    """Each new held call first forgets the decided calls past the policy's retention, and all
    but the newest `max_decided_calls`: what a caller's calls keep on disk stays bounded."""
    policy = replace(MODELS_WAIT, max_pending_calls=1, max_decided_calls=3)
    with opened(registry_location, policy) as reg:
        reg.create(make_def())
        for x in range(8):  # a model that calls again as soon as each call is denied
            held = reg.invoke("double", {"x": x}, principal=MODEL)
            reg.decide_call(held.call, approve=False, by=ADMIN, reason="no")
        last = reg.invoke("double", {"x": 8}, principal=MODEL)
        assert len(reg.calls(None)) == 1 + 3  # the one waiting, the 3 newest decided
        assert [(c.arguments["x"], c.status) for c in reg.calls(None)] == [
            (5, "denied"),
            (6, "denied"),
            (7, "denied"),
            (8, "pending"),
        ]
        assert reg.call(last.call).status == "pending"
    with opened(registry_location, replace(policy, call_retention_seconds=0, max_decided_calls=1000)) as reg:
        reg.invoke("double", {"x": 9}, principal=Principal("model", "another", "run"))
        assert [c.status for c in reg.calls(None)] == ["pending", "pending"]  # decided and past: gone


def test_arguments_too_large_to_keep_are_refused_and_nothing_is_written(registry_location, make_def):
    with opened(registry_location) as reg:
        reg.create(make_def(params={"x": {"type": "number"}, "blob": {"type": "string"}}))
        refused = reg.invoke("double", {"x": 1, "blob": "a" * (5 * 1024 * 1024)}, principal=MODEL)
        assert [e.code for e in refused.errors] == [codes.CALL_TOO_LARGE.code]
        assert reg.calls(None) == []


def test_an_outcome_too_large_to_keep_is_kept_as_a_coded_note(held):
    reg, pending = held
    reg.pending_calls.decide(pending.call, "approved", Caller.of(ADMIN), None, utc_now())
    reg.pending_calls.finish(pending.call, {"ok": True, "result": "a" * (5 * 1024 * 1024), "version": 1})
    waited = reg.wait_for_call(pending.call, timeout=0)
    assert not waited.ok and [e.code for e in waited.errors] == [codes.CALL_TOO_LARGE.code]
