"""Hostile registry folders: what the registry and a server do with a folder someone else made.

    python benchmarks/bench_hostile_folders.py

Each case builds a registry folder the way an attacker would hand it over (a clone, a copy, a
hand edit, planted files) with a key of its own, then opens it here, under this user's key,
and does what a user would: list, run, approve, roll back, sign in with the folder's token.
It prints one row a case: what came back and how long it took (a case that would hang is cut
off after 10 s and says so). A script, not a test: docs/security.md quotes its table; the
red-team tests (tests/integration/security/test_hostile_folders.py) prove the same promises.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from toolkiln import Registry
from toolkiln.errors import Error
from toolkiln.registry.index import STATE_DIR_ENV
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

SCRIPT = {"kind": "script", "name": "escape", "description": "Runs on the host.", "runtime": "bash", "body": "id"}
DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}
CUT_OFF = 10.0


def as_someone_else(work: Path, build: Callable[[Registry], None]) -> Path:
    """A registry folder written under another user's key (another state home)."""
    folder = work / "theirs"
    previous = os.environ.get(STATE_DIR_ENV)
    os.environ[STATE_DIR_ENV] = str(work / "their-state")
    try:
        with Registry(folder, durable=False) as reg:
            build(reg)
    finally:
        os.environ[STATE_DIR_ENV] = previous or str(work / "my-state")
    return folder


def edit_record(folder: Path, name: str, **fields: object) -> None:
    path = folder / "tools" / f"{name}.json"
    record = json.loads(path.read_text())
    record.update(fields)
    path.write_text(json.dumps(record))


def outcome(action: Callable[[], object]) -> str:
    try:
        value = action()
    except Error as error:
        return f"refused: {getattr(error, 'code', type(error).__name__)}"
    return f"allowed: {str(value)[:60]}"


def cloned_script(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create({**SCRIPT, "sandbox": "none"}))
    with Registry(folder) as reg:
        return outcome(lambda: reg.run("escape", {}))


def hand_edited_status(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(SCRIPT, created_by="llm"))
    edit_record(folder, "escape", status="active", created_by="user")
    with Registry(folder) as reg:
        return outcome(lambda: reg.run("escape", {}))


def hand_edited_approval(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(SCRIPT, created_by="llm"))
    with Registry(folder) as reg:
        return outcome(lambda: reg.approve("escape"))


def copied_compute_tool(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(DOUBLE))
    with Registry(folder) as reg:
        return outcome(lambda: reg.run("double", {"x": 21}))  # within its budgets: may run


def planted_past_version(work: Path) -> str:
    def build(reg: Registry) -> None:
        reg.create(SCRIPT)
        reg.update("escape", {"body": "echo safe"})

    folder = as_someone_else(work, build)
    with Registry(folder) as reg:
        return outcome(lambda: reg.rollback("escape", 1))


def own_token_file(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(DOUBLE))
    theirs = TokenStore(folder / ".server")
    token, _ = theirs.create("owner", "admin", "person")
    mine = TokenStore(state_folder(folder))
    return "allowed: the folder's token signs in" if mine.authenticate(token) else "refused: unknown token (401)"


def request_log_link(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(DOUBLE))
    target = work / "planted.txt"
    (folder / ".server").mkdir(exist_ok=True)
    (folder / ".server" / "requests.jsonl").symlink_to(target)
    from fastapi.testclient import TestClient

    from toolkiln.server.app import create_app
    from toolkiln.server.services import Settings

    app = create_app(Settings(registry=folder))
    token = TokenStore(state_folder(folder)).create("me", "write", "person")[0]
    with TestClient(app) as http:
        http.post("/api/v1/tools/double/disable", headers={"Authorization": f"Bearer {token}"})
    return "allowed: the link's target was written" if target.exists() else "refused: the link is not followed"


def fifo_tool_file(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(DOUBLE))
    os.mkfifo(folder / "tools" / "stuck.json")
    with Registry(folder) as reg:
        return f"listed {len(reg.list())} tool(s), {len(reg.problems)} problem(s)"


def tool_file_link(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: reg.create(DOUBLE))
    (folder / "tools" / "passwd.json").symlink_to("/etc/passwd")
    with Registry(folder) as reg:
        problems = [p.diagnostics[0].code for p in reg.problems if "passwd" in p.file]
        return f"listed {len(reg.list())} tool(s); the link: {problems or 'ignored'}"


def corrupt_record(work: Path) -> str:
    folder = as_someone_else(work, lambda reg: (reg.create(DOUBLE), reg.create({**DOUBLE, "name": "triple"})))
    (folder / "tools" / "triple.json").write_text('{"name": "triple", "status": ')
    with Registry(folder) as reg:
        return f"listed {[r.name for r in reg.list()]}, problems {[p.diagnostics[0].code for p in reg.problems]}"


CASES: list[tuple[str, Callable[[Path], str]]] = [
    ('a cloned script tool asking for sandbox "none"', cloned_script),
    ("a model's pending script hand-edited to active, by a person", hand_edited_status),
    ("approving a tool whose record does not verify", hand_edited_approval),
    ("a copied compute tool", copied_compute_tool),
    ("rolling back to a past version the folder brought", planted_past_version),
    ("the folder's own .server/tokens.json", own_token_file),
    ("a .server/requests.jsonl link out of the folder", request_log_link),
    ("a tool file that is a FIFO", fifo_tool_file),
    ("a tool file that is a link to /etc/passwd", tool_file_link),
    ("a truncated tool file beside a good one", corrupt_record),
]


def run_case(case: Callable[[Path], str]) -> tuple[str, float]:
    found: list[str] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        os.environ[STATE_DIR_ENV] = str(work / "my-state")
        thread = threading.Thread(target=lambda: found.append(case(work)), daemon=True)
        thread.start()
        thread.join(CUT_OFF)
        if thread.is_alive():
            return f"HUNG: still waiting after {CUT_OFF:g} s", CUT_OFF
        shutil.rmtree(work, ignore_errors=True)
    return (found[0] if found else "failed: see the traceback above"), time.perf_counter() - started


def main() -> None:
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Hostile registry folders, {when}, {platform.system()} {platform.machine()}\n")
    print("| case | what came back | ms |")
    print("|---|---|---:|")
    for label, case in CASES:
        result, seconds = run_case(case)
        print(f"| {label} | {result} | {seconds * 1000:.0f} |")


if __name__ == "__main__":
    main()
