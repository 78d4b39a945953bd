"""Registry.apply: the one door for changes; an Outcome with the record written, never a raise."""

from toolkiln.diagnostics import codes
from toolkiln.registry import Create, Delete, Lifecycle, Rollback, Update
from toolkiln.registry.principals import LOCAL_MODEL, LOCAL_USER


def test_each_change_gives_the_record_it_wrote_and_its_version(reg, make_def):
    created = reg.apply(Create(make_def(), note="from a test"), principal=LOCAL_USER)
    assert (created.ok, created.tool, created.version, created.result.name) == (True, "double", 1, "double")
    assert reg.audit_log("double")[-1].note == "from a test"
    changed = reg.apply(Update("double", {"logic": make_def(expression="x * 3")["logic"]}), principal="user")
    assert (changed.ok, changed.version) == (True, 2)
    assert reg.apply(Lifecycle("double", "disable"), principal="user").result.status == "disabled"
    assert reg.apply(Lifecycle("double", "enable"), principal="user").result.status == "active"
    back = reg.apply(Rollback("double", 1), principal="user")
    assert (back.ok, back.version) == (True, 3)
    assert reg.run("double", {"x": 2}) == 4
    gone = reg.apply(Delete("double"), principal="user")
    assert (gone.ok, gone.result, gone.version, gone.tool) == (True, None, None, "double")
    assert "double" not in reg


def test_a_reject_keeps_its_reason(reg, make_def):
    reg.apply(Create(make_def(risk="high")), principal=LOCAL_MODEL)
    outcome = reg.apply(Lifecycle("double", "reject", reason="rates are wrong"), principal="user")
    assert outcome.result.status == "rejected"
    assert reg.audit_log("double")[-1].note == "rates are wrong"


def test_a_refusal_is_an_outcome_with_coded_hinted_errors(reg, make_def):
    reg.create(make_def())
    refusals = [
        (Create(make_def()), "double", [codes.DUPLICATE_TOOL]),
        (Create(make_def("broken", expression="x *")), "broken", None),  # the diagnostics of the check
        (Update("nope", {"description": "x"}), "nope", [codes.TOOL_NOT_FOUND]),
        (Rollback("double", 7), "double", [codes.TOOL_NOT_FOUND]),
        (Lifecycle("double", "approve"), "double", [codes.INVALID_TRANSITION]),
        (Delete("Bad Name"), "Bad Name", [codes.TOOL_NAME_INVALID]),
        (Lifecycle("double", "explode"), "double", [codes.INVALID_REQUEST]),  # not an Action: raised KeyError
        (Lifecycle("double", ["enable"]), "double", [codes.INVALID_REQUEST]),
    ]
    for request, tool, found in refusals:
        outcome = reg.apply(request, principal="user")
        assert not outcome.ok and outcome.result is None and outcome.tool == tool, request
        assert outcome.errors and all(e.code and e.hint for e in outcome.errors), request
        if found is not None:
            assert [e.code for e in outcome.errors] == [code.code for code in found], request
    assert reg.get("double").version == 1


def test_a_models_change_the_policy_refuses_is_an_outcome(reg, make_def):
    reg.create(make_def())  # a person's tool
    outcome = reg.apply(Delete("double"), principal=LOCAL_MODEL)
    assert [e.code for e in outcome.errors] == [codes.PERMISSION_DENIED.code]
    assert outcome.reply() == {"ok": False, "errors": outcome.error_dicts, "message": outcome.message}
    assert outcome.message.startswith("`double` failed: ")
