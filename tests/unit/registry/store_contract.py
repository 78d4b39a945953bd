"""The contract every `Store` keeps (toolkiln.registry.store), as tests any store can run.

A test module subclasses `StoreContract` and gives it a `factory` fixture: a `StoreFactory`
for its store (test_store_contract.py runs it for the directory store and the in-memory one;
a database store's tests reuse it the same way). Most tests go through `Registry(store)`,
since what a store must do is keep the registry's documented behaviour; a few ask the
protocol itself where the registry's answer would not show a broken store.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

import pytest

from toolkiln import Registry
from toolkiln.registry import BrokenTool, ToolNotFound
from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.store import Store


class StoreFactory(Protocol):
    def new(self) -> Store:
        """An empty store."""
        ...

    def again(self, store: Store) -> Store:
        """Another store over the same tools, as another process opens them."""
        ...

    def add_table(self, store: Store, name: str, rows: dict[str, Any]) -> None:
        """Put a table (as a JSON table file holds it) where the store's tools read tables."""

    def corrupt(self, store: Store, name: str) -> None:
        """Replace the stored record of `name` by bytes that do not decode (a hand edit)."""

    def settle(self, store: Store) -> None:
        """Return once `store` has heard of every change committed so far (a store whose change
        signal is a message, such as a database's notification, hears it a moment later; a
        shared counter at once)."""


def definition(name: str = "double", expression: str = "x * 2", description: str = "Doubles x") -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"x": {"type": "number", "description": "The number"}},
        "logic": {
            "steps": [{"op": "math", "expression": expression, "output": "result"}, {"op": "return", "value": "result"}]
        },
    }


