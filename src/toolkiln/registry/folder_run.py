"""`toolkiln tools run NAME` on a registry folder, reading only the tool's own file.

Opening a `Registry` loads every record of the folder with the pydantic models, and imports
every kind, the lifecycle and the audit writers: most of the start-up of a one-shot run. A
compute tool that calls no other tool, reads no table of the registry's, is active, is not
pinned and does not wait for approval needs none of that: `Registry.invoke` would read its file,
check its definition (`verify_stored`), run it as the local user and count the run. That is
what `run_in_folder` does, with the record read as plain JSON (record_view.py).

Whatever else it finds (another kind, a status other than active, pins, approval of each call,
a call step, a table, a file that is missing, refused or not in the shape the registry writes,
a definition that does not check), it declines with None and the caller opens the `Registry`,
which answers exactly as it always did: the same refusals and codes, the same signatures asked
for. The command line's registry is the local user's under the default policy, which holds no
call for approval (tests/unit/registry/test_folder_run.py checks that it still holds none).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from toolkiln.errors import Error
from toolkiln.registry.definitions import verify_stored
from toolkiln.registry.errors import RegistryError, StoreError
from toolkiln.registry.folder import Folder
from toolkiln.registry.kinds import ToolKind, kind_of
from toolkiln.registry.kinds.compute import COMPUTE
from toolkiln.registry.names import NAME_PATTERN
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.record_view import RecordView, read_record
from toolkiln.registry.runs import tables_used
from toolkiln.registry.usage import UsageBook, not_written
from toolkiln.semantics.dates import Clock
from toolkiln.tool import Tool


class FolderRun(NamedTuple):
    """How the run went (as `Registry.invoke` says it), the tool's kind and definition (to show
    a failure where it happened), and why its count is not in usage.json (None: it is)."""

    outcome: Outcome
    kind: ToolKind
    definition: dict[str, Any]
    count_not_written: str | None


def run_in_folder(
    root: Path, name: str, args: Mapping[str, Any] | None, *, clock: Clock | datetime | None
) -> FolderRun | None:
    """Run the compute tool `name` of the registry folder `root` as the local user, or None when
    it is not such a tool as described above (open the `Registry` then)."""
    found = _runnable(root, name)
    if found is None:
        return None
    folder, record, tool = found
    book = UsageBook(folder)
    started = time.monotonic()
    try:
        outcome = Outcome(True, tool.run(args, tables=None, limits=None, clock=clock), (), record.version, name)
    except Error as error:
        outcome = Outcome.failed(name, error, record.version)
    finally:
        book.count(name, started)  # (a failed run counts too, as `Registry.invoke` counts it)
    try:
        book.flush(lambda counted: folder.tool_path(counted).exists())
        unwritten = None
    except StoreError as error:  # (a full disk, a read-only folder)
        unwritten = not_written(error, book).message
    return FolderRun(outcome, COMPUTE, record.definition, unwritten)


def _runnable(root: Path, name: str) -> tuple[Folder, RecordView, Tool] | None:
    """The folder, the tool's record and its compiled tool, when it may run here."""
    if not NAME_PATTERN.fullmatch(name):
        return None
    try:
        if not root.is_dir():
            return None
        folder = Folder(root, one_shot=True)  # (this process takes the lock once: to count the run)
        data = folder.read_bytes(folder.tool_path(name))
    except (OSError, RegistryError):
        return None
    record = None if data is None else read_record(data)
    if record is None or record.name != name or record.status != "active" or record.pins or record.approve_calls:
        return None
    try:
        if kind_of(record.kind) is not COMPUTE:
            return None
    except RegistryError:  # (a kind this toolkiln lacks)
        return None
    # (a call step does not check against no tools: the registry's callees are for it)
    copied = {field: getattr(record, field) for field in ("name", "description", "parameters", "risk_level", "kind")}
    compiled, _ = verify_stored(record.definition, tools={}, **copied)
    tool = None if compiled is None else compiled.tool
    if tool is None or tables_used(tool.program):
        return None
    return folder, record, tool
