"""Callers pinned to the versions they were approved with (issue 28, item 4): a caller a person
approved keeps running the callee's version it was approved with after a new version of the
callee is approved, until a person moves it; a pinned version that is gone is R0770 at the
call. On a folder and on PostgreSQL (the `reg` fixture)."""

import json
from decimal import Decimal

import pytest
from unit.registry.stores import stored_bytes, write_by_hand

from toolkiln import RunError
from toolkiln.cli import main
from toolkiln.registry import InvalidRequest, NotTrusted, PermissionDenied, Registry, ToolNotFound
from toolkiln.registry.pins import pin_of
from toolkiln.registry.review import PinnedCaller, review


def shipping(expression="weight_kg * 2 + 5"):
    return {
        "name": "shipping_cost",
        "description": "Shipping cost of a parcel",
        "parameters": {"weight_kg": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": expression}]},
    }


def order_total(examples=True):
    definition = {
        "name": "order_total",
        "description": "Price plus shipping",
        "riskLevel": "high",  # (a model's high-risk tool waits for a person's approval)
        "parameters": {"w": {"type": "number"}, "price": {"type": "number"}},
        "logic": {
            "steps": [
                {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "w"}, "output": "cost"},
                {"op": "return", "value": "price + cost"},
            ]
        },
    }
    if examples:
        definition["examples"] = [{"args": {"w": 1, "price": 10}, "expect": 17}]
    return definition


def approved_caller(reg: Registry) -> None:
    """shipping_cost v1 (a model's, low risk: active) and order_total, a model's, approved by a person."""
    reg.create(shipping(), created_by="llm")
    reg.create(order_total(), created_by="llm")
    reg.approve("order_total", by="user")


def test_an_approved_caller_is_pinned_to_the_callees_version_of_then(reg):
    approved_caller(reg)
    pins = reg.get("order_total").pins
    assert {name: pin.version for name, pin in pins.items()} == {"shipping_cost": 1}


