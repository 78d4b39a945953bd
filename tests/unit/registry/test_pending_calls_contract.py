"""The pending calls contract (pending_calls_contract.py) run against the registry folder's."""

from __future__ import annotations

import itertools

import pytest
from unit.registry.pending_calls_contract import Make, PendingCallsContract

from toolkiln.registry.pending_calls import DirectoryPendingCalls, PendingCalls


class TestDirectoryPendingCalls(PendingCallsContract):
    @pytest.fixture
    def make(self, tmp_path) -> Make:
        numbers = itertools.count()

        def make(same: PendingCalls | None) -> PendingCalls:
            if isinstance(same, DirectoryPendingCalls):  # another opener of the same folder
                return DirectoryPendingCalls(same.path.parent, durable=False)
            return DirectoryPendingCalls(tmp_path / f"reg{next(numbers)}", durable=False)

        return make
