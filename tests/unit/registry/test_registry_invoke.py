"""Registry.invoke: the one door a caller runs a tool through; an Outcome, never a raise."""

from decimal import Decimal

from toolkiln.diagnostics import codes
from toolkiln.registry import Registry
from toolkiln.registry import registry as registry_module
from toolkiln.registry.principals import LOCAL_MODEL


def test_a_run_that_works_gives_its_result_and_the_version_that_ran(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    outcome = reg.invoke("double", {"x": 2}, principal=LOCAL_MODEL)
    assert (outcome.ok, outcome.result, outcome.errors, outcome.version, outcome.tool) == (
        True,
        Decimal(6),
        (),
        2,
        "double",
    )


def test_the_version_reported_is_the_one_that_ran_when_another_writer_changes_it(reg, make_def, monkeypatch):
    reg.create(make_def())
    other = Registry(reg.location)
    run_tool = Registry._run_tool

    def changed_meanwhile(self, *args, **kwargs):
        result = run_tool(self, *args, **kwargs)
        other.update("double", {"logic": make_def(expression="x * 10")["logic"]})  # after the run, before the answer
        return result

    monkeypatch.setattr(Registry, "_run_tool", changed_meanwhile)
    outcome = reg.invoke("double", {"x": 2}, principal="user")
    assert (outcome.result, outcome.version) == (Decimal(4), 1)
    assert reg.get("double").version == 2
    other.close()


def test_a_refusal_is_an_outcome_with_a_coded_hinted_error(reg, make_def):
    reg.create(make_def())
    for name, code in [
        ("nope", codes.TOOL_NOT_FOUND),
        (3, codes.TOOL_NAME_INVALID),
        ("Bad Name", codes.TOOL_NAME_INVALID),
    ]:
        outcome = reg.invoke(name, {}, principal="llm")
        assert not outcome.ok and outcome.result is None and outcome.version is None
        assert [e.code for e in outcome.errors] == [code.code]
        assert all(e.hint for e in outcome.errors)
    assert reg.invoke(3, {}, principal="llm").tool == "3"


def test_a_tool_that_is_not_active_is_refused_by_code(reg, make_def):
    reg.create(make_def(risk="high"), created_by="llm")
    assert reg.get("double").status != "active"
    outcome = reg.invoke("double", {"x": 1}, principal="llm")
    assert [e.code for e in outcome.errors] == [codes.TOOL_NOT_ACTIVE.code]


def test_a_failed_run_reports_the_version_that_failed_and_a_hint(reg, make_def):
    reg.create(make_def(expression="1 / x"))
    outcome = reg.invoke("double", {"x": 0}, principal="user")
    assert not outcome.ok and outcome.version == 1
    (error,) = outcome.errors
    assert error.code == codes.DIVISION_BY_ZERO.code and error.hint
    bad = reg.invoke("double", {"y": 0}, principal="user")
    assert [e.code for e in bad.errors] == [codes.INVALID_ARGUMENT.code] and bad.errors[0].expected == ("x",)


def test_an_unknown_principal_is_refused_not_raised(reg, make_def):
    reg.create(make_def())
    outcome = reg.invoke("double", {"x": 1}, principal="somebody")
    assert [e.code for e in outcome.errors] == [codes.INVALID_REQUEST.code]


def test_invoke_and_run_count_the_same_uses(reg, make_def):
    reg.create(make_def())
    reg.invoke("double", {"x": 1}, principal="user")
    reg.run("double", {"x": 1})
    reg.flush()
    assert reg.get("double").usage_count == 2


def test_while_nothing_changed_invoke_asks_the_store_nothing_and_a_change_is_seen_at_once(
    tmp_path, make_def, monkeypatch
):
    """As `run`: the tool it keeps (HotRun) while the change counter has not moved; the clock
    stopped, so only the counter can tell it of a change."""
    reg = Registry(tmp_path / "reg")
    reg.create(make_def())
    monkeypatch.setattr(registry_module, "_monotonic", lambda: 0.0)
    assert reg.invoke("double", {"x": 1}, principal="user").result == 2  # makes it hot
    asked: list[str] = []
    refresh = reg._store.refresh
    monkeypatch.setattr(reg._store, "refresh", lambda *a, **k: asked.append("refresh") or refresh(*a, **k))
    assert all(reg.invoke("double", {"x": 1}, principal="user").result == 2 for _ in range(100))
    assert asked == []  # (was a refresh, two stats of the folder, per invoke)
    with Registry(tmp_path / "reg") as other:
        other.update("double", {"logic": make_def(expression="x * 10")["logic"]})
    outcome = reg.invoke("double", {"x": 1}, principal="user")
    assert (outcome.result, outcome.version, asked) == (10, 2, ["refresh"])
    reg.close()
