"""Composition in the registry: calls checked against registered tools, the dependency graph
(cycles refused), deletes of called tools, updates of callees, and runs through reg.run."""

import json
from decimal import Decimal

import pytest
from unit.registry.stores import put_table

from toolkiln import CompileError, RunError
from toolkiln.registry import DependencyCycle, Registry, ToolInUse

SHIPPING = {
    "name": "shipping_cost",
    "description": "Shipping cost of a parcel",
    "parameters": {"weight_kg": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "weight_kg * 2.5 + 5"}]},
}


def caller(name="order_total", callee="shipping_cost", args=None):
    return {
        "name": name,
        "description": f"Calls {callee}",
        "parameters": {"w": {"type": "number"}, "price": {"type": "number"}},
        "logic": {
            "steps": [
                {
                    "op": "call",
                    "tool": callee,
                    "args": args if args is not None else {"weight_kg": "w * 2"},
                    "output": "cost",
                },
                {"op": "return", "value": "price + cost"},
            ]
        },
    }


def returning(expression, params=None):
    return {
        "logic": {"steps": [{"op": "return", "value": expression}]},
        **({"parameters": params} if params is not None else {}),
    }


@pytest.fixture
def reg(tmp_path):
    with Registry(tmp_path / "reg", durable=False) as registry:
        registry.create(SHIPPING)
        yield registry


def test_a_tool_calling_another_is_created_and_runs_through_reg_run(reg):
    record = reg.create(caller())
    assert record.definition["logic"]["steps"][0] == {
        "op": "call",
        "tool": "shipping_cost",
        "args": {"weight_kg": "w * 2"},
        "output": "cost",
    }
    assert reg.run("order_total", {"w": 2, "price": 10}) == Decimal("25.0")


def test_a_call_is_checked_against_the_registered_callee(reg):
    with pytest.raises(CompileError) as error:
        reg.create(caller(callee="shiping_cost"))
    assert [d.code for d in error.value.diagnostics] == ["E0211"]
    assert error.value.diagnostics[0].hint == "did you mean `shipping_cost`?"
    with pytest.raises(CompileError) as error:
        reg.create(caller(args={"weight_kg": "'heavy'"}))
    assert [(d.code, d.span.path) for d in error.value.diagnostics] == [("E0303", "logic.steps[0].args.weight_kg")]
    assert "order_total" not in reg


def test_a_cycle_is_refused_at_save_time(reg):
    reg.create(caller())
    with pytest.raises(DependencyCycle) as error:
        reg.update(
            "shipping_cost",
            {
                **returning("x"),
                "logic": {
                    "steps": [
                        {"op": "call", "tool": "order_total", "args": {"w": "weight_kg", "price": 0}, "output": "x"},
                        {"op": "return", "value": "x"},
                    ]
                },
            },
        )
    assert error.value.code == "R0105"
    assert error.value.cycle == ["shipping_cost", "order_total", "shipping_cost"]
    assert reg.get("shipping_cost").version == 1  # nothing written


def test_a_tool_calling_itself_is_a_cycle(reg):
    with pytest.raises(DependencyCycle) as error:
        reg.update(
            "shipping_cost",
            {
                "logic": {
                    "steps": [
                        {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "weight_kg"}, "output": "x"},
                        {"op": "return", "value": "x"},
                    ]
                }
            },
        )
    assert error.value.cycle == ["shipping_cost", "shipping_cost"]


def test_a_recreated_tool_cannot_call_its_broken_former_caller(reg):
    reg.create(caller())
    reg.delete("shipping_cost", force=True)
    with pytest.raises(CompileError) as error:  # order_total no longer compiles: it is no callee
        reg.create(
            {
                **SHIPPING,
                "logic": {
                    "steps": [
                        {"op": "call", "tool": "order_total", "args": {"w": "weight_kg", "price": 0}, "output": "x"},
                        {"op": "return", "value": "x"},
                    ]
                },
            }
        )
    assert [d.code for d in error.value.diagnostics] == ["E0211"]


def test_deleting_a_called_tool_is_refused_unless_forced(reg):
    reg.create(caller())
    reg.create(caller("other_total"))
    with pytest.raises(ToolInUse) as error:
        reg.delete("shipping_cost")
    assert error.value.code == "R0106" and error.value.callers == ["order_total", "other_total"]
    assert "shipping_cost" in reg
    reg.delete("shipping_cost", force=True)
    assert "shipping_cost" not in reg
    with pytest.raises(Exception) as run_error:
        reg.run("order_total", {"w": 1, "price": 1})
    assert run_error.value.code == "R0301"  # the caller no longer compiles
    reg.delete("order_total")  # a caller itself is not in use


def test_a_force_deleted_callee_created_again_restores_its_callers_on_refresh(reg):
    reg.create(caller())
    reg.delete("shipping_cost", force=True)
    reg.create(SHIPPING)
    reg.refresh()
    assert reg.run("order_total", {"w": 2, "price": 10}) == Decimal("25.0")


