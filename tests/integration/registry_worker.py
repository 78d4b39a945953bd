"""A process that works on a registry, for the multi-process tests (run as a script).

registry_worker.py stress REGISTRY WORKER OPS SYNC WORKERS
    create, update and run; print counts as JSON. Start-up is synchronised through files in the
    folder SYNC: the worker writes `ready-WORKER` once its registry is open, waits for the parent's
    `go`, writes `started-WORKER`, then does at least OPS operations and keeps going until all
    WORKERS workers have started, so their working times overlap whatever the load.
registry_worker.py churn REGISTRY
    update one tool with big definitions forever; after each completed update print its number
registry_worker.py big-write REGISTRY BYTES
    write one huge file through the store
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from toolkiln import CompileError, Registry, RunError
from toolkiln.registry import DuplicateTool, ToolNotActive
from toolkiln.registry.folder import Folder


def definition(name: str, expression: str, description: str = "A test tool") -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": expression}]},
    }


SYNC_TIMEOUT = 120.0  # a bound on every wait for another process, not a pace


def wait_for(condition, what: str) -> None:
    """Poll `condition` until it holds; exit with an error after SYNC_TIMEOUT seconds."""
    deadline = time.monotonic() + SYNC_TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"registry_worker: gave up waiting for {what} after {SYNC_TIMEOUT:.0f} s")
        time.sleep(0.005)


def touch(path: Path) -> None:
    """Create `path` whole: the name appears only once the file is complete."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(str(time.time()))
    tmp.rename(path)


def stress(root: str, worker: int, ops: int, sync: Path, workers: int) -> None:
    """Own tools: create, change, run. The shared tool: logic updates (each a version) and runs."""
    rng = random.Random(worker)
    counts = {"creates": 0, "updates": 0, "shared_updates": 0, "runs": 0, "foreign_runs": 0}
    runs_by_tool: dict[str, int] = {}
    with Registry(root, usage_flush_seconds=0.2) as reg:
        mine: list[str] = []
        touch(sync / f"ready-{worker}")
        wait_for((sync / "go").exists, "the parent's go")
        started = time.time()
        touch(sync / f"started-{worker}")

        def everyone_started() -> bool:
            return len(list(sync.glob("started-*"))) == workers

        n = 0
        while n < ops or not everyone_started():
            n += 1
            roll = rng.random()
            if roll < 0.25 or not mine:
                name = f"w{worker}_{n}"
                reg.create(definition(name, f"x + {n}"), created_by=rng.choice(("user", "llm")))
                mine.append(name)
                counts["creates"] += 1
            elif roll < 0.45:
                name = rng.choice(mine)
                reg.update(name, {"logic": {"steps": [{"op": "return", "value": f"x * {n}"}]}})
                counts["updates"] += 1
            elif roll < 0.6:
                reg.update("shared", {"logic": {"steps": [{"op": "return", "value": f"x + {worker * 100000 + n}"}]}})
                counts["shared_updates"] += 1
            elif roll < 0.8:
                reg.run("shared", {"x": 1})
                counts["runs"] += 1
                runs_by_tool["shared"] = runs_by_tool.get("shared", 0) + 1
            else:
                others = [r.name for r in reg.list(status="active") if not r.name.startswith(f"w{worker}_")]
                target = rng.choice(others)
                try:
                    reg.run(target, {"x": 2})
                    counts["foreign_runs"] += target != "shared"
                except (ToolNotActive, RunError):
                    pass  # a failed run counts as a use too
                counts["runs"] += 1
                runs_by_tool[target] = runs_by_tool.get(target, 0) + 1
        finished = time.time()
    print(
        json.dumps({**counts, "runs_by_tool": runs_by_tool, "operations": n, "started": started, "finished": finished})
    )


def churn(root: str) -> None:
    """Update one tool again and again with large definitions, so a kill lands mid-write."""
    reg = Registry(root)
    n = 0
    while True:
        n += 1
        padding = "p" * random.randint(50_000, 200_000)
        try:
            reg.update(
                "victim", {"description": f"{n} {padding}", "logic": {"steps": [{"op": "return", "value": f"x + {n}"}]}}
            )
            print(n, flush=True)  # the parent kills only after a completed update
            reg.create(definition(f"extra_{n}", "x"))
        except (CompileError, DuplicateTool):
            pass


def big_write(root: str, size: int) -> None:
    store = Folder(root)
    path = Path(root) / "tools" / "victim.json"
    print("writing", flush=True)
    with store.lock():
        store.write_bytes(path, b" " * size)


if __name__ == "__main__":
    mode, registry = sys.argv[1], sys.argv[2]
    if mode == "stress":
        stress(registry, int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5]), int(sys.argv[6]))
    elif mode == "churn":
        churn(registry)
    elif mode == "big-write":
        big_write(registry, int(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode}")
