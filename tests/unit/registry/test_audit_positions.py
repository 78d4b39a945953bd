"""The directory store reads the audit log from where an earlier read ended: an event stream
asking twice a second for what came after its position does not decode the whole log again."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkiln import Registry
from toolkiln.registry.directory import AUDIT_MARKS

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}


def read_offsets(reg: Registry, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The offsets the store's audit reads start at, from now on."""
    folder = reg._store.folder  # type: ignore[attr-defined]
    started: list[int] = []
    read = folder.read_lines

    def spied(path: Path, offset: int = 0) -> tuple[list[str], int]:
        started.append(offset)
        return read(path, offset)

    monkeypatch.setattr(folder, "read_lines", spied)
    return started


def test_two_streams_at_their_own_positions_each_read_only_what_came_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reg = Registry(tmp_path / "reg")
    reg.create(DOUBLE)
    for _ in range(20):
        reg.disable("double")
        reg.enable("double", by="user")
    first = len(reg.audit_log())  # a stream that has sent everything
    reg.disable("double")
    second = len(reg.audit_log())  # another one, a line further
    reg.enable("double", by="user")
    started = read_offsets(reg, monkeypatch)
    assert [e.action for e in reg.audit_log(after=first)] == ["disable", "enable"]
    assert [e.action for e in reg.audit_log(after=second)] == ["enable"]
    assert started and 0 not in started  # neither read went back to the start of the log


def test_the_positions_remembered_are_bounded(tmp_path: Path) -> None:
    reg = Registry(tmp_path / "reg")
    reg.create(DOUBLE)
    for turn in range(AUDIT_MARKS * 2):
        reg.disable("double") if turn % 2 == 0 else reg.enable("double", by="user")
        reg.audit_log(after=len(reg.audit_log()) - 1)
    assert len(reg._store._audit_marks) <= AUDIT_MARKS  # type: ignore[attr-defined]
