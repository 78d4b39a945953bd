"""The past versions of the loaded tools (versions/<name>/<n>.json), as the directory store
reads them: looked at once at load (a broken one is a problem), read when asked for."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry.check_cache import CheckCache
from toolkiln.registry.codec import decode_record, file_digest
from toolkiln.registry.errors import StoreError, UnsafeFile
from toolkiln.registry.folder import Folder
from toolkiln.registry.models import Problem, ToolRecord
from toolkiln.registry.problem_files import Problems
from toolkiln.registry.records import Records


class PastVersions:
    def __init__(self, folder: Folder, problems: Problems, checked: CheckCache, version_tag: str) -> None:
        self.folder = folder
        self.problems = problems
        self.checked = checked
        self.version_tag = version_tag
        self.keys: set[str] = set()  # check-cache keys of the past versions there are

    def check_all(self, records: Records, *, trust_cache: bool) -> None:
        """Look at every past version of the loaded tools (at load): a file that is not a
        regular file, does not decode or holds another version is a problem (R0303, E01xx)."""
        folder = self.folder.versions_dir
        self.keys = set()
        self.problems.drop_under(self.folder.relative(folder))
        try:
            self.folder.check_folders(folder, create=False)
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name) if folder.exists() else []
        except StoreError as error:
            self.problems.unreadable(folder, error)
            return
        except OSError as error:
            message = f"cannot list {self.folder.relative(folder)}: {error.strerror or error}"
            self.problems.unreadable(folder, StoreError(message))
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                try:
                    self.folder.check_folders(Path(entry.path), create=False)
                except StoreError as error:
                    self.problems.unreadable(Path(entry.path), error)
                continue
            version = records.version(entry.name)
            if version is not None:  # (what a deleted tool left is removed when the name is used again)
                self._check_tool(entry.name, Path(entry.path), version, trust_cache)

    def _check_tool(self, name: str, folder: Path, version: int, trust_cache: bool) -> None:
        refused: dict[str, UnsafeFile] = {}
        try:
            found = self.folder.scan(folder, (".json",), refused)
        except StoreError as error:
            self.problems.unreadable(folder, error)
            return
        for filename, refusal in refused.items():
            self.problems.unreadable(folder / filename, refusal)
        for filename, sig in found.items():
            number = filename[:-5]
            if not number.isdigit() or int(number) >= version:
                continue  # left by an update that died before its record was written
            # A version file is written once: one that decoded before, unchanged since (same
            # inode, size and time), is not read again. These keys are apart from the digests
            # of checked tool files (a version is decoded, never compiled).
            rel = self.folder.relative(folder / filename)
            key = file_digest(f"{rel}\0{sig}".encode(), self.version_tag + " past version")
            self.keys.add(key)
            if trust_cache and key in self.checked:
                self.problems.pop(rel, None)
            elif self.read(name, int(number)) is not None:
                self.checked.remember(key)

    def read(self, name: str, version: int) -> ToolRecord | None:
        """A past version's record; a file that cannot be read or decoded is added to the problems."""
        path = self.folder.version_path(name, version)
        rel = self.folder.relative(path)
        try:
            data = self.folder.read_bytes(path)
        except StoreError as error:
            self.problems.unreadable(path, error)
            return None
        if data is None:
            self.problems.pop(rel, None)
            return None
        record, diagnostics = decode_record(data, rel)
        if record is not None and (record.name, record.version) != (name, version):
            diagnostics = [
                replace(
                    Diagnostic.of(
                        codes.INVALID_NAME,
                        f"{rel} holds version {record.version} of `{record.name}`",
                        None,
                        hint="restore the file from version control",
                    ),
                    file=rel,
                )
            ]
            record = None
        if record is None:
            self.problems[rel] = Problem(file=rel, diagnostics=tuple(diagnostics))
        else:
            self.problems.pop(rel, None)
        return record
