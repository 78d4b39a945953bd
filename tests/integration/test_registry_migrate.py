"""`toolkiln registry migrate`: a folder into a real PostgreSQL and back, losing nothing: the
records, past versions, audit log (line for line), run counts and last uses, tables, trust and
held calls are the same in the copy of the copy as in the original."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from test_server_support import compute_tool

from toolkiln import Registry
from toolkiln.registry import Principal
from toolkiln.registry.migrate import migrate

ADMIN = Principal("person", "root", "admin", via="token root")
MODEL = Principal("model", "agent", "run", via="token agent")


def a_lived_in_registry(path: Path) -> None:
    with Registry(path) as reg:
        reg._store.put_table("zones.csv", b"zone,rate\nnorth,4.50\nsouth,7\n")
        reg.create(compute_tool("double"))
        reg.update("double", {"logic": compute_tool("double", "x * 2 + 0")["logic"]})
        reg.create(compute_tool("triple", "x * 3"))
        reg.disable("triple")
        reg.create(compute_tool("gone", "x"))
        reg.delete("gone")
        reg.create({"kind": "script", "name": "fetch", "description": "Fetches.", "runtime": "bash", "body": "cat"})
        reg.create(
            'tool zone_rate(zone: string)\ndescription "Rate"\n{\n  rate = lookup zones[zone]\n  return rate\n}\n'
        )
        for x in range(5):
            reg.run("double", {"x": x})
        reg.run("zone_rate", {"zone": "south"})
        reg.require_call_approval("double", True, by=ADMIN)
        assert reg.invoke("double", {"x": 21}, principal=MODEL).pending


def without_usage(record):
    """(the last use is compared to the millisecond below: a copy carries it as a moment)"""
    return record.model_copy(update={"usage_count": 0, "last_used_at": None})


def snapshot(reg: Registry) -> dict:
    usage = {r.name: (r.usage_count, r.last_used_at) for r in reg.list()}
    return {
        "records": [without_usage(r) for r in reg.list()],
        "history": {r.name: [without_usage(v) for v in reg.history(r.name)] for r in reg.list()},
        "audit": reg.audit_log(),
        "counts": {name: count for name, (count, _) in usage.items()},
        "last_used": {name: last for name, (_, last) in usage.items()},
        "tables": reg.tables,
        "trusted": {r.name: reg.trusted_here(r.name) for r in reg.list()},
        "calls": reg.calls(None),
    }


def same(copy: dict, original: dict) -> None:
    for key in ("records", "history", "audit", "counts", "tables", "trusted", "calls"):
        assert copy[key] == original[key], key
    for name, last in original["last_used"].items():
        moved = copy["last_used"][name]
        assert (last is None) == (moved is None) and (last is None or abs(moved - last) < timedelta(milliseconds=5))


def test_a_folder_goes_into_a_database_and_back_losing_nothing(tmp_path, postgres_url):
    a_lived_in_registry(tmp_path / "folder")
    with Registry(tmp_path / "folder") as reg:
        original = snapshot(reg)
    assert original["counts"]["double"] == 5 and original["trusted"]["fetch"] and len(original["calls"]) == 1

    into = subprocess.run(
        [sys.executable, "-m", "toolkiln", "registry", "migrate", str(tmp_path / "folder"), postgres_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert into.returncode == 0, into.stderr
    assert "4 tools, 1 past versions" in into.stderr
    with Registry(postgres_url) as database:
        same(snapshot(database), original)
        with Registry(tmp_path / "back") as back:
            migrate(database, back)
    with Registry(tmp_path / "back") as back:
        same(snapshot(back), original)
        assert str(back.run("zone_rate", {"zone": "north"})) == "4.50"  # (the table's digits as written)


def test_a_destination_that_is_not_empty_is_refused_and_left_as_it_was(tmp_path, postgres_url):
    a_lived_in_registry(tmp_path / "folder")
    with Registry(postgres_url) as database:
        database.create(compute_tool("mine"))
    refused = subprocess.run(
        [sys.executable, "-m", "toolkiln", "registry", "migrate", str(tmp_path / "folder"), postgres_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode == 1 and "R0104" in refused.stderr and "not empty" in refused.stderr
    assert "Traceback" not in refused.stderr
    with Registry(postgres_url) as database:
        assert [r.name for r in database.list()] == ["mine"] and len(database.audit_log()) == 1
