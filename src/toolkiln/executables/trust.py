"""Trusted folders: which project tool folders the user has read and allowed to run, with the
SHA-256 of each executable as it was then.

The record is `<home>/trusted-folders.json` (mode 0600), rewritten atomically under a lock.
It lives in the user's toolkiln home, never in a project, so a cloned project cannot ship
its own trust. A folder is recorded by its real path (a link to it is the same folder).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock

from toolkiln.diagnostics import codes
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.files import read_program, tool_files

TRUST_FILE = "trusted-folders.json"
FileTrust = Literal["trusted", "new", "changed", "untrusted-folder"]
_DIGEST = re.compile(r"[0-9a-f]{64}")
_START_OVER = "remove the file to start over: every project folder is then untrusted until trusted again"


@dataclass(frozen=True)
class TrustedFolder:
    path: str  # the real path
    trusted_at: str
    files: dict[str, str]  # file name -> hex SHA-256


@dataclass(frozen=True)
class TrustChange:
    """What trusting a folder again changed, compared with the record it replaced."""

    folder: TrustedFolder
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]


class TrustStore:
    """The trusted folders recorded under `home` (the toolkiln home, $TOOLKILN_HOME)."""

    def __init__(self, home: Path) -> None:
        self.path = home / TRUST_FILE
        self._lock = FileLock(str(home / f".{TRUST_FILE}.lock"))

    def folders(self) -> list[TrustedFolder]:
        return sorted(self._read().values(), key=lambda folder: folder.path)

    def status(self, folder: Path, file_name: str, sha256: str) -> FileTrust:
        record = self._read().get(_real(folder))
        if record is None:
            return "untrusted-folder"
        known = record.files.get(file_name)
        return "new" if known is None else "trusted" if known == sha256 else "changed"

    def trust(self, folder: Path) -> TrustChange:
        """Record `folder` and the hash of each executable in it now (R0606 if it is no folder)."""
        real = _real(folder)
        if not Path(real).is_dir():
            raise ExecutableError(codes.TRUST_STORE_ERROR, f"{folder} is not a folder", path=str(folder))
        files = {path.name: read_program(path, follow_link=True)[1] for path in tool_files(Path(real))}
        record = TrustedFolder(real, datetime.now(UTC).isoformat(timespec="seconds"), files)
        with self._locked():
            folders = self._read()
            before = folders.get(real, TrustedFolder(real, "", {})).files
            folders[real] = record
            self._write(folders)
        return TrustChange(
            record,
            added=tuple(sorted(files.keys() - before.keys())),
            changed=tuple(sorted(name for name in files.keys() & before.keys() if files[name] != before[name])),
            removed=tuple(sorted(before.keys() - files.keys())),
        )

    def revoke(self, folder: Path) -> TrustedFolder:
        real = _real(folder)
        with self._locked():
            folders = self._read()
            record = folders.pop(real, None)
            if record is None:
                raise ExecutableError(codes.TRUST_STORE_ERROR, f"{real} is not a trusted folder", path=real)
            self._write(folders)
        return record

    def _locked(self) -> FileLock:
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise self._error(f"cannot create {self.path.parent}: {error.strerror or error}") from None
        return self._lock

    def _read(self) -> dict[str, TrustedFolder]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise self._error(f"{self.path} cannot be read: {error}", _START_OVER) from None
        folders = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(folders, dict) or not all(_valid_record(record) for record in folders.values()):
            raise self._error(f"{self.path} is not a trust file this version of toolkiln wrote", _START_OVER)
        return {path: TrustedFolder(path, entry["trusted_at"], dict(entry["files"])) for path, entry in folders.items()}

    def _write(self, folders: dict[str, TrustedFolder]) -> None:
        payload = {
            "version": 1,
            "folders": {
                path: {"trusted_at": record.trusted_at, "files": record.files}
                for path, record in sorted(folders.items())
            },
        }
        text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{TRUST_FILE}.", suffix=".tmp")  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except OSError as error:
            Path(temp).unlink(missing_ok=True)
            raise self._error(f"cannot write {self.path}: {error.strerror or error}") from None

    def _error(self, message: str, hint: str | None = None) -> ExecutableError:
        return ExecutableError(codes.TRUST_STORE_ERROR, message, hint, path=str(self.path))


def _real(folder: Path) -> str:
    return os.path.realpath(folder)


def _valid_record(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("trusted_at"), str)
        and isinstance(record.get("files"), dict)
        and all(isinstance(digest, str) and _DIGEST.fullmatch(digest) for digest in record["files"].values())
    )
