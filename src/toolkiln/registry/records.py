"""The loaded tool records by name, some of them not read yet.

A start that finds a tool file unchanged since the index says it decoded (see index.py) does
not read it: its record is read on first access, through `read` (the mirror's, which turns a
file that changed or no longer decodes into a problem, dropping the name). So every lookup
may drop a name: `get` and `[]` answer for the moment of the call, and iterations go over a
copy of the names (the mirror reads every `deferred` one first, where all are needed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from toolkiln.registry.models import ToolRecord


class Records(Mapping[str, ToolRecord]):
    def __init__(self, read: Callable[[str], ToolRecord | None]) -> None:
        self._read = read
        self._records: dict[str, ToolRecord | int] = {}  # an int: not read yet, the tool's version

    def __getitem__(self, name: str) -> ToolRecord:
        found = self._records[name]
        if isinstance(found, ToolRecord):
            return found
        record = self._read(name)  # sets or drops it
        if record is None:
            raise KeyError(name)
        return record

    def __contains__(self, name: object) -> bool:
        return name in self._records

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._records))

    def __len__(self) -> int:
        return len(self._records)

    def set(self, name: str, record: ToolRecord) -> None:
        self._records[name] = record

    def defer(self, name: str, version: int) -> None:
        """A tool known to decode, to be read when first needed."""
        self._records[name] = version

    def pop(self, name: str) -> None:
        self._records.pop(name, None)

    def version(self, name: str) -> int | None:
        """The tool's current version, without reading a deferred record."""
        found = self._records.get(name)
        return found.version if isinstance(found, ToolRecord) else found

    def deferred(self) -> list[str]:
        """The names whose records are not read yet."""
        return [name for name, found in self._records.items() if not isinstance(found, ToolRecord)]
