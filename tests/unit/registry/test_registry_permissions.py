"""Who may do what: models and people."""

import pytest

import toolkiln
from toolkiln.registry import InvalidRequest, PermissionDenied, Policy, Registry


def test_a_model_cannot_delete_a_tool_a_person_created(reg, make_def):
    reg.create(make_def(), created_by="user")
    with pytest.raises(toolkiln.PermissionDenied) as error:
        reg.delete("double", by="llm")
    assert "person" in error.value.message and error.value.hint
    assert "double" in reg and [e.action for e in reg.audit_log()] == ["create"]
    reg.delete("double", by="user")
    assert "double" not in reg


def test_a_model_cannot_change_a_tool_a_person_created(reg, make_def):
    reg.create(make_def("a"))
    reg.create(make_def("b"))
    reg.update("b", {"logic": make_def(expression="x * 3")["logic"]})
    reg.disable("b")
    for call in (
        lambda: reg.update("a", {"description": "mine now"}, by="llm"),
        lambda: reg.disable("a", by="llm"),
        lambda: reg.enable("b", by="llm"),
        lambda: reg.rollback("b", 1, by="llm"),
    ):
        with pytest.raises(PermissionDenied):
            call()
    assert reg.get("a").description == "Doubles x" and reg.get("b").status == "disabled"


def test_a_model_manages_its_own_tools(reg, make_def):
    reg.create(make_def(), created_by="llm")
    reg.update("double", {"description": "Twice"}, by="llm")
    reg.disable("double", by="llm")
    reg.enable("double", by="llm")
    reg.delete("double", by="llm")
    assert "double" not in reg


def test_a_person_manages_a_models_tools(reg, make_def):
    reg.create(make_def(), created_by="llm")
    reg.update("double", {"description": "Twice"}, by="user")
    reg.delete("double", by="user")


def test_only_a_person_approves_or_rejects(reg, make_def):
    reg.create(make_def(risk="high"), created_by="llm")
    for action in (reg.approve, reg.reject):
        with pytest.raises(PermissionDenied) as error:
            action("double", by="llm")
        assert "only a person" in error.value.message
    assert reg.get("double").status == "pending_approval"
    assert reg.approve("double", by="user").status == "active"


def test_a_policy_can_let_models_change_every_tool(tmp_path, make_def):
    reg = Registry(tmp_path / "r", policy=Policy(protect_user_tools=False))
    reg.create(make_def())
    reg.update("double", {"description": "x2"}, by="llm")
    reg.delete("double", by="llm")


def test_unknown_actors_are_refused(reg, make_def):
    reg.create(make_def())
    for call in (
        lambda: reg.delete("double", by="admin"),
        lambda: reg.disable("double", by=None),
        lambda: reg.list(created_by="root"),
    ):
        with pytest.raises(InvalidRequest):
            call()


def test_a_service_creates_like_a_person_but_never_approves_and_a_model_cannot_touch_its_tools(reg, make_def):
    from toolkiln.registry import Principal

    ci = Principal("service", "ci", "admin", via="token ci")
    agent = Principal("model", "agent", "admin", via="token agent")
    record = reg.create(make_def(), created_by=ci)
    assert (record.status, record.created_by) == ("active", "service")
    with pytest.raises(toolkiln.PermissionDenied, match="created by a service"):
        reg.update("double", {"description": "mine now"}, by=agent)
    reg.create(make_def("risky", risk="high"), created_by=agent)
    with pytest.raises(toolkiln.PermissionDenied, match="only a person"):
        reg.approve("risky", by=ci)