class StoreContract:
    @pytest.fixture
    def factory(self) -> StoreFactory:
        raise NotImplementedError("a test module gives its store's factory")

    @pytest.fixture
    def reg(self, factory: StoreFactory) -> Registry:
        return Registry(factory.new(), usage_flush_seconds=60)

    # --- records and versions -----------------------------------------------------------------

    def test_a_created_tool_is_read_back(self, reg: Registry) -> None:
        record = reg.create(definition())
        assert (record.version, record.status, record.created_by) == (1, "active", "user")
        assert reg.get("double") == record
        assert [r.name for r in reg.list()] == ["double"] and "double" in reg and len(reg) == 1
        assert reg.run("double", {"x": 4}) == 8

    def test_an_update_keeps_the_past_version(self, reg: Registry) -> None:
        reg.create(definition())
        reg.update("double", {"logic": definition(expression="x * 3")["logic"]})
        assert reg.run("double", {"x": 2}) == 6
        assert [r.version for r in reg.history("double")] == [1, 2]
        assert reg.history("double")[0].definition["logic"] == definition()["logic"]

    def test_a_description_change_is_no_new_version(self, reg: Registry) -> None:
        reg.create(definition())
        record = reg.update("double", {"description": "Twice x"})
        assert (record.version, record.description) == (1, "Twice x")
        assert reg._store.past_versions("double") == []

    def test_a_rollback_is_a_new_version_with_the_old_definition(self, reg: Registry) -> None:
        reg.create(definition())
        reg.update("double", {"logic": definition(expression="x * 3")["logic"]})
        record = reg.rollback("double", 1)
        assert record.version == 3 and reg.run("double", {"x": 2}) == 4
        assert reg._store.past_versions("double") == [1, 2]

    def test_a_deleted_tool_is_gone_and_its_name_starts_again(self, reg: Registry) -> None:
        reg.create(definition())
        reg.update("double", {"logic": definition(expression="x * 3")["logic"]})
        reg.delete("double")
        assert "double" not in reg
        with pytest.raises(ToolNotFound):
            reg.get("double")
        assert reg.create(definition()).version == 1
        assert [r.version for r in reg.history("double")] == [1]

    def test_a_record_that_does_not_decode_is_a_problem(self, reg: Registry, factory: StoreFactory) -> None:
        reg.create(definition())
        reg.create(definition("triple", "x * 3"))
        factory.corrupt(reg._store, "double")
        reg.refresh()
        assert [r.name for r in reg.list()] == ["triple"]
        assert len(reg.problems) == 1
        with pytest.raises(BrokenTool):
            reg.get("double")

    # --- the audit log --------------------------------------------------------------------------

    def test_every_change_is_audited_in_order(self, reg: Registry) -> None:
        reg.create(definition())
        reg.disable("double")
        reg.enable("double", by="user")
        reg.delete("double")
        entries = reg.audit_log("double")
        assert [e.action for e in entries] == ["create", "disable", "enable", "delete"]
        assert [(e.old_status, e.new_status) for e in entries[1:3]] == [("active", "disabled"), ("disabled", "active")]
        assert reg.audit_log("other") == []

    def test_the_audit_after_a_position_is_what_came_after_it(self, reg: Registry) -> None:
        reg.create(definition())
        reg.disable("double")
        everything = reg.audit_log()
        assert reg.audit_log(after=len(everything)) == []
        reg.enable("double", by="user")
        assert [e.action for e in reg.audit_log(after=len(everything))] == ["enable"]
        assert reg.audit_log(after=1) == reg.audit_log()[1:]  # an earlier position reads from the start again
        assert reg.audit_log("other", after=0) == []

    # --- run counts ---------------------------------------------------------------------------------

    def test_run_counts_reach_the_store_and_other_processes(self, reg: Registry, factory: StoreFactory) -> None:
        reg.create(definition())
        for x in range(3):
            reg.run("double", {"x": x})
        assert reg.get("double").usage_count == 3  # pending, not flushed yet
        other = Registry(factory.again(reg._store))
        assert other.get("double").usage_count == 0
        reg.flush()
        other.refresh()
        assert other.get("double").usage_count == 3 and other.get("double").last_used_at is not None

    def test_all_run_counts_in_one_read_agree_with_each_tools(self, reg: Registry, factory: StoreFactory) -> None:
        reg.create(definition())
        reg.create(definition(name="triple"))
        for x in range(3):
            reg.run("double", {"x": x})
        reg.flush()
        reg.run("double", {"x": 1})  # pending beside the stored three
        reg.run("triple", {"x": 1})
        counts = reg.run_counts()
        assert {name: count for name, (count, _) in counts.items()} == {"double": 4, "triple": 1}
        assert all(last is not None for _, last in counts.values())
        assert {name: reg._store.usage_of(name)[0] for name in reg._store.used()} == {"double": 4, "triple": 1}

    # --- tables ----------------------------------------------------------------------------------------

    def test_lookups_read_the_stores_tables(self, reg: Registry, factory: StoreFactory) -> None:
        factory.add_table(reg._store, "rates", {"north": 4, "south": 7})
        reg.create(
            'tool zone_rate(zone: string)\ndescription "Rate by zone"\n{\n  rate = lookup rates[zone]\n  return rate\n}\n'
        )
        assert reg.run("zone_rate", {"zone": "south"}) == 7
        assert set(reg.tables) == {"rates"}

    def test_a_table_file_put_is_read_by_lookups_here_and_in_another_process(
        self, reg: Registry, factory: StoreFactory
    ) -> None:
        other = Registry(factory.again(reg._store))
        reg._store.put_table("zones.csv", b"zone,rate\nnorth,4.50\nsouth,7\n")
        reg.create(
            'tool zone_rate(zone: string)\ndescription "Rate by zone"\n{\n  rate = lookup zones[zone]\n  return rate\n}\n'
        )
        factory.settle(other._store)
        assert str(other.run("zone_rate", {"zone": "north"})) == "4.50"  # (the digits as written)
        for bad in ("../evil.json", "tables/x.json", "rates.txt", ""):
            with pytest.raises(InvalidRequest):
                reg._store.put_table(bad, b"{}")

    # --- other processes, change notification, locking ----------------------------------------------

    def test_another_process_sees_every_change(self, reg: Registry, factory: StoreFactory) -> None:
        other = Registry(factory.again(reg._store))
        reg.create(definition())
        assert other.run("double", {"x": 1}) == 2
        reg.update("double", {"logic": definition(expression="x * 5")["logic"]})
        factory.settle(other._store)
        assert other.run("double", {"x": 1}) == 5  # (its hot path noticed the change signal)
        reg.delete("double")
        assert "double" not in other

    def test_writers_in_two_processes_keep_both_changes(self, reg: Registry, factory: StoreFactory) -> None:
        other = Registry(factory.again(reg._store))
        reg.create(definition())
        other.update("double", {"description": "Twice x"})
        reg.update("double", {"logic": definition(expression="x * 3")["logic"]})
        record = other.get("double")
        assert (record.description, record.version, record.definition["logic"]) == (
            "Twice x",
            2,
            definition(expression="x * 3")["logic"],
        )

    def test_the_write_lock_keeps_another_writer_out(self, factory: StoreFactory) -> None:
        first = factory.new()
        second = factory.again(first)
        entered = threading.Event()

        def write() -> None:
            with second.writing():
                entered.set()

        with first.writing():
            writer = threading.Thread(target=write)
            writer.start()
            assert not entered.wait(0.3)  # still outside while the first holds the lock
        writer.join(10)
        assert entered.is_set()

    # --- the protocol itself -------------------------------------------------------------------------

    def test_stored_is_what_is_stored_now(self, reg: Registry) -> None:
        assert reg._store.stored("double") is None
        record = reg.create(definition())
        stored = reg._store.stored("double")
        assert stored is not None and stored.record == record and stored.diagnostics == []

    def test_the_runnables_go_when_a_record_changes(self, reg: Registry) -> None:
        """The one invalidation rule: what was made from a record goes when it changes."""
        reg.create(definition())
        reg.create(definition("triple", "x * 3"))
        reg.run("double", {"x": 1})
        reg.run("triple", {"x": 1})
        assert reg._store.changes.value() is not None  # (a store gives a change signal: runs are cached on it)
        assert set(reg._store.runnables) == {"double", "triple"}
        reg.update("triple", {"logic": definition(expression="x * 4")["logic"]})
        assert reg._store.runnables == {}
        assert reg.run("triple", {"x": 1}) == 4

    def test_records_it_wrote_verify_and_others_are_trusted_on_request(self, reg: Registry) -> None:
        reg.create(definition())
        assert reg.trusted_here("double") and reg.untrusted() == set()
        reg.update("double", {"logic": definition(expression="x * 3")["logic"]})
        assert reg._store.past_verifies("double", 1)
        assert reg.trust(["double"]) == {"double": [1, 2]}
        assert reg.audit_log("double")[-1].action == "trust"
