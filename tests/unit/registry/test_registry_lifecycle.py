"""Statuses, the transitions between them, the policy that picks the first one, and runs."""

from decimal import Decimal

import pytest
from unit.registry.stores import kept_aside, stored_bytes

import toolkiln
from toolkiln.registry import (
    TRANSITIONS,
    DuplicateTool,
    InvalidRequest,
    InvalidTransition,
    Policy,
    Registry,
    ToolNotActive,
    ToolNotFound,
)
from toolkiln.registry.policy import next_actions

ACTIONS = ("enable", "disable", "approve", "reject")
STATUSES = ("active", "disabled", "pending_approval", "rejected")


def put_in(reg, make_def, status):
    """A tool in `status`, reached through legal transitions only."""
    risk = "high" if status in ("pending_approval", "rejected") else None
    record = reg.create(make_def(f"t_{status}", risk=risk), created_by="llm" if risk else "user")
    if status == "disabled":
        record = reg.disable(record.name)
    if status == "rejected":
        record = reg.reject(record.name)
    assert record.status == status
    return record


def test_create_get_list_and_record_fields(reg, make_def):
    record = reg.create(make_def())
    assert (
        record.name,
        record.description,
        record.kind,
        record.status,
        record.created_by,
        record.version,
        record.usage_count,
        record.last_used_at,
        record.risk_level,
    ) == ("double", "Doubles x", "compute", "active", "user", 1, 0, None, "low")
    assert record.parameters == {
        "type": "object",
        "properties": {"x": {"type": "number", "description": "The number"}},
        "required": ["x"],
        "additionalProperties": False,
    }
    assert record.definition["logic"]["steps"][0]["expression"] == "x * 2"
    assert record.created_at == record.updated_at and record.created_at.tzinfo is not None
    assert reg.get("double") == record
    assert [r.name for r in reg.list()] == ["double"] and "double" in reg and len(reg) == 1
    with pytest.raises(Exception) as frozen:
        record.status = "disabled"
    assert "frozen" in str(frozen.value).lower()


def test_text_dsl_definitions_are_stored_as_canonical_json(reg):
    record = reg.create('tool triple(x: number "A number")\ndescription "Triples"\n{\n  return x * 3\n}\n')
    assert record.definition["logic"] == {"steps": [{"op": "return", "value": "x * 3"}]}
    assert reg.run("triple", {"x": 2}) == 6


@pytest.mark.parametrize(
    ("created_by", "risk", "expected"),
    [
        ("user", None, "active"),
        ("user", "high", "active"),
        ("llm", None, "active"),
        ("llm", "low", "active"),
        ("llm", "medium", "active"),
        ("llm", "high", "pending_approval"),
    ],
)
def test_policy_decides_the_first_status(reg, make_def, created_by, risk, expected):
    assert reg.create(make_def(risk=risk), created_by=created_by).status == expected


def test_policy_for_later_kinds_and_custom_risks():
    policy = Policy()
    assert policy.initial_status("llm", "workflow", "low") == "pending_approval"
    assert policy.initial_status("llm", "executable", "low") == "pending_approval"
    assert policy.initial_status("user", "executable", "high") == "active"
    strict = Policy(llm_approval_risks=frozenset({"medium", "high"}))
    assert strict.initial_status("llm", "compute", "medium") == "pending_approval"


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("action", ACTIONS)
def test_only_the_transitions_of_the_table_are_allowed(reg, make_def, status, action):
    record = put_in(reg, make_def, status)
    target = TRANSITIONS.get((status, action))
    if target is None:
        with pytest.raises(InvalidTransition) as error:
            getattr(reg, action)(record.name)
        assert error.value.hint and record.name in error.value.message
        assert reg.get(record.name).status == status  # nothing changed
    else:
        assert getattr(reg, action)(record.name).status == target == reg.get(record.name).status


def test_approve_and_reject_only_from_pending():
    assert {source for (source, action) in TRANSITIONS if action in ("approve", "reject")} == {"pending_approval"}
    assert next_actions("pending_approval") == ["approve", "reject"]
    assert next_actions("rejected") == []


def test_only_active_tools_run(reg, make_def):
    for status in STATUSES:
        put_in(reg, make_def, status)
    assert reg.run("t_active", {"x": 21}) == 42
    for status in ("disabled", "pending_approval", "rejected"):
        with pytest.raises(ToolNotActive) as error:
            reg.run(f"t_{status}", {"x": 1})
        assert error.value.hint
    reg.approve("t_pending_approval")
    assert reg.run("t_pending_approval", {"x": 1}) == 2


def test_runs_count_usage_and_last_use_even_when_they_fail(reg, make_def):
    reg.create(make_def("ratio", "10 / x"))
    assert reg.run("ratio", {"x": 4}) == Decimal("2.5")
    with pytest.raises(toolkiln.RunError):
        reg.run("ratio", {"x": 0})
    record = reg.get("ratio")
    assert record.usage_count == 2 and record.last_used_at is not None
    reg.flush()
    assert Registry(reg.location).get("ratio").usage_count == 2


def test_usage_flushed_on_every_run_when_asked(tmp_path, make_def):
    with Registry(tmp_path / "r", usage_flush_seconds=0) as first:
        first.create(make_def())
        first.run("double", {"x": 1})
        assert Registry(tmp_path / "r").get("double").usage_count == 1


