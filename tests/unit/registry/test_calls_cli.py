"""`toolkiln calls`: list, show, approve and deny the calls held for approval, as the local user."""

from __future__ import annotations

import json

import pytest

from toolkiln import Registry
from toolkiln.cli import main
from toolkiln.registry.principals import LOCAL_MODEL

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}


@pytest.fixture
def calls(registry_location, capsys):
    """calls(*args) -> (exit code, stdout, stderr), in-process, on the test's registry."""

    def run(*args):
        code = main(["calls", *map(str, args), "--registry", str(registry_location)])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, out, err

    return run


@pytest.fixture
def held(registry_location):
    """Two calls of a flagged tool by the local user's model, waiting."""
    with Registry(registry_location) as reg:
        reg.create(DOUBLE)
        reg.require_call_approval("double")
        return [reg.invoke("double", {"x": x}, principal=LOCAL_MODEL, conversation="cli").call for x in (21, 1)]


def test_list_approve_and_deny_from_the_command_line(calls, held):
    first, second = held
    code, out, _ = calls("list")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == [first, second]
    assert "double v1  by model local user" in out
    code, out, err = calls("approve", first, "--reason", "fine")
    assert (code, out.strip()) == (0, "42") and "it ran" in err
    code, out, _ = calls("deny", second, "--reason", "one is enough")
    assert code == 0 and "denied" in out
    code, out, _ = calls("list", "--status", "all")
    assert "approved (fine)" in out and "denied (one is enough)" in out
    code, out, _ = calls("show", second)
    shown = json.loads(out)
    assert (shown["status"], shown["reason"], shown["arguments"], shown["conversation"]) == (
        "denied",
        "one is enough",
        {"x": 1},
        "cli",
    )


def test_a_decision_not_taken_exits_1_with_its_code(calls, held):
    first, _ = held
    assert calls("approve", first)[0] == 0
    code, _, err = calls("deny", first, "--reason", "too late")
    assert code == 1 and "error[R0733]" in err
    code, _, err = calls("show", "c" + "0" * 24)
    assert code == 1 and "error[R0732]" in err
    with pytest.raises(SystemExit) as usage:  # a denial needs its reason
        calls("deny", first)
    assert usage.value.code == 2


def test_require_makes_each_call_of_a_tool_wait_and_off_undoes_it(calls, registry_location):
    with Registry(registry_location) as reg:
        reg.create(DOUBLE)
    code, out, _ = calls("require", "double")
    assert code == 0 and "waits for a person's approval" in out
    with Registry(registry_location) as reg:
        assert reg.invoke("double", {"x": 1}, principal=LOCAL_MODEL).pending
    assert calls("require", "double", "--off")[0] == 0
    with Registry(registry_location) as reg:
        assert reg.invoke("double", {"x": 1}, principal=LOCAL_MODEL).ok
    code, _, err = calls("require", "nope")
    assert code == 1 and "R0102" in err
