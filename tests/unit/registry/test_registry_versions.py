"""Versions: which changes make one, where old ones are kept, history and rollback."""

import json

import pytest
from unit.registry.stores import contents, past_bytes, past_file, stored_bytes, write_version_by_hand

from toolkiln import CompileError
from toolkiln.registry import BrokenTool, InvalidRequest, Registry, ToolNotFound


def test_logic_and_parameter_changes_make_a_new_version_and_keep_the_old(reg, make_def):
    reg.create(make_def())
    v2 = reg.update("double", {"logic": make_def(expression="x + x + 1")["logic"]})
    assert v2.version == 2 and reg.run("double", {"x": 1}) == 3
    v3 = reg.update("double", {"parameters": {"x": {"type": "integer"}}})
    assert v3.version == 3 and v3.parameters["properties"]["x"] == {"type": "integer"}
    assert reg._store.past_versions("double") == [1, 2]
    assert json.loads(past_bytes(reg, "double", 1))["definition"]["logic"]["steps"][0]["expression"] == "x * 2"
    assert [r.version for r in reg.history("double")] == [1, 2, 3]
    assert reg.history("double")[0].definition["logic"]["steps"][0]["expression"] == "x * 2"


def test_a_description_change_is_made_in_place(reg, make_def):
    created = reg.create(make_def())
    changed = reg.update("double", {"description": "Twice x"})
    assert (changed.version, changed.description, changed.definition["description"]) == (1, "Twice x", "Twice x")
    assert changed.updated_at > created.updated_at
    assert reg._store.past_versions("double") == []
    assert reg.audit_log("double")[-1].note == "description only"


def test_an_update_that_changes_nothing_writes_nothing(reg, make_def):
    created = reg.create(make_def())
    assert reg.update("double", {"description": "Doubles x"}) == created
    assert len(reg.audit_log()) == 1


def test_risk_level_changes_are_versions_and_can_need_approval(reg, make_def):
    reg.create(make_def(), created_by="llm")
    record = reg.update("double", {"riskLevel": "high"}, by="llm")
    assert (record.version, record.risk_level, record.status) == (2, "high", "pending_approval")
    record = reg.update("double", {"risk_level": "low"}, by="llm")  # snake_case is understood too
    assert (record.version, record.status) == (3, "pending_approval")  # once queued, a person decides
    assert reg.approve("double").status == "active"


def test_status_after_a_change(reg, make_def):
    reg.create(make_def("a"))
    reg.disable("a")
    assert reg.update("a", {"logic": make_def(expression="x")["logic"]}).status == "disabled"
    reg.create(make_def("b", risk="high"), created_by="llm")
    reg.reject("b")
    assert reg.update("b", {"riskLevel": "low"}, by="llm").status == "pending_approval"  # reviewed again
    assert reg.update("b", {"riskLevel": "medium"}, by="user").status == "active"  # a person's change


def test_a_whole_new_definition_as_text(reg, make_def):
    reg.create(make_def())
    record = reg.update("double", 'tool double(x: number)\ndescription "Doubles x"\n{\n  return x + x\n}\n')
    assert record.version == 2 and reg.run("double", {"x": 4}) == 8
    record = reg.update("double", {"definition": make_def(expression="2 * x")})
    assert record.version == 3


def test_bad_changes_raise_compile_error_and_write_nothing(reg, make_def):
    reg.create(make_def())
    before = contents(reg)
    with pytest.raises(CompileError) as error:
        reg.update("double", {"logic": {"steps": [{"op": "return", "value": "y * 2"}]}})
    assert error.value.diagnostics[0].code == "E0201"
    with pytest.raises(CompileError) as error:
        reg.update("double", {"logik": {}, "name": "other"})
    assert {d.code for d in error.value.diagnostics} == {"E0109", "E0110"}
    assert "logic" in error.value.diagnostics[1].hint or "logic" in error.value.diagnostics[0].hint
    with pytest.raises(CompileError):
        reg.update("double", 'tool renamed(x: number)\ndescription "d"\n{\n  return x\n}\n')
    with pytest.raises(CompileError):
        reg.update("double", {"definition": {}, "description": "x"})
    assert contents(reg) == before and reg.get("double").version == 1 and len(reg.audit_log()) == 1


def test_rollback_makes_a_new_version_from_an_old_one(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    reg.update("double", {"logic": make_def(expression="x * 4")["logic"]})
    record = reg.rollback("double", 1)
    assert record.version == 4 and reg.run("double", {"x": 1}) == 2
    assert [r.version for r in reg.history("double")] == [1, 2, 3, 4]
    entry = reg.audit_log("double")[-1]
    assert (entry.action, entry.old_version, entry.new_version, entry.note) == ("rollback", 3, 4, "to version 1")
    assert reg.rollback("double", 3).version == 5 and reg.run("double", {"x": 1}) == 4


def test_rollback_to_a_version_that_does_not_exist(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    for version in (0, 3, 99, -1):
        with pytest.raises(ToolNotFound):
            reg.rollback("double", version)
    with pytest.raises(InvalidRequest):
        reg.rollback("double", 2)  # the current one
    with pytest.raises(InvalidRequest):
        reg.rollback("double", "1")


def test_rollback_to_a_version_that_no_longer_compiles(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    data = json.loads(past_bytes(reg, "double", 1))
    data["definition"]["logic"]["steps"][0]["expression"] = "x *"
    write_version_by_hand(reg, "double", 1, json.dumps(data))
    with pytest.raises(BrokenTool) as error:
        reg.rollback("double", 1)
    assert error.value.diagnostics and reg.get("double").version == 2


def test_a_version_file_left_by_a_dead_update_is_ignored(reg, make_def):
    reg.create(make_def())
    # An update that wrote the past version file and died before replacing the record:
    write_version_by_hand(reg, "double", 1, stored_bytes(reg, "double").decode())
    assert [r.version for r in reg.history("double")] == [1]
    assert reg.update("double", {"logic": make_def(expression="x * 3")["logic"]}).version == 2
    assert [r.version for r in reg.history("double")] == [1, 2]


def test_versions_survive_a_restart(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    again = Registry(reg.location)
    assert [r.version for r in again.history("double")] == [1, 2]
    assert again.run("double", {"x": 1}) == 3


def test_a_broken_past_version_is_reported_and_left_out_of_history(reg, make_def):

    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    reg.update("double", {"logic": make_def(expression="x * 4")["logic"]})
    write_version_by_hand(reg, "double", 1, '{"name": "double"')
    assert [r.version for r in reg.history("double")] == [2, 3]
    assert [p.file for p in reg.problems] == [past_file(reg, "double", 1)]
    with pytest.raises(BrokenTool) as error:
        reg.rollback("double", 1)
    assert error.value.diagnostics[0].code == "E0105"
