"""Nothing slow under the registry's lock (issue 24, items 3 and 5).

A change is checked (compiled, its executable read, its examples run) without the in-process
mutex or the folder's lock, then confirmed under them: what it was checked against must not
have changed meanwhile, else it is checked again. A check that saves nothing has a total
time budget (R0305). Calls to n8n are made without the lock too. Each test holds a change at
its examples (a patched run_examples that waits for the test) or at n8n (an in-memory n8n that
waits), and looks at what the rest of the registry can do meanwhile.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from unit.n8n.fake_n8n import FakeN8n

from toolkiln import CompileError, Limits, Registry
from toolkiln.executables import program_tools
from toolkiln.registry import admission, compiled_forms
from toolkiln.registry.errors import CheckTooSlow, DuplicateTool

SPIN = "len([v ** 0.12345 + v ** 0.54321 for v in range(n)])"  # n = 60,000: within the operations, past max_seconds


class HeldExamples:
    """Replaces the examples' runner: the first check to reach its examples waits there until
    `release()`; later checks run theirs at once."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reached, self._released = threading.Event(), threading.Event()
        real = admission.run_examples

        def held(*args, **kwargs):
            if not self.reached.is_set():
                self.reached.set()
                assert self._released.wait(30), "the test never released the check"
            return real(*args, **kwargs)

        monkeypatch.setattr(admission, "run_examples", held)

    def release(self) -> None:
        self._released.set()


class Background(threading.Thread):
    """`work()` in a thread; `.outcome()` its result or the exception it raised."""

    def __init__(self, work) -> None:
        super().__init__(daemon=True)
        self._work, self._result = work, None
        self.start()

    def run(self) -> None:
        try:
            self._result = ("ok", self._work())
        except Exception as error:  # noqa: BLE001 - handed to the test
            self._result = ("error", error)

    def outcome(self):
        self.join(30)
        assert not self.is_alive(), "the background call did not end"
        return self._result


def with_example(definition: dict, args: dict, expect) -> dict:
    return {**definition, "examples": [{"args": args, "expect": expect}]}


def test_a_create_being_checked_holds_neither_the_lock_nor_the_registry(reg, make_def, registry_location, monkeypatch):
    reg.create(make_def("double"))
    held = HeldExamples(monkeypatch)
    creating = Background(lambda: reg.create(with_example(make_def("triple", "x * 3"), {"x": 2}, 6)))
    assert held.reached.wait(10)
    try:
        # The folder's lock is free: another process (here another Registry) writes at once.
        with Registry(registry_location, lock_timeout=1) as other:
            other.create(make_def("half", "x / 2"))
        assert reg.run("double", {"x": 4}) == 8  # and this registry answers
        assert "half" in reg
    finally:
        held.release()
    assert creating.outcome()[0] == "ok"
    assert reg.run("triple", {"x": 2}) == 6


def test_a_callee_changed_during_the_check_is_checked_again(reg, make_def, registry_location, monkeypatch):
    reg.create(make_def("base", "x + 1"))
    caller = make_def("caller", "x")
    caller["logic"] = {
        "steps": [
            {"op": "call", "tool": "base", "args": {"x": "x"}, "output": "r"},
            {"op": "return", "value": "r"},
        ]
    }
    held = HeldExamples(monkeypatch)
    creating = Background(lambda: reg.create(with_example(caller, {"x": 1}, 2)))
    assert held.reached.wait(10)
    with Registry(registry_location) as other:  # meanwhile `base` loses its parameter `x`
        other.update(
            "base", {"parameters": {"y": {"type": "number"}}, "logic": {"steps": [{"op": "return", "value": "y"}]}}
        )
    held.release()
    kind, error = creating.outcome()
    assert kind == "error" and isinstance(error, CompileError), error  # checked again: `x` is gone
    assert "caller" not in reg


def test_an_update_changed_during_its_check_keeps_both_changes(reg, make_def, registry_location, monkeypatch):
    reg.create(with_example(make_def("price", "x * 2"), {"x": 1}, 2))
    held = HeldExamples(monkeypatch)
    describing = Background(lambda: reg.update("price", {"description": "Twice the price"}))
    assert held.reached.wait(10)
    with Registry(registry_location) as other:
        other.update("price", {"riskLevel": "medium"})
    held.release()
    assert describing.outcome()[0] == "ok"
    record = reg.get("price")
    assert (record.description, record.risk_level) == ("Twice the price", "medium")
    assert [entry.action for entry in reg.audit_log("price")] == ["create", "update", "update"]


