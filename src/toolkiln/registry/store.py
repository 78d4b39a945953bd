"""The registry on disk: layout, atomic writes, the cross-process lock, append-only logs.

    <root>/
      tools/<name>.json          one file per tool: its current record (readable, diffable)
      versions/<name>/<n>.json   one file per past version n of the tool
      tables/*.json, *.csv       tables that lookup steps read (toolkiln.load_table_file)
      audit.jsonl                one line per change: who, what, when, old and new version
      usage.json                 run counts and last use per tool (kept out of the tool files)
      .cache/checked             digests of files already checked by this toolkiln version
      .lock                      the lock file that serializes writers across processes
      .gitignore                 keeps usage.json, .cache/ and .lock out of git

This module knows files and bytes, not records. Every write is atomic: a temporary file in
the same directory, fsync, os.replace, fsync of the directory; a reader sees the old file or
the new one, never half of one. Writers hold the lock (the `filelock` package: fcntl.flock on
POSIX, msvcrt locking on Windows), so they never interleave. Appends to the logs are one
`write` of a whole line with O_APPEND; a reader takes only complete lines.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from toolkiln.registry import layout
from toolkiln.registry.errors import StoreError
from toolkiln.registry.names import check_name

Sig = tuple[int, int, int]  # (inode, size, mtime in ns): changes whenever a file is replaced or edited

GITIGNORE = "# written by toolkiln: run-time state, not tool definitions\nusage.json\n.cache/\n.lock\n"
TEMP_SUFFIX = ".tmp"
STALE_TEMP_SECONDS = 60.0


def sig_of(path: Path | str) -> Sig | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Store:
    def __init__(self, root: str | os.PathLike[str], *, lock_timeout: float = 30.0, durable: bool = True) -> None:
        self.root = Path(os.path.abspath(root))
        self.durable = durable  # fsync files and folders (off: atomic still, but a power cut may lose writes)
        self.tools_dir = self.root / layout.TOOLS
        self.versions_dir = self.root / layout.VERSIONS
        self.tables_dir = self.root / layout.TABLES
        self.audit_path = self.root / layout.AUDIT
        self.usage_path = self.root / layout.USAGE
        self.cache_path = self.root / ".cache" / "checked"
        self.lock_timeout = lock_timeout
        try:
            for folder in (self.tools_dir, self.versions_dir, self.tables_dir, self.cache_path.parent):
                folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"cannot create the registry at {self.root}: {error.strerror or error}",
                hint="check the path and its permissions",
            ) from None
        # thread_local=False: the registry's own mutex already serializes its threads.
        self._lock = FileLock(
            str(self.root / layout.LOCK), timeout=lock_timeout, thread_local=False, poll_interval=0.002
        )
        if not (self.root / ".gitignore").exists():
            try:
                with self.lock():
                    if not (self.root / ".gitignore").exists():
                        self.write_text(self.root / ".gitignore", GITIGNORE)
            except StoreError:
                pass  # a read-only registry can still be read

    # --- the lock -------------------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the registry's cross-process write lock (re-entrant within one Store)."""
        try:
            self._lock.acquire()
        except Timeout:
            raise StoreError(
                f"the registry at {self.root} stayed locked for {self.lock_timeout:g} s",
                hint="another process is writing to it; try again, or raise lock_timeout",
            ) from None
        except OSError as error:
            raise StoreError(
                f"cannot lock the registry at {self.root}: {error.strerror or error}",
                hint="writing needs a registry folder you may write to",
            ) from None
        try:
            yield
        finally:
            self._lock.release()

    # --- paths ----------------------------------------------------------------------------

    def tool_path(self, name: str) -> Path:
        return self.tools_dir / f"{check_name(name)}.json"

    def version_dir(self, name: str) -> Path:
        return self.versions_dir / check_name(name)

    def version_path(self, name: str, version: int) -> Path:
        return self.version_dir(name) / f"{int(version)}.json"

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    # --- whole files ----------------------------------------------------------------------

    def write_text(self, path: Path, text: str) -> None:
        """Replace `path` atomically and durably (temp file, fsync, rename, fsync of the folder)."""
        self.write_bytes(path, text.encode("utf-8"))

    def write_bytes(self, path: Path, data: bytes) -> None:
        folder = path.parent
        temp = folder / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}{TEMP_SUFFIX}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if self.durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
            if self.durable:
                _fsync_dir(folder)
        except OSError as error:
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass
            raise StoreError(f"cannot write {self.relative(path)}: {error.strerror or error}") from None

    def read_bytes(self, path: Path) -> bytes | None:
        """The file's bytes, or None when it does not exist."""
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None

    def remove(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
            if self.durable:
                _fsync_dir(path.parent)
        except OSError as error:
            raise StoreError(f"cannot remove {self.relative(path)}: {error.strerror or error}") from None

    def remove_tree(self, path: Path) -> None:
        try:
            shutil.rmtree(path)
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreError(f"cannot remove {self.relative(path)}: {error.strerror or error}") from None

    # --- append-only logs -----------------------------------------------------------------

    def append_line(self, path: Path, line: str, *, durable: bool = True) -> int:
        """Append one line with a single write; return the file's size after it."""
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = os.write(fd, data)
                if written != len(data):  # never seen on a local file system; do not leave half a line
                    raise OSError(f"short write ({written} of {len(data)} bytes)")
                if durable and self.durable:
                    os.fsync(fd)
                return os.fstat(fd).st_size
            finally:
                os.close(fd)
        except OSError as error:
            raise StoreError(
                f"cannot append to {self.relative(path)}: {getattr(error, 'strerror', None) or error}"
            ) from None

    def read_lines(self, path: Path, offset: int = 0) -> tuple[list[str], int]:
        """The complete lines from `offset` on, and the offset after the last complete one.
        A partial last line (a write in progress) is left for the next read."""
        try:
            with open(path, "rb") as handle:
                handle.seek(offset)
                data = handle.read()
        except FileNotFoundError:
            return [], 0
        except OSError as error:
            raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None
        end = data.rfind(b"\n") + 1
        lines = data[:end].decode("utf-8", errors="replace").splitlines()
        return lines, offset + end

    # --- listings -------------------------------------------------------------------------

    def scan(self, folder: Path, suffixes: tuple[str, ...]) -> dict[str, tuple[Path, Sig]]:
        """{file name: (path, sig)} of the regular files in `folder` with one of `suffixes`.
        Hidden files (temporaries among them) are skipped; stale temporaries are removed."""
        found: dict[str, tuple[Path, Sig]] = {}
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return found
        except OSError as error:
            raise StoreError(f"cannot list {self.relative(folder)}: {error.strerror or error}") from None
        now = time.time()
        for entry in entries:
            if entry.name.startswith("."):
                if entry.name.endswith(TEMP_SUFFIX):
                    _remove_if_stale(entry, now)
                continue
            if not entry.name.endswith(suffixes):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            found[entry.name] = (Path(entry.path), (st.st_ino, st.st_size, st.st_mtime_ns))
        return found

    def past_versions(self, name: str) -> list[int]:
        """The numbers of the past-version files of `name`, ascending."""
        folder = self.version_dir(name)
        try:
            names = os.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(int(n[:-5]) for n in names if n.endswith(".json") and n[:-5].isdigit())


def _fsync_dir(folder: Path) -> None:
    """Make a rename or unlink in `folder` durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_if_stale(entry: os.DirEntry[str], now: float) -> None:
    """A temporary file left by a writer that died: no live writer keeps one for a minute."""
    try:
        if now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS:
            os.unlink(entry.path)
    except OSError:
        pass
