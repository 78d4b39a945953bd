"""`tools run` reading only the tool's file (registry/folder_run.py, issue 34): it answers what
`Registry.invoke` answers for an active compute tool that calls nothing, reads no table, is not
pinned and waits for no approval, counts the run in usage.json, and declines (None) everything
else, for the registry to answer as it always did. About a folder only (the run path of a
database opens the registry), so each test makes its registry in `tmp_path`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from unit.n8n.fake_n8n import FakeN8n

from toolkiln.cli import main
from toolkiln.registry import Registry, flock
from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder
from toolkiln.registry.folder_run import run_in_folder
from toolkiln.registry.policy import DEFAULT_POLICY
from toolkiln.registry.principals import Principal

ADMIN = Principal("person", "root", "admin", via="token root")


def shipping(name: str = "shipping_cost", steps: list | None = None, **extra) -> dict:
    return {
        "name": name,
        "description": "Shipping cost of a parcel",
        "parameters": {"weight_kg": {"type": "number"}},
        "logic": {"steps": steps or [{"op": "return", "value": "weight_kg * 2.5 + 5"}]},
        **extra,
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    with Registry(root) as reg:
        reg.create(shipping())
    return root


def runs_counted(root: Path, name: str) -> int:
    with Registry(root) as reg:
        return reg.get(name).usage_count


def test_it_answers_what_invoke_answers_and_counts_the_run(folder):
    done = run_in_folder(folder, "shipping_cost", {"weight_kg": 12}, clock=None)
    assert done is not None and done.outcome.ok
    with Registry(folder) as reg:
        expected = reg.invoke("shipping_cost", {"weight_kg": 12}, principal="user")
    assert (done.outcome.result, done.outcome.version, done.outcome.tool) == (
        expected.result,
        expected.version,
        expected.tool,
    )
    assert done.outcome.result == Decimal("35.0") and done.count_not_written is None
    assert runs_counted(folder, "shipping_cost") == 2  # this run and invoke's


def test_a_failed_run_is_the_outcome_invoke_gives_and_counts_too(folder):
    done = run_in_folder(folder, "shipping_cost", {"weight_kg": "heavy"}, clock=None)
    assert done is not None and not done.outcome.ok
    with Registry(folder) as reg:
        expected = reg.invoke("shipping_cost", {"weight_kg": "heavy"}, principal="user")
    assert done.outcome.errors == expected.errors and done.outcome.version == expected.version
    assert runs_counted(folder, "shipping_cost") == 2


def test_a_count_that_cannot_be_written_is_said_and_the_run_stands(folder):
    (folder / "usage.json").mkdir()  # (a folder where the file belongs: it cannot be replaced)
    done = run_in_folder(folder, "shipping_cost", {"weight_kg": 1}, clock=None)
    assert done is not None and done.outcome.ok
    assert done.count_not_written is not None
    assert done.count_not_written.startswith("run counts not written: ")
    assert done.count_not_written.endswith("1 run(s) are kept in memory and written at the next flush")


def _disabled(reg: Registry) -> None:
    reg.disable("shipping_cost")


def _pending(reg: Registry) -> str:
    reg.create(shipping("risky", riskLevel="high"), created_by="llm")  # (a model's high-risk tool waits)
    assert reg.get("risky").status == "pending_approval"
    return "risky"


def _approval_of_each_call(reg: Registry) -> None:
    reg.require_call_approval("shipping_cost", by=ADMIN)


CALL = [
    {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "weight_kg"}, "output": "cost"},
    {"op": "return", "value": "cost"},
]


def _a_caller(reg: Registry) -> str:
    reg.create(shipping("caller", CALL))
    return "caller"


def _a_pinned_caller(reg: Registry) -> str:
    reg.create(shipping("caller", CALL, riskLevel="high"), created_by="llm")
    reg.approve("caller", by="user")
    assert reg.get("caller").pins
    return "caller"


def _a_table_reader(reg: Registry) -> str:
    (reg.path / "tables" / "rates.json").write_text('{"a": 2}')
    steps = [
        {"op": "lookup", "table": "rates", "key": "'a'", "output": "rate"},
        {"op": "return", "value": "weight_kg * rate"},
    ]
    reg.create(shipping("by_rate", steps))
    return "by_rate"


def _hand_edited(edit):
    def change(reg: Registry) -> None:
        path = reg.path / "tools" / "shipping_cost.json"
        record = json.loads(path.read_text())
        edit(record)
        path.write_text(json.dumps(record, indent=2))

    return change


WORKFLOW = """workflow order_total
description "Prices an order"
on webhook POST "/orders" respond with node
set priced { total = body.qty * body.price }
respond reply priced
"""


def _a_workflow_without_its_deployment(reg: Registry) -> str:
    """A workflow tool's record without its deployment: the registry no longer believes it."""
    fake = FakeN8n()
    with Registry(reg.path, n8n=fake.client()) as with_n8n:
        definition = {
            "kind": "workflow",
            "name": "order_total",
            "description": "Prices an order",
            "parameters": {"qty": {"type": "integer"}, "price": {"type": "number", "default": 2.5}},
            "workflow": WORKFLOW,
        }
        with_n8n.create(definition)
    path = reg.path / "tools" / "order_total.json"
    record = json.loads(path.read_text())
    del record["deployment"]
    path.write_text(json.dumps(record))
    return "order_total"


def _a_link(reg: Registry) -> None:
    path = reg.path / "tools" / "shipping_cost.json"
    target = reg.path / "elsewhere.json"
    path.rename(target)
    os.symlink(target, path)


