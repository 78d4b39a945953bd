"""The store contract (store_contract.py) run against the directory store and the in-memory one."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from unit.registry.memory_store import MemoryStore
from unit.registry.store_contract import StoreContract

from toolkiln.registry.directory import DirectoryStore
from toolkiln.registry.store import Store


class DirectoryFactory:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.numbers = itertools.count()

    def new(self) -> Store:
        return DirectoryStore(self.root / f"reg{next(self.numbers)}", durable=False)

    def again(self, store: Store) -> Store:
        return DirectoryStore(store.location, durable=False)

    def add_table(self, store: Store, name: str, rows: dict[str, Any]) -> None:
        (Path(store.location) / "tables" / f"{name}.json").write_text(json.dumps({name: rows}))

    def corrupt(self, store: Store, name: str) -> None:
        (Path(store.location) / "tools" / f"{name}.json").write_text("{")

    def settle(self, store: Store) -> None:
        """(the counter is shared memory: a change is seen at once)"""


class MemoryFactory:
    def new(self) -> Store:
        return MemoryStore()

    def again(self, store: Store) -> Store:
        assert isinstance(store, MemoryStore)
        return MemoryStore(store.data)

    def add_table(self, store: Store, name: str, rows: dict[str, Any]) -> None:
        assert isinstance(store, MemoryStore)
        store.data.tables = {**store.data.tables, name: rows}

    def corrupt(self, store: Store, name: str) -> None:
        assert isinstance(store, MemoryStore)
        store.data.tools[name] = b"{"

    def settle(self, store: Store) -> None:
        """(the counter is shared: a change is seen at once)"""


class TestDirectoryStore(StoreContract):
    @pytest.fixture
    def factory(self, tmp_path: Path) -> DirectoryFactory:
        return DirectoryFactory(tmp_path)


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def factory(self) -> MemoryFactory:
        return MemoryFactory()