def test_a_caller_keeps_running_the_version_it_was_approved_with(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    assert reg.get("shipping_cost").version == 2
    assert reg.run("shipping_cost", {"weight_kg": 1}) == 8  # the tool itself runs its new version
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17  # its approved caller, the old one
    outcome = reg.invoke("order_total", {"w": 1, "price": 10}, principal="user")
    assert outcome.ok and outcome.result == 17


def test_a_breaking_version_is_flagged_and_does_not_reach_pinned_callers(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"], "riskLevel": "high"}, by="llm")
    shown = review(reg, "shipping_cost")
    assert shown.breaking and [b.caller for b in shown.broken_callers] == ["order_total"]
    assert (shown.version, shown.pinned) == (2, [PinnedCaller("order_total", 1)])  # "pinned to v1, would move to v2"
    reg.approve("shipping_cost", by="user")
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17


def test_a_caller_runs_its_pinned_version_while_a_new_one_waits(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"], "riskLevel": "high"}, by="llm")
    assert reg.get("shipping_cost").status == "pending_approval"
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17


def test_a_caller_a_person_made_active_follows_the_callee_as_before(reg):
    reg.create(shipping())
    reg.create(order_total())  # active at once: nobody approved it against a version
    assert reg.get("order_total").pins == {}
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    assert reg.run("order_total", {"w": 1, "price": 10}) == 18


def test_a_new_version_of_the_caller_keeps_its_pins(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    reg.update("order_total", {"description": "Price and shipping", "examples": []}, by="user")
    assert reg.get("order_total").pins["shipping_cost"].version == 1
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17


def test_a_rolled_back_pinned_version_is_r0770_at_the_call(reg):
    reg.create(shipping())
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    reg.create(order_total(examples=False), created_by="llm")
    reg.approve("order_total", by="user")  # pinned to version 2
    reg.rollback("shipping_cost", 1)  # version 3, as version 1: a person's word that 2 should not run
    with pytest.raises(RunError) as error:
        reg.run("order_total", {"w": 1, "price": 10})
    assert error.value.code == "R0770"
    assert "version 2 of `shipping_cost`" in error.value.message
    outcome = reg.invoke("order_total", {"w": 1, "price": 10}, principal="user")
    assert not outcome.ok and outcome.errors[0].code == "R0770"


def test_a_deleted_and_remade_pinned_tool_is_r0770_not_its_namesake(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    reg.delete("shipping_cost", force=True)
    reg.create(shipping("weight_kg * 4 + 5"))  # a version 1 again, another tool
    with pytest.raises(RunError) as error:
        reg.run("order_total", {"w": 1, "price": 10})
    assert error.value.code == "R0770"


def test_a_disabled_callee_stops_its_pinned_callers(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17  # (what it runs is kept: not past a change)
    reg.disable("shipping_cost")
    with pytest.raises(RunError) as error:
        reg.run("order_total", {"w": 1, "price": 10})
    assert error.value.code == "R0203"


def test_a_pinned_caller_sees_the_callees_description_only_change(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"description": "What a parcel costs to send"})
    assert reg.run("order_total", {"w": 1, "price": 10}) == Decimal(17)


def test_a_hand_edited_pin_is_refused_with_the_tamper_code(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    moved = json.loads(stored_bytes(reg, "order_total"))
    moved["pins"]["shipping_cost"] = pin_of(reg.get("shipping_cost")).model_dump()  # version 2, a true digest
    write_by_hand(reg, "order_total", json.dumps(moved, indent=2))  # a pin moved by an editor, not a person's repin
    reg.refresh()
    with pytest.raises(NotTrusted) as refused:
        reg.run("order_total", {"w": 1, "price": 10})
    assert refused.value.code == "R0710"
    outcome = reg.invoke("order_total", {"w": 1, "price": 10}, principal="user")
    assert not outcome.ok and outcome.errors[0].code == "R0710"


def test_repin_moves_a_caller_and_only_a_person_may(reg):
    approved_caller(reg)
    reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    with pytest.raises(PermissionDenied) as refused:
        reg.repin("order_total", by="llm")
    assert refused.value.code == "R0201"
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17
    moved = reg.repin("order_total")
    assert (moved.version, moved.pins["shipping_cost"].version) == (1, 2)  # the caller's version stays
    assert reg.run("order_total", {"w": 1, "price": 10}) == 18
    reg.repin("order_total", to={"shipping_cost": 1})
    assert reg.run("order_total", {"w": 1, "price": 10}) == 17
    notes = [(e.by, e.note) for e in reg.audit_log("order_total") if e.action == "repin"]
    assert notes == [("user", "shipping_cost 1 -> 2"), ("user", "shipping_cost 2 -> 1")]


def test_repin_refuses_what_the_caller_does_not_call_or_a_version_not_there(reg):
    approved_caller(reg)
    with pytest.raises(InvalidRequest) as error:
        reg.repin("order_total", to={"double": 1})
    assert error.value.code == "R0104" and "does not call `double`" in error.value.message
    with pytest.raises(ToolNotFound) as missing:
        reg.repin("order_total", to={"shipping_cost": 7})
    assert missing.value.code == "R0102"


def test_the_cli_repins_a_caller(tmp_path, capsys):
    with Registry(tmp_path / "reg", durable=False) as reg:
        approved_caller(reg)
        reg.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    where = ["--registry", str(tmp_path / "reg")]
    assert main(["tools", "repin", "order_total", "--by", "llm", *where]) == 1
    assert "R0201" in capsys.readouterr().err
    assert main(["tools", "repin", "order_total", "--to", "shipping_cost@2", *where]) == 0
    assert capsys.readouterr().out == "order_total runs shipping_cost@2\n"
    assert main(["tools", "repin", "order_total", "--to", "shipping_cost", *where]) == 2
    with Registry(tmp_path / "reg") as reg:
        assert reg.run("order_total", {"w": 1, "price": 10}) == 18


def test_a_repin_waits_for_another_writers_signature_instead_of_refusing(tmp_path, monkeypatch):
    """Another registry (as another process) writes the caller's record, then its signature,
    holding the folder's lock: a repin that read the record between the two is not told the
    record is not this registry's (R0710); it asks again holding the lock."""
    import threading

    from toolkiln.registry.vouching import Vouching

    mine, theirs = Registry(tmp_path / "r"), Registry(tmp_path / "r")
    approved_caller(mine)
    mine.update("shipping_cost", {"logic": shipping("weight_kg * 3 + 5")["logic"]})
    theirs.refresh()
    written, go = threading.Event(), threading.Event()
    sign = Vouching.sign

    def paused_sign(self, *args, **kwargs):
        if self is theirs._store.mirror.vouching and not written.is_set():
            written.set()
            go.wait(10)
        return sign(self, *args, **kwargs)

    monkeypatch.setattr(Vouching, "sign", paused_sign)
    writer = threading.Thread(target=lambda: theirs.repin("order_total", to={"shipping_cost": 2}))
    writer.start()
    assert written.wait(10)  # their record is written, its signature not yet
    threading.Timer(0.3, go.set).start()
    moved = mine.repin("order_total", to={"shipping_cost": 1})
    writer.join(10)
    assert moved.pins["shipping_cost"].version == 1 and mine.run("order_total", {"w": 1, "price": 10}) == 17
