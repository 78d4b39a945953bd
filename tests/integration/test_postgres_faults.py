"""A registry in PostgreSQL when a writer dies mid-change: `kill -9` of a process inside its
change's transaction, holding the registry's write lock. Nothing it wrote is visible, and the
lock is free for the next writer at once (PostgreSQL ends the session, and with it the
transaction and its advisory lock)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from unit.registry.store_contract import definition

from toolkiln import Registry
from toolkiln.registry.errors import StoreError

WRITER = textwrap.dedent(
    """
    import sys, time
    from toolkiln import Registry
    from toolkiln.registry.postgres.store import PostgresStore

    store = PostgresStore(sys.argv[1], lock_timeout=5)
    reg = Registry(store)
    with store.writing():  # the registry's lock taken, one change's transaction open
        store.append_audit(reg.audit_log()[0])
        print("inside", flush=True)
        time.sleep(120)
    """
)


def test_a_writer_killed_inside_its_change_leaves_nothing_and_no_lock(postgres_url):
    with Registry(postgres_url, lock_timeout=5) as reg:
        reg.create(definition())
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, postgres_url], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    try:
        assert writer.stdout.readline().strip() == "inside"
        with Registry(postgres_url, lock_timeout=1) as waiting, pytest.raises(StoreError):
            waiting.create(definition("held", "x"))  # (the writer holds the lock: R0302 after 1 s)
        writer.send_signal(signal.SIGKILL)
        assert writer.wait(timeout=30) == -signal.SIGKILL
    finally:
        if writer.poll() is None:
            writer.kill()
    with Registry(postgres_url, lock_timeout=5) as reg:
        assert len(reg.audit_log()) == 1  # (the killed change's line is not there)
        reg.create(definition("triple", "x * 3"))  # (the lock is free: within 5 s, or R0302)
        assert reg.run("triple", {"x": 2}) == 6 and len(reg.audit_log()) == 2


RACER = textwrap.dedent(
    """
    import json, sys
    from toolkiln import Registry
    from toolkiln.registry.errors import DuplicateTool
    from unit.registry.store_contract import definition

    url, me, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    created, updated = [], []
    with Registry(url, lock_timeout=60) as reg:
        for i in range(names):
            try:
                reg.create(definition(f"n{i}", "x * 2"))
                created.append(f"n{i}")
            except DuplicateTool:
                pass
        for i in range(names):
            reg.update(f"n{i}", {"logic": definition("x", f"x + {me}")["logic"]})
            updated.append(f"n{i}")
    print(json.dumps({"created": created, "updated": updated}))
    """
)


def test_eight_processes_writing_the_same_names_lose_nothing(postgres_url):
    """Eight processes (two "machines" of four: each its own store and connections) create the
    same names and update each of them: every name is created once, and each tool's version
    and audit lines count every acknowledged update."""
    names, processes = 5, 8
    tests = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.environ.get("PYTHONPATH", ""), tests])}
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, postgres_url, str(me), str(names)], stdout=subprocess.PIPE, text=True, env=env
        )
        for me in range(processes)
    ]
    told = [json.loads(racer.communicate(timeout=300)[0]) for racer in racers]
    assert all(racer.returncode == 0 for racer in racers)
    created = sorted(name for said in told for name in said["created"])
    assert created == sorted(f"n{i}" for i in range(names))
    with Registry(postgres_url) as reg:
        for i in range(names):
            lines = reg.audit_log(f"n{i}")
            assert reg.get(f"n{i}").version == 1 + processes
            assert len(lines) == 1 + processes and len(reg.history(f"n{i}")) == 1 + processes