DECLINED = {
    "disabled": _disabled,
    "pending approval": _pending,
    "approval of each call": _approval_of_each_call,
    "a caller": _a_caller,
    "a pinned caller": _a_pinned_caller,
    "a table reader": _a_table_reader,
    "a workflow without its deployment": _a_workflow_without_its_deployment,
    "a pin by hand": _hand_edited(lambda r: r.update(pins={"other": {"version": 1, "digest": "0" * 64}})),
    "an unknown field": _hand_edited(lambda r: r.update(colour="red")),
    "a status by hand": _hand_edited(lambda r: r.update(status="enabled")),
    "a version in text": _hand_edited(lambda r: r.update(version="1")),
    "another kind": _hand_edited(lambda r: r.update(kind="script")),
    "another name inside": _hand_edited(lambda r: r.update(name="other")),
    "a record that does not match its definition": _hand_edited(lambda r: r.update(description="changed")),
    "a definition that does not check": _hand_edited(lambda r: r["definition"]["logic"].update(steps=[])),
    "a link": _a_link,
}


@pytest.mark.parametrize("case", DECLINED)
def test_what_the_registry_must_answer_is_declined(folder, case):
    with Registry(folder) as reg:
        name = DECLINED[case](reg) or "shipping_cost"
    assert run_in_folder(folder, name, {"weight_kg": 1}, clock=None) is None


@pytest.mark.parametrize("name", ["missing", "Shipping", "../shipping_cost", ""])
def test_a_name_with_no_file_is_declined(folder, name):
    assert run_in_folder(folder, name, {}, clock=None) is None


def test_a_registry_that_is_no_folder_is_declined(tmp_path):
    assert run_in_folder(tmp_path / "nothing", "shipping_cost", {}, clock=None) is None
    assert not (tmp_path / "nothing").exists()  # (declining makes nothing)


def test_the_default_policy_holds_no_call_for_approval():
    """folder_run runs as the local user under the default policy without asking its call
    rules: were the default to hold calls, it would have to decline them."""
    assert DEFAULT_POLICY.call_rules == ()


def _cli(folder: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["tools", "run", "shipping_cost", "--registry", str(folder), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "args",
    [
        ["--args", '{"weight_kg": 12}'],
        ["--args", '{"weight_kg": 12}', "--decimals", "string"],
        ["--args", '{"weight_kg": "heavy"}'],
        ["--args", "{}"],
    ],
)
def test_the_command_line_says_what_it_said_through_the_registry(folder, capsys, monkeypatch, args):
    quick = _cli(folder, capsys, *args)
    monkeypatch.setattr("toolkiln.registry.folder_run.run_in_folder", lambda *a, **k: None)
    assert _cli(folder, capsys, *args) == quick
    assert runs_counted(folder, "shipping_cost") == 2


def test_a_division_by_zero_is_shown_where_it_happened_as_before(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "registry"
    with Registry(folder) as reg:
        reg.create(shipping(steps=[{"op": "return", "value": "10 / (weight_kg - 1)"}]))
    quick = _cli(folder, capsys, "--args", '{"weight_kg": 1}')
    assert quick[0] == 1 and "^" in quick[2]
    monkeypatch.setattr("toolkiln.registry.folder_run.run_in_folder", lambda *a, **k: None)
    assert _cli(folder, capsys, "--args", '{"weight_kg": 1}') == quick


@pytest.mark.parametrize(
    ("case", "code"),
    [("a pin by hand", "R0710"), ("disabled", "R0203"), ("a definition that does not check", "R0301")],
)
def test_the_command_line_refuses_what_it_refused_with_the_same_code(folder, capsys, case, code):
    with Registry(folder) as reg:
        DECLINED[case](reg)
    done, out, err = _cli(folder, capsys, "--args", '{"weight_kg": 1}')
    assert (done, out) == (1, "") and f"[{code}]" in err


# --- the lock a one-shot run takes to count itself (registry/flock.py) -----------------------


def test_a_one_shot_lock_and_the_folders_filelock_exclude_each_other(folder):
    one_shot, writer = Folder(folder, one_shot=True, lock_timeout=0.05), Folder(folder, lock_timeout=0.05)
    with writer.lock(), pytest.raises(StoreError, match="stayed locked"), one_shot.lock():
        pass
    with one_shot.lock(), pytest.raises(StoreError, match="stayed locked"), writer.lock():
        pass
    with one_shot.lock():  # (let go each time)
        pass
    with writer.lock():
        pass


def test_where_flock_cannot_be_used_the_folder_takes_filelocks_way(folder, monkeypatch):
    monkeypatch.setattr(flock, "fcntl", None)
    one_shot, writer = Folder(folder, one_shot=True, lock_timeout=0.05), Folder(folder, lock_timeout=0.05)
    with one_shot.lock(), pytest.raises(StoreError, match="stayed locked"), writer.lock():
        pass
    assert "filelock" in sys.modules


def test_no_run_is_lost_between_one_shot_runs_and_a_registry_counting_its_own(folder):
    command = [sys.executable, "-m", "toolkiln", "tools", "run", "shipping_cost", "--registry", str(folder)]
    runs = [subprocess.Popen([*command, "--args", '{"weight_kg": 1}'], stdout=subprocess.PIPE) for _ in range(4)]
    with Registry(folder, usage_flush_seconds=0) as reg:  # (every run of its own written under the lock)
        for _ in range(40):
            reg.run("shipping_cost", {"weight_kg": 1})
    assert [run.communicate()[0].strip() for run in runs] == [b"7.5"] * 4
    assert runs_counted(folder, "shipping_cost") == 44
