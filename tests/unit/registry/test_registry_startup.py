"""Start-up reads and decodes every tool file but checks no definition: each is checked and
compiled on first use, once per content; one that no longer checks is still found."""

import os

import pytest

from toolkiln.registry import BrokenTool, Registry, ToolInUse, ToolNotActive, compiled_forms


@pytest.fixture
def checks(monkeypatch):
    """The names of the definitions checked (and compiled) by the registry's store, in order."""
    seen: list[str] = []
    real = compiled_forms.verify_stored

    def counting(definition, **fields):
        seen.append(fields["name"])
        return real(definition, **fields)

    monkeypatch.setattr(compiled_forms, "verify_stored", counting)
    return seen


def test_start_up_checks_nothing_and_a_tool_compiles_once_on_first_use(tmp_path, make_def, checks):
    with Registry(tmp_path / "r", durable=False) as writer:
        for name in ("a", "b", "c"):
            writer.create(make_def(name))
    reg = Registry(tmp_path / "r", durable=False)
    assert [r.name for r in reg.list()] == ["a", "b", "c"] and checks == []
    assert reg.run("a", {"x": 2}) == 4 and reg.run("a", {"x": 3}) == 6
    assert checks == ["a"]
    reg.get("b")  # fetching a tool checks it
    assert checks == ["a", "b"]
    # A change of status rewrites the file (and it is read again), not the definition: no new compile.
    path = tmp_path / "r" / "tools" / "a.json"
    active = path.read_text()
    path.write_text(active.replace('"status": "active"', '"status": "disabled"'))
    reg.refresh()
    with pytest.raises(ToolNotActive):
        reg.run("a", {"x": 4})
    path.write_text(active)
    reg.refresh()
    assert reg.run("a", {"x": 4}) == 8
    assert checks == ["a", "b"]
    with Registry(tmp_path / "r", durable=False) as other:
        other.update("a", {"logic": make_def(expression="x * 3")["logic"]})
    assert reg.run("a", {"x": 4}) == 12  # new content: compiled again
    assert checks == ["a", "b", "a"]


def test_a_hand_edited_definition_that_no_longer_checks_is_refused_and_reported(tmp_path, make_def, checks):
    with Registry(tmp_path / "r", durable=False) as writer:
        writer.create(make_def("a"))
        writer.create(make_def("b"))
    path = tmp_path / "r" / "tools" / "b.json"
    path.write_text(path.read_text().replace('"expression": "x * 2"', '"expression": "x *"'))
    reg = Registry(tmp_path / "r", durable=False)
    assert "b" in reg  # it decodes: a tool until its definition is checked
    with pytest.raises(BrokenTool) as refused:
        reg.run("b", {"x": 1})
    rel = os.path.join("tools", "b.json")
    assert refused.value.code == "R0301" and rel in (refused.value.hint or "")
    assert [(d.code, d.file) for d in refused.value.diagnostics] == [("E0101", None)]
    assert [(p.file, [d.code for d in p.diagnostics]) for p in reg.problems] == [(rel, ["E0101"])]
    assert "b" not in reg and [r.name for r in reg.list()] == ["a"]
    # A fresh registry finds it through its problems alone (as `toolkiln tools check` does).
    fresh = Registry(tmp_path / "r", durable=False)
    assert [p.file for p in fresh.problems] == [rel] and "b" not in fresh
    assert fresh.run("a", {"x": 1}) == 2


def test_a_check_cache_entry_does_not_vouch_for_other_bytes(tmp_path, make_def, checks):
    with Registry(tmp_path / "r", durable=False) as writer:
        writer.create(make_def("a"))
    assert Registry(tmp_path / "r").problems == [] and checks == []  # its bytes were checked when saved
    path = tmp_path / "r" / "tools" / "a.json"
    path.write_text(path.read_text().replace('"expression": "x * 2"', '"expression": "x * 5"'))
    assert Registry(tmp_path / "r").problems == [] and checks == ["a"]  # a hand edit: checked


@pytest.mark.parametrize("op", ['"call"', '"\\u0063all"'])
def test_calls_are_known_at_start_however_the_file_spells_them(tmp_path, op):
    callee = {
        "name": "shipping",
        "description": "Shipping",
        "parameters": {"kg": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": "kg * 2"}]},
    }
    call = {"op": "call", "tool": "shipping", "args": {"kg": "w"}, "output": "cost"}
    caller = {
        "name": "order",
        "description": "Order",
        "parameters": {"w": {"type": "number"}},
        "logic": {"steps": [call, {"op": "return", "value": "cost + 1"}]},
    }
    with Registry(tmp_path / "r", durable=False) as writer:
        writer.create(callee)
        writer.create(caller)
    path = tmp_path / "r" / "tools" / "order.json"
    text = path.read_text()
    assert '"op": "call"' in text
    path.write_text(text.replace('"op": "call"', f'"op": {op}'))
    reg = Registry(tmp_path / "r", durable=False)
    with pytest.raises(ToolInUse) as refused:
        reg.delete("shipping")
    assert refused.value.callers == ["order"]
    assert reg.run("order", {"w": 3}) == 7


@pytest.mark.parametrize(
    "value",
    ["0.1", "-0.0", "1e400", "1E-7", "123456789012345678901234567890", '"\\ud800"', '"caf\\u00e9 \\u2603"', "NaN"],
)
def test_the_fast_decoder_reads_a_record_as_the_json_module_does(tmp_path, make_def, value):
    """Tool files are decoded with msgspec at start, falling back to the json module (which
    gives every diagnostic) for what msgspec refuses: the records must be the same, exactly."""
    from toolkiln.registry.codec import decode_record, decode_record_by_json

    with Registry(tmp_path / "r", durable=False) as reg:
        reg.create(make_def("a"))
    text = (tmp_path / "r" / "tools" / "a.json").read_text()
    data = text.replace('"description": "The number"', f'"description": "The number", "default": {value}', 1)
    assert data != text
    fast, slow = decode_record(data.encode(), "a.json"), decode_record_by_json(data.encode(), "a.json")
    assert repr(fast) == repr(slow)
    for broken in (data[:-20], data.replace('"kind"', '"kinds"'), "", "[1]"):
        assert repr(decode_record(broken.encode(), "a.json")) == repr(decode_record_by_json(broken.encode(), "a.json"))


def test_start_up_leaves_the_garbage_collector_as_it_found_it(tmp_path, make_def):
    """Start-up pauses the collector and resumes it as it was; objects someone froze (a
    pre-fork server) stay frozen."""
    import gc

    with Registry(tmp_path / "r", durable=False) as reg:
        reg.create(make_def("a"))
    assert gc.isenabled() and gc.get_freeze_count() == 0
    Registry(tmp_path / "r", durable=False)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        Registry(tmp_path / "r", durable=False)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
        gc.disable()
        Registry(tmp_path / "r", durable=False)
        assert not gc.isenabled()  # (disabled by its owner: left so)
    finally:
        gc.enable()
        gc.unfreeze()


def test_start_up_never_freezes_the_process(tmp_path, make_def, monkeypatch):
    """Freezing objects changes the whole process: the application's choice, not the library's."""
    import gc

    with Registry(tmp_path / "r", durable=False) as reg:
        reg.create(make_def("a"))

    def refuse() -> None:
        raise AssertionError("the library froze the process")

    monkeypatch.setattr(gc, "freeze", refuse)
    monkeypatch.setattr(gc, "unfreeze", refuse)
    assert Registry(tmp_path / "r", durable=False).run("a", {"x": 2}) == 4