SPINNING = {
    "name": "spin",
    "description": "Spins",
    "parameters": {"n": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": SPIN}]},
    "examples": [{"args": {"n": 60_000}, "expect": 60_000}] * 20,
}


def test_a_check_that_saves_nothing_ends_within_its_budget(tmp_path):
    definition, spin = SPINNING, SPINNING["examples"][0]
    with Registry(tmp_path / "reg", limits=Limits(max_seconds=0.2)) as reg:
        assert reg.check_seconds == 0.4
        started = time.monotonic()
        with pytest.raises(CheckTooSlow) as raised:
            reg.check_definition(definition, seconds=reg.check_seconds)
        assert time.monotonic() - started < 0.4 + 1.0  # not 20 x 0.2 s
        assert raised.value.code == "R0305"
        with pytest.raises(CompileError):  # without a budget: every example ran out of its own time
            reg.check_definition({**definition, "examples": [spin] * 2})


def test_the_editor_and_the_test_meta_tool_check_within_the_budget(tmp_path):
    from toolkiln.server.web.editor import diagnose

    with Registry(tmp_path / "reg", limits=Limits(max_seconds=0.1)) as reg:
        reply = reg.call_meta("test_custom_tool", {"definition": SPINNING, "args": {"n": 1}})
        assert reply["ok"] is False and [e["code"] for e in reply["errors"]] == ["R0305"]
        assert [d.code for d in diagnose(reg, json.dumps(SPINNING))] == ["R0305"]


def test_a_check_stuck_on_a_file_answers_within_its_budget_and_holds_nothing(
    registry_location, reg, make_def, tmp_path, monkeypatch
):
    reg.create(make_def("double"))
    program = tmp_path / "slow"
    program.write_text("#!/bin/sh\n")
    # A FIFO is refused at once now (R0613); a read that does not end stands in for a slow disk.
    released = threading.Event()
    monkeypatch.setattr(program_tools, "read_program", lambda path, **_: released.wait() and (b"", ""))
    stuck = {"kind": "executable", "name": "stuck", "description": "Reads slowly", "path": str(program)}
    try:
        started = time.monotonic()
        with pytest.raises(CheckTooSlow):
            reg.check_definition(stuck, seconds=0.5)
        assert time.monotonic() - started < 0.5 + 1.0
        assert reg.run("double", {"x": 1}) == 2  # the check still stuck on the file holds no lock
        with Registry(registry_location, lock_timeout=1) as other:
            other.create(make_def("half", "x / 2"))
    finally:
        released.set()  # let the stuck reader go


WORKFLOW = {
    "kind": "workflow",
    "name": "order_total",
    "description": "Prices an order",
    "parameters": {"qty": {"type": "integer"}},
    "workflow": 'workflow order_total\ndescription "Prices an order"\non webhook POST "/orders" respond with node\n'
    "set priced { total = body.qty * 2 }\nrespond reply priced\n",
}


class HeldN8n(FakeN8n):
    """The in-memory n8n, whose first request waits until `release()`."""

    def __init__(self) -> None:
        super().__init__()
        self.reached, self._released = threading.Event(), threading.Event()

    def __call__(self, request):
        if not self.reached.is_set():
            self.reached.set()
            assert self._released.wait(30), "the test never released n8n"
        return super().__call__(request)

    def release(self) -> None:
        self._released.set()


@pytest.mark.parametrize("who", ["user", "llm"])  # deployed by the create, or by the approval
def test_n8n_is_called_without_the_lock(registry_location, make_def, who):
    n8n = HeldN8n()
    with Registry(registry_location, n8n=n8n.client()) as reg:
        reg.create(make_def("double"))
        if who == "llm":
            reg.create(WORKFLOW, created_by="llm")  # waits for a person: nothing deployed yet
        deploying = Background(lambda: reg.create(WORKFLOW) if who == "user" else reg.approve("order_total"))
        assert n8n.reached.wait(10)
        try:
            with Registry(registry_location, lock_timeout=1) as other:
                other.create(make_def("half", "x / 2"))
            assert reg.run("double", {"x": 4}) == 8
        finally:
            n8n.release()
        kind, record = deploying.outcome()
        assert kind == "ok", record
        assert record.status == "active" and record.deployment is not None
        assert list(n8n.workflows) == [record.deployment.workflow_id]


def test_a_create_that_loses_its_name_while_deploying_takes_its_workflow_away(registry_location, make_def):
    n8n = HeldN8n()
    with Registry(registry_location, n8n=n8n.client()) as reg:
        creating = Background(lambda: reg.create(WORKFLOW))
        assert n8n.reached.wait(10)
        with Registry(registry_location) as other:  # the name is taken while n8n deploys
            other.create(make_def("order_total"))
        n8n.release()
        kind, error = creating.outcome()
        assert kind == "error" and isinstance(error, DuplicateTool), error
        assert n8n.workflows == {}  # not left behind in n8n
        assert reg.get("order_total").kind == "compute"


class CountingMutex:
    """The registry's mutex, counting the definitions checked in each hold (`most`: the largest)."""

    def __init__(self) -> None:
        self._lock, self._depth = threading.RLock(), 0
        self.checks = self.most = 0

    def __enter__(self) -> None:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            self.checks = 0

    def __exit__(self, *exc) -> None:
        self._depth -= 1
        self._lock.release()

    def checked(self) -> None:
        self.checks += 1
        self.most = max(self.most, self.checks)


def test_the_problems_check_holds_the_registry_for_one_definition_at_a_time(tmp_path, make_def, monkeypatch):
    with Registry(tmp_path / "reg") as reg:
        for name in ("a_one", "b_two", "c_three"):
            reg.create(make_def(name))
    with Registry(tmp_path / "reg", trust_check_cache=False) as reg:
        counting = reg._mutex = CountingMutex()
        real = compiled_forms.verify_stored

        def counted(*args, **kwargs):
            counting.checked()
            return real(*args, **kwargs)

        monkeypatch.setattr(compiled_forms, "verify_stored", counted)
        assert reg.problems == []
        assert counting.most == 1  # a run or a write waits for one definition's check at most
