"""The tables that lookup steps read (tables/*.json, *.csv), as the directory store loads them:
again whenever the folder's files change; a file that does not load is a problem and skipped."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.io.tables import MAX_TABLE_BYTES, table_file_data
from toolkiln.registry.errors import InvalidRequest, StoreError, UnsafeFile
from toolkiln.registry.folder import Folder, Sig
from toolkiln.registry.problem_files import Problems

SUFFIXES = (".json", ".csv", ".JSON", ".CSV")
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def checked_table_file(file: str, data: bytes) -> None:
    """What `Store.put_table` takes: a plain file name of a table suffix (never a path), and
    bytes that are a table file (RunError E0513 otherwise)."""
    if not isinstance(file, str) or not _FILE_NAME.fullmatch(file) or not file.endswith(SUFFIXES):
        raise InvalidRequest(
            f"{str(file)[:100]!r} is not a table file's name",
            hint="a plain file name ending in .json or .csv, such as rates.json",
        )
    table_file_data(data, Path(file))


class LoadedTables:
    def __init__(self, folder: Folder, problems: Problems) -> None:
        self.folder = folder
        self.problems = problems
        # By table name; replaced, never changed, by a reload (what was read before stays as it was).
        self.tables: dict[str, dict[str, Any]] = {}
        self.generation = 0  # +1 whenever the tables are reloaded
        self._sigs: dict[str, Sig] = {}

    def scan(self) -> bool:
        """Load the tables again if a file changed; whether they did."""
        folder = self.folder.tables_dir
        refused: dict[str, UnsafeFile] = {}
        try:
            found = self.folder.scan(folder, SUFFIXES, refused)
            folder_problem = None
        except StoreError as error:
            found, folder_problem = {}, error
        # (an empty tables/ is unchanged too: reloading it replaced the tables every periodic
        # scan, which made every check that spanned one start again)
        if self.generation and found == self._sigs and not refused and folder_problem is None:
            return False
        self._sigs = found
        self.problems.drop_under(self.folder.relative(folder))
        if folder_problem is not None:
            self.problems.unreadable(folder, folder_problem)
        for filename, refusal in refused.items():
            self.problems.unreadable(folder / filename, refusal)
        self.tables = self._load(sorted(found))
        self.generation += 1
        return True

    def _load(self, filenames: list[str]) -> dict[str, dict[str, Any]]:
        tables: dict[str, dict[str, Any]] = {}
        origin: dict[str, str] = {}
        for filename in filenames:
            path = self.folder.tables_dir / filename
            rel = self.folder.relative(path)
            try:
                raw = self.folder.read_bytes(path, MAX_TABLE_BYTES)  # a regular file inside the folder only
            except StoreError as error:
                self.problems.unreadable(path, error)
                continue
            if raw is None:
                continue  # removed since the scan
            try:
                loaded = table_file_data(raw, path)
            except RunError as error:
                self.problems.note(rel, codes.INVALID_TABLE, error.message, error.hint)
                continue
            clash = sorted(set(loaded) & set(tables))
            if clash:
                message = f"table `{clash[0]}` is also defined in {origin[clash[0]]}"
                hint = "each table name may come from one file only; this file is skipped"
                self.problems.note(rel, codes.INVALID_TABLE, message, hint)
                continue
            tables.update(loaded)
            origin.update(dict.fromkeys(loaded, rel))
        return tables
