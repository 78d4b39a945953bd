"""A process that works on a registry, for the multi-process tests (run as a script).

registry_worker.py stress REGISTRY WORKER SECONDS   create, update and run; print counts as JSON
registry_worker.py churn REGISTRY                    update one tool with big definitions forever
registry_worker.py big-write REGISTRY BYTES          write one huge file through the store
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from toolkiln import CompileError, Registry, RunError
from toolkiln.registry import DuplicateTool, ToolNotActive
from toolkiln.registry.store import Store


def definition(name: str, expression: str, description: str = "A test tool") -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": expression}]},
    }


def stress(root: str, worker: int, seconds: float) -> None:
    """Own tools: create, change, run. The shared tool: logic updates (each a version) and runs."""
    rng = random.Random(worker)
    counts = {"creates": 0, "updates": 0, "shared_updates": 0, "runs": 0, "foreign_runs": 0}
    runs_by_tool: dict[str, int] = {}
    with Registry(root, usage_flush_seconds=0.2) as reg:
        mine: list[str] = []
        deadline = time.monotonic() + seconds
        n = 0
        while time.monotonic() < deadline:
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
    print(json.dumps({**counts, "runs_by_tool": runs_by_tool}))


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
            reg.create(definition(f"extra_{n}", "x"))
        except (CompileError, DuplicateTool):
            pass


def big_write(root: str, size: int) -> None:
    store = Store(root)
    path = Path(root) / "tools" / "victim.json"
    print("writing", flush=True)
    with store.lock():
        store.write_bytes(path, b" " * size)


if __name__ == "__main__":
    mode, registry = sys.argv[1], sys.argv[2]
    if mode == "stress":
        stress(registry, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "churn":
        churn(registry)
    elif mode == "big-write":
        big_write(registry, int(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode}")
