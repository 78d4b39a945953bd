"""What `Registry.invoke` remembers to run a call as fast as `run` (its door on the tool's HotRun:
the call runs at once for this kind of caller under this policy, at this version), and that
each thing it depends on is seen at the very next call. The clock is stopped in every test, so
the HotRun never expires by itself: only the invalidation under test can tell `invoke` of the
change, and a stale memory would answer the old way."""

from dataclasses import replace
from decimal import Decimal

import pytest

from toolkiln.diagnostics import codes
from toolkiln.registry import Registry, hot_door
from toolkiln.registry import registry as registry_module
from toolkiln.registry.call_rules import CallRule
from toolkiln.registry.changes import WATCH_SECONDS
from toolkiln.registry.principals import LOCAL_MODEL, LOCAL_USER, Principal
from toolkiln.semantics.limits import Limits

TOKEN_MODEL = Principal("model", "agent-1", "run", "token agent-1")


@pytest.fixture
def stopped(tmp_path, make_def, monkeypatch):
    """A registry folder with `double`, its clock stopped, and two calls made (the second
    through the remembered door)."""
    monkeypatch.setattr(registry_module, "_monotonic", lambda: 0.0)
    with Registry(tmp_path / "reg") as reg:
        reg.create(make_def())
        for _ in range(2):
            assert reg.invoke("double", {"x": 1}, principal=LOCAL_MODEL).result == 2
        assert reg._hot["double"].door  # (the door is remembered: the calls below go through it)
        yield reg


def codes_of(outcome):
    return [error.code for error in outcome.errors]


def test_a_remembered_call_gives_what_the_first_gave(stopped):
    first = stopped.invoke("double", {"x": Decimal("1.50")}, principal=LOCAL_MODEL)
    again = stopped.invoke("double", {"x": Decimal("1.50")}, principal=LOCAL_MODEL)
    assert first == again and (again.ok, again.result, again.version, again.tool) == (
        True,
        Decimal("3.00"),
        1,
        "double",
    )
    bad = stopped.invoke("double", {"y": 1}, principal=LOCAL_MODEL)
    assert codes_of(bad) == [codes.INVALID_ARGUMENT.code] and bad.version == 1 and bad.errors[0].hint


def test_a_new_version_runs_at_the_next_call(stopped, make_def):
    stopped.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    outcome = stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL)
    assert (outcome.result, outcome.version) == (3, 2)


def test_a_new_version_written_by_another_process_runs_at_the_next_call(stopped, make_def):
    with Registry(stopped.location) as other:
        other.update("double", {"logic": make_def(expression="x * 5")["logic"]})
    outcome = stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL)
    assert (outcome.result, outcome.version) == (5, 2)


def test_a_tool_disabled_elsewhere_is_refused_at_the_next_call(stopped):
    with Registry(stopped.location) as other:
        other.disable("double")
    assert codes_of(stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL)) == [codes.TOOL_NOT_ACTIVE.code]


def test_a_new_policy_holds_the_next_call(stopped):
    stopped.policy = replace(stopped.policy, call_rules=(CallRule(principals=frozenset({"model"})),))
    held = stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL)
    assert held.pending and held.call is not None and codes_of(held) == [codes.CALL_PENDING.code]
    stopped.flush()
    assert stopped.get("double").usage_count == 2  # (it did not run)


def test_a_call_cleared_for_one_kind_of_caller_is_not_cleared_for_another(stopped):
    stopped.policy = replace(stopped.policy, call_rules=(CallRule(principals=frozenset({"model"})),))
    for _ in range(3):  # a person's calls run, and are remembered as such
        assert stopped.invoke("double", {"x": 1}, principal=LOCAL_USER).ok
    assert stopped.invoke("double", {"x": 1}, principal=TOKEN_MODEL).pending
    assert stopped.invoke("double", {"x": 1}, principal="llm").pending


def test_a_flag_an_admin_sets_on_the_tool_holds_the_next_call(stopped):
    stopped.require_call_approval("double", by="user")
    assert stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL).pending


def test_a_held_callee_holds_its_callers_next_call(stopped, make_def):
    caller = make_def(name="quadruple", expression="y")
    caller["logic"]["steps"].insert(0, {"op": "call", "tool": "double", "args": {"x": "x * 2"}, "output": "y"})
    stopped.create(caller)
    for _ in range(2):
        assert stopped.invoke("quadruple", {"x": 1}, principal=LOCAL_MODEL).result == 4
    stopped.require_call_approval("double", by="user")
    assert stopped.invoke("quadruple", {"x": 1}, principal=LOCAL_MODEL).pending


def test_the_registrys_limits_set_later_bound_the_next_call(stopped):
    stopped.limits = Limits(max_operations=1)
    assert codes_of(stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL)) == [codes.OPERATION_BUDGET.code]


def test_remembered_calls_are_counted_as_runs(stopped):
    for _ in range(5):
        stopped.invoke("double", {"x": 1}, principal=LOCAL_MODEL)
    stopped.flush()
    assert stopped.get("double").usage_count == 7


def test_a_change_mark_holds_until_a_change_or_the_watch_interval(tmp_path, make_def, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(hot_door, "_monotonic", lambda: now[0])
    with Registry(tmp_path / "reg") as reg:
        reg.create(make_def())
        mark = reg.change_mark()
        assert reg.unchanged_since(mark) and not reg.unchanged_since(None)
        reg.disable("double")  # this registry's own change
        assert not reg.unchanged_since(mark)
        mark = reg.change_mark()
        with Registry(reg.location) as other:  # another process's
            other.enable("double")
        assert not reg.unchanged_since(mark)
        mark = reg.change_mark()
        now[0] += 2 * WATCH_SECONDS  # (a hand edit of the folder is seen within it)
        assert not reg.unchanged_since(mark)