def test_run_errors_pass_through_with_codes(reg, make_def):
    reg.create(make_def())
    with pytest.raises(toolkiln.RunError) as error:
        reg.run("double", {"y": 1})
    assert error.value.code == "E0508"


def test_duplicate_names_are_refused_and_nothing_changes(reg, make_def):
    first = reg.create(make_def())
    with pytest.raises(DuplicateTool) as error:
        reg.create(make_def(expression="x * 3"))
    assert "update" in error.value.hint
    assert reg.get("double") == first and len(reg.audit_log()) == 1


def test_unknown_tools_suggest_a_close_name(reg, make_def):
    reg.create(make_def("shipping_cost"))
    with pytest.raises(ToolNotFound) as error:
        reg.get("shiping_cost")
    assert "shipping_cost" in error.value.hint
    for call in (reg.disable, reg.delete, reg.history):
        with pytest.raises(ToolNotFound):
            call("missing")


def test_list_filters(reg, make_def):
    reg.create(make_def("a"))
    reg.create(make_def("b"), created_by="llm")
    reg.create(make_def("c", risk="high"), created_by="llm")
    reg.disable("a")
    assert [r.name for r in reg.list(status="active")] == ["b"]
    assert [r.name for r in reg.list(created_by="llm")] == ["b", "c"]
    assert [r.name for r in reg.list(status="pending_approval", created_by="llm")] == ["c"]
    with pytest.raises(InvalidRequest):
        reg.list(status="enabled")
    with pytest.raises(InvalidRequest):
        reg.create(make_def("d"), created_by="robot")


def test_delete_then_create_again_starts_afresh(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x + x")["logic"]})
    reg.run("double", {"x": 1})
    reg.flush()
    reg.delete("double")
    assert "double" not in reg and reg._store.past_versions("double") == []
    again = reg.create(make_def())
    assert (again.version, again.usage_count) == (1, 0)
    assert [r.version for r in reg.history("double")] == [1]
    assert [e.action for e in reg.audit_log("double")] == ["create", "update", "delete", "create"]


def test_a_deleted_tool_is_kept_aside_with_its_past_versions(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x + x")["logic"]})
    before = stored_bytes(reg, "double")
    reg.delete("double")
    note = reg.audit_log("double")[-1].note
    assert note is not None and note.startswith("kept in ")
    assert kept_aside(reg, note) == (before, [1])
    with toolkiln.Registry(reg.location) as reopened:  # the backup is not a tool
        assert "double" not in reopened and reopened.problems == []
    reg.create(make_def())
    reg.delete("double")  # a second backup beside the first
    second = reg.audit_log("double")[-1].note
    assert second != note and kept_aside(reg, second)[1] == [] and kept_aside(reg, note)[1] == [1]


def test_audit_log_says_who_what_when_and_versions(reg, make_def):
    reg.create(make_def(), created_by="llm")
    reg.update("double", {"logic": make_def(expression="x + x")["logic"]}, by="llm")
    reg.disable("double", by="llm")
    reg.delete("double", by="llm")
    entries = reg.audit_log()
    assert [(e.by, e.action, e.old_version, e.new_version) for e in entries] == [
        ("llm", "create", None, 1),
        ("llm", "update", 1, 2),
        ("llm", "disable", 2, 2),
        ("llm", "delete", 2, None),
    ]
    assert entries[2].old_status == "active" and entries[2].new_status == "disabled"
    assert all(e.at.tzinfo is not None for e in entries)


def test_a_principal_names_who_acted_and_through_what_on_the_audit_line(reg, make_def):
    """A server passes its request's principal: the audit line says its kind and its token."""
    from concurrent.futures import ThreadPoolExecutor

    from toolkiln.registry import Principal

    bot = Principal("service", "ci-bot", "write", via="token ci-bot")
    reg.create(make_def(), created_by="user")
    reg.disable("double", by=bot)
    reg.enable("double")

    def rename_through(channel: str) -> None:  # concurrent calls each name their own principal
        reg.update("double", {"description": channel}, by=Principal("person", channel, "write", via=channel))

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(rename_through, ["token a", "token b"]))
    via = [(e.action, e.by, e.via) for e in reg.audit_log()]
    assert via[:3] == [("create", "user", None), ("disable", "service", "token ci-bot"), ("enable", "user", None)]
    assert sorted(via[3:]) == [("update", "user", "token a"), ("update", "user", "token b")]


def test_registry_errors_derive_from_toolkiln_error(reg):
    with pytest.raises(toolkiln.Error):
        reg.get("nope")
    assert issubclass(toolkiln.PermissionDenied, toolkiln.Error)


def test_import_toolkiln_stays_light_and_exports_the_registry():
    import subprocess
    import sys

    code = (
        "import sys, toolkiln; heavy = [m for m in ('filelock', 'jsonschema', 'networkx', 'toolkiln.registry') "
        "if m in sys.modules]; assert not heavy, heavy; "
        "assert toolkiln.Registry.__name__ == 'Registry' and 'filelock' in sys.modules; "
        "assert issubclass(toolkiln.PermissionDenied, toolkiln.Error) and toolkiln.ToolRecord"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert {"Registry", "ToolRecord", "PermissionDenied"} <= set(toolkiln.__all__) <= set(dir(toolkiln))
