"""Which loaded records this registry wrote itself, here (signatures.py): asked per tool and
remembered until its record or its signature changes; signing what the registry writes, and
trusting (signing as found) what a person read."""

from __future__ import annotations

import hashlib

from toolkiln.registry.errors import NotTrusted, StoreError
from toolkiln.registry.folder import Folder
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.problem_files import Problems
from toolkiln.registry.records import Records
from toolkiln.registry.signatures import Signatures, slot


class Vouching:
    def __init__(self, folder: Folder, records: Records, problems: Problems) -> None:
        self.folder = folder
        self.records = records
        self.problems = problems
        self.signatures = Signatures(folder)
        self._sha256: dict[str, bytes] = {}  # tool -> SHA-256 of the bytes its loaded record came from
        self._verified: dict[str, bool] = {}  # tool -> whether its loaded record is signed here
        self._unsigned: dict[str, str | None] = {}  # signatures of past versions kept, not written yet

    def read(self, name: str, data: bytes | None) -> None:
        """The bytes the loaded record of `name` came from (None: not known until it is read)."""
        self._verified.pop(name, None)
        if data is None:
            self._sha256.pop(name, None)
        else:
            self._sha256[name] = hashlib.sha256(data).digest()

    def moved(self, name: str) -> None:
        """The loaded record of `name` changed: whether it verifies is asked again."""
        self._verified.pop(name, None)

    def verified(self, name: str) -> bool:
        """Whether the loaded record of `name` is one this registry signed, here."""
        self._signatures_changed()
        return self._verified_now(name)

    def _verified_now(self, name: str) -> bool:
        known = self._verified.get(name)
        if known is None:
            record = self.records.get(name)  # (reads a deferred record: its bytes are then known)
            digest = self._sha256.get(name)
            known = self._verified[name] = (
                record is not None
                and digest is not None
                and self.signatures.verifies(slot(name), name, record.version, digest)
            )
        return known

    def untrusted(self) -> set[str]:
        """The loaded tools whose records do not verify here (every record read first)."""
        self._signatures_changed()
        return {name for name in self.records if not self._verified_now(name)}

    def _signatures_changed(self) -> None:
        self.signatures.refresh()
        for name in self.signatures.take_changed():
            self._verified.pop(name, None)

    def vouch(self, record: ToolRecord, action: str) -> bool:
        """Whether `record` (as read from disk) is the loaded record and verifies: whether what
        is made from it may be signed. NotTrusted when it does not and `action` would act on
        what a program or workflow tool claims (anything but disable, reject and delete)."""
        vouched = self.records.get(record.name) == record and self.verified(record.name)
        refuse_unvouched(record, action, vouched, "(a clone, a copy, another machine or a hand edit)", self.folder.root)
        return vouched

    def sign(self, name: str, record: ToolRecord | None, data: bytes | None, vouched: bool, past: bool = False) -> None:
        """After the registry wrote `name`'s file (`past`: a past version), holding the lock:
        sign its bytes when what it was made from verified, else leave it unsigned; a deleted
        tool (`record` None) loses every signature. Signing never undoes the write: a
        signatures file that cannot be written leaves the record unsigned, and says so."""
        if record is None:
            self.signatures.refresh()
            changes = dict.fromkeys(self.signatures.slots_of(name))
        else:
            where = slot(name, record.version if past else None)
            changes = {where: self.signatures.mac(name, record.version, data or b"") if vouched else None}
        self._unsigned.update(changes)
        if past:
            return  # (written with the record's own, which follows: one write of the file)
        try:
            self.signatures.write(self._unsigned)
        except StoreError as error:
            self.problems.unreadable(self.signatures.path, error)
        self._unsigned = {}
        self._verified.pop(name, None)

    def trust(self, names: list[str]) -> dict[str, list[int]]:
        """Sign the records of `names` as they are on disk now, with their past versions (the
        caller holds the lock): {name: the versions signed}."""
        signed = self.signatures.sign_as_found(names)
        self._verified.clear()
        return signed

    def past_verifies(self, name: str, version: int) -> bool:
        """Whether the file of a past version is one this registry signed, here."""
        return self.signatures.file_verifies(name, version)


def refuse_unvouched(record: ToolRecord, action: str, vouched: bool, how: str, location: object) -> None:
    """NotTrusted when a record the store cannot vouch for would have `action` act on what a
    program or workflow tool claims (anything but disable, reject and delete)."""
    if not vouched and kind_of(record.kind).signed and action not in ("disable", "reject", "delete"):
        raise NotTrusted(
            f"`{record.name}` was not written by this registry here {how}: what it claims is not "
            f"believed, so it may not {action}",
            hint=f"read it, then trust it: toolkiln trust {location} --tool {record.name}",
        )
