"""The check cache (.cache/checked): digests of files whose exact bytes this toolkiln version
already checked, so that a start or `problems` does not check them again (a hand edit changes
the bytes, so it is checked). Only a cache: one that cannot be read or written checks again."""

from __future__ import annotations

from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder, sig_of


class CheckCache:
    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.digests: set[str] = set()
        self._offset = 0

    def __contains__(self, digest: object) -> bool:
        return digest in self.digests

    def remember(self, digest: str) -> None:
        if digest in self.digests:
            return
        self.digests.add(digest)
        try:
            self.folder.append_line(self.folder.cache_path, digest, durable=False)
        except StoreError:
            pass  # only a cache: a read-only registry checks again next time

    def read(self) -> None:
        """Take the lines other processes added since the last read."""
        sig = sig_of(self.folder.cache_path)
        size = 0 if sig is None else sig[1]
        if size < self._offset:
            self.digests, self._offset = set(), 0
        if size == self._offset:
            return
        try:
            lines, self._offset = self.folder.read_lines(self.folder.cache_path, self._offset)
        except StoreError:
            return  # only a cache: everything is checked
        self.digests.update(line.strip() for line in lines if len(line.strip()) == 64)

    def compact(self, live: set[str]) -> None:
        """Keep the cache from growing without end: rewrite it with the `live` digests only
        (those of the tool files and past versions there are now)."""
        live = live & self.digests
        if len(self.digests) <= 2 * len(live) + 1000:
            return
        try:
            with self.folder.lock():
                self.folder.write_text(self.folder.cache_path, "".join(f"{d}\n" for d in sorted(live)))
        except StoreError:
            return
        self.digests = live
        self._offset = sig_of(self.folder.cache_path)[1]  # type: ignore[index]