def test_an_update_of_a_callee_that_would_break_a_caller_is_refused(reg):
    reg.create(caller())
    with pytest.raises(CompileError) as error:
        reg.update("shipping_cost", {**returning("kg", {"kg": {"type": "number"}})})
    messages = [d.message for d in error.value.diagnostics]
    assert all(m.startswith("in `order_total`, which calls `shipping_cost`: ") for m in messages)
    assert {d.code for d in error.value.diagnostics} == {"E0212"}
    assert reg.get("shipping_cost").version == 1
    with pytest.raises(CompileError) as error:  # the result type would change
        reg.update("shipping_cost", returning("'free'"))
    assert [d.code for d in error.value.diagnostics] == ["E0306"]  # order_total: `price + cost` with text


def test_callers_of_callers_are_rechecked(reg):
    reg.create(caller())  # order_total -> shipping_cost
    reg.create(
        {
            "name": "report",
            "description": "Text of the total",
            "parameters": {"w": {"type": "number"}},
            "logic": {
                "steps": [
                    {"op": "call", "tool": "order_total", "args": {"w": "w", "price": 1}, "output": "t"},
                    {"op": "return", "value": "t * 2"},
                ]
            },
        }
    )
    # shipping_cost returning text makes order_total (price + text) fail first: refused
    with pytest.raises(CompileError):
        reg.update("shipping_cost", returning("'x'"))
    # order_total returning text breaks report (t * 2): refused with report's diagnostics
    with pytest.raises(CompileError) as error:
        reg.update(
            "order_total",
            {
                "logic": {
                    "steps": [
                        {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "w"}, "output": "cost"},
                        {"op": "return", "value": "'total'"},
                    ]
                }
            },
        )
    assert error.value.diagnostics[0].message.startswith("in `report`, which calls `order_total`")


def test_a_compatible_callee_update_is_used_by_callers_at_once(reg):
    reg.create(caller())
    assert reg.run("order_total", {"w": 2, "price": 10}) == Decimal("25.0")
    reg.update("shipping_cost", returning("weight_kg * 3"))
    assert reg.run("order_total", {"w": 2, "price": 10}) == 22
    reg.rollback("shipping_cost", 1)
    assert reg.run("order_total", {"w": 2, "price": 10}) == Decimal("25.0")


def test_only_active_callees_run(reg):
    reg.create(caller())
    reg.disable("shipping_cost")
    with pytest.raises(RunError) as error:
        reg.run("order_total", {"w": 1, "price": 1})
    assert error.value.code == "R0203"
    assert error.value.message.startswith("in tool `shipping_cost`: ")
    reg.enable("shipping_cost")
    assert reg.run("order_total", {"w": 1, "price": 1}) == Decimal("11.0")


def test_a_disabled_tool_can_still_be_called_by_a_new_tool(reg):
    reg.disable("shipping_cost")
    assert reg.create(caller()).status == "active"


def test_callee_failures_propagate_through_reg_run(reg):
    reg.create(
        {
            "name": "ratio",
            "description": "a / b",
            "parameters": {"a": {"type": "number"}, "b": {"type": "number"}},
            "logic": {"steps": [{"op": "return", "value": "a / b"}]},
        }
    )
    reg.create(caller("halves", "ratio", {"a": "w", "b": "price"}))
    with pytest.raises(RunError) as error:
        reg.run("halves", {"w": 1, "price": 0})
    assert (error.value.code, error.value.message) == ("E0501", "in tool `ratio`: division by zero")


def test_callees_read_the_registry_tables(reg, tmp_path):
    put_table(reg, "rates.json", json.dumps({"rates": {"eu": 4}}))
    reg.create(
        {
            "name": "rate",
            "description": "Rate of a zone",
            "parameters": {"zone": {"type": "string"}},
            "logic": {
                "steps": [
                    {"op": "lookup", "table": "rates", "key": "zone", "output": "r"},
                    {"op": "return", "value": "r"},
                ]
            },
        }
    )
    reg.create(caller("zone_total", "rate", {"zone": "'eu'"}))
    assert reg.run("zone_total", {"w": 0, "price": 1}) == 5


def test_a_caller_loads_in_another_registry_whatever_the_file_order(reg, tmp_path):
    reg.create(caller("a_first"))  # sorts before its callee
    fresh = Registry(reg.location, durable=False, trust_check_cache=False)
    assert fresh.problems == []
    assert fresh.run("a_first", {"w": 2, "price": 10}) == Decimal("25.0")


def test_a_caller_sees_a_callee_update_made_by_another_process(reg):
    reg.create(caller())
    other = Registry(reg.location, durable=False)
    assert other.run("order_total", {"w": 2, "price": 10}) == Decimal("25.0")
    reg.update("shipping_cost", returning("weight_kg * 3"))
    assert other.run("order_total", {"w": 2, "price": 10}) == 22


def test_meta_tools_check_and_run_calls_against_the_registry(reg):
    definition = caller("llm_total")
    reply = reg.call_meta("test_custom_tool", {"definition": definition, "args": {"w": 2, "price": 10}})
    assert reply["ok"] and reply["result"] == 25
    reply = reg.call_meta("create_compute_tool", {"definition": definition})
    assert reply["ok"] and reg.run("llm_total", {"w": 2, "price": 10}) == 25
    reply = reg.call_meta("create_compute_tool", {"definition": caller("bad_total", "nope")})
    assert not reply["ok"] and reply["errors"][0]["code"] == "E0211"
    reply = reg.call_meta("delete_custom_tool", {"name": "shipping_cost", "confirm": True}, created_by="user")
    assert not reply["ok"] and reply["errors"][0]["code"] == "R0106"
