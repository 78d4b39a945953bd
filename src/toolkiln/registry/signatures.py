"""Which records this registry wrote itself, here: a signature per tool file and past version.

A registry folder is data, not authority: a clone, a copy or a hand edit can say anything in a
tool file (`"status": "active"`, `"created_by": "user"`, `"sandbox": "none"`). So every record
the registry writes is signed, and what a record that does not verify claims is not believed
(registry.py: its program or workflow does not run until a local person trusts it).

A signature is an HMAC-SHA256 under this user's key, the index's (index.py: kept outside every
registry folder), over the folder's identity (real path, device, inode), the tool's name, its
version and the SHA-256 of the file's bytes. They live in `.cache/signatures.json`:

    {"format": 1, "records": {"<name>": "<hex>", "<name>@<version>": "<hex>", ...}}

`.cache/` is ignored by git, so diffs stay clean and a clone carries none; a folder copied
whole carries them, but they name the folder they were made in. One file for the folder: it
is read once and again only when it changes (a stat), and rewritten atomically by each write
(under the registry's lock). A record copied back from `.deleted/` is unsigned: trust it again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from pathlib import Path

from toolkiln.registry.codec import decode_record
from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder, Sig, sig_of
from toolkiln.registry.index import folder_identity, load_key

FORMAT = 1
MAX_SIGNATURES_BYTES = 64 * 1024 * 1024


def slot(name: str, version: int | None = None) -> str:
    """Where a signature is kept: the tool's current record, or one past version."""
    return name if version is None else f"{name}@{int(version)}"


class Signatures:
    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.path = folder.root / ".cache" / "signatures.json"
        self._seen: Sig | None | bool = False  # False: never read
        self._macs: dict[str, str] = {}
        self._changed: set[str] = set()
        self._keyed: hmac.HMAC | None = None  # the HMAC of this user's key and this folder's identity

    def refresh(self) -> None:
        """Read the file again if it changed since (one stat)."""
        seen = sig_of(self.path)
        if seen != self._seen:
            before, self._seen, self._macs = self._macs, seen, self._read()
            self._changed.update(where.partition("@")[0] for where, _ in before.items() ^ self._macs.items())

    def take_changed(self) -> set[str]:
        """The tools whose signatures changed since the last call (what a cache must forget)."""
        changed, self._changed = self._changed, set()
        return changed

    def mac(self, name: str, version: int, data: bytes) -> str | None:
        """The signature of `data` as version `version` of `name` here; None without a key."""
        return self.mac_of_digest(name, version, hashlib.sha256(data).digest())

    def mac_of_digest(self, name: str, version: int, sha256: bytes) -> str | None:
        if self._keyed is None:
            key = load_key()
            try:
                identity = None if key is None else folder_identity(self.folder)
            except OSError:
                identity = None
            if key is None or identity is None:
                return None
            self._keyed = hmac.new(key, b"toolkiln record\0" + identity, hashlib.sha256)  # (copied per record)
        signed = self._keyed.copy()
        signed.update(f"\0{name}\0{int(version)}\0".encode() + sha256)
        return signed.hexdigest()

    def verifies(self, where: str, name: str, version: int, sha256: bytes) -> bool:
        """Whether the file whose bytes have this SHA-256 is what the registry signed at `where`."""
        kept = self._macs.get(where)
        expected = self.mac_of_digest(name, version, sha256) if kept is not None else None
        return expected is not None and hmac.compare_digest(kept or "", expected)

    def write(self, changes: Mapping[str, str | None]) -> None:
        """Set (a signature) or drop (None) each slot and rewrite the file; the caller holds the
        registry's lock. StoreError when it cannot be written."""
        self.refresh()
        macs = dict(self._macs)
        for where, mac in changes.items():
            if mac is None:
                macs.pop(where, None)
            else:
                macs[where] = mac
        body = json.dumps({"format": FORMAT, "records": dict(sorted(macs.items()))}, separators=(",", ":"))
        self.folder.check_folders(self.path.parent)
        # Not fsynced: a power cut that loses the last signatures leaves records unsigned (the
        # safe side: they are trusted again), and each write would cost two more fsyncs.
        self.folder.write_bytes(self.path, body.encode() + b"\n", durable=False)
        self._changed.update(where.partition("@")[0] for where in changes)
        self._macs, self._seen = macs, sig_of(self.path)

    def sign_as_found(self, names: list[str]) -> dict[str, list[int]]:
        """Sign the tool files of `names` as they are now, and each past version that decodes as
        itself (the caller holds the lock): {name: the versions signed}."""
        changes: dict[str, str | None] = {}
        signed: dict[str, list[int]] = {}
        for name in names:
            found: list[tuple[int | None, Path]] = [(None, self.folder.tool_path(name))]
            found += [(n, self.folder.version_path(name, n)) for n in self.folder.past_versions(name)]
            for number, path in found:
                data = self.folder.read_bytes(path)
                record = None if data is None else decode_record(data, self.folder.relative(path))[0]
                if data is None or record is None or record.name != name or number not in (None, record.version):
                    continue
                changes[slot(name, number)] = self.mac(name, record.version, data)
                signed.setdefault(name, []).append(record.version)
        self.write(changes)
        return {name: sorted(versions) for name, versions in signed.items()}

    def file_verifies(self, name: str, version: int) -> bool:
        """Whether the file of a past version is one this registry signed, here."""
        data = self.folder.read_bytes(self.folder.version_path(name, version))
        self.refresh()
        return data is not None and self.verifies(slot(name, version), name, version, hashlib.sha256(data).digest())

    def slots_of(self, name: str) -> list[str]:
        """Every slot of `name`: its record and its past versions."""
        prefix = name + "@"
        return [where for where in self._macs if where == name or where.startswith(prefix)]

    def _read(self) -> dict[str, str]:
        """The signatures on disk: {} for a file that is missing, unreadable or not ours (every
        record then fails to verify, which is safe)."""
        try:
            data = self.folder.read_bytes(self.path, MAX_SIGNATURES_BYTES)
            raw = json.loads(data) if data is not None else None
        except (StoreError, OSError, ValueError):
            return {}
        records = raw.get("records") if isinstance(raw, dict) and raw.get("format") == FORMAT else None
        if not isinstance(records, dict):
            return {}
        return {k: v for k, v in records.items() if isinstance(k, str) and isinstance(v, str)}
