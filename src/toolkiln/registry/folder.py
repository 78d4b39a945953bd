"""A registry folder as bytes on disk, the directory store's lowest part: layout, atomic
writes, the cross-process lock, append-only logs.

    <root>/
      tools/<name>.json          one file per tool: its current record (readable, diffable)
      versions/<name>/<n>.json   one file per past version n of the tool
      tables/*.json, *.csv       tables that lookup steps read (toolkiln.load_table_file)
      audit.jsonl                one line per change: who, what, when, old and new version
      usage.json                 run counts and last use per tool (kept out of the tool files)
      .cache/checked             digests of files already checked by this toolkiln version
  .cache/changes             a counter every change bumps: how runs notice other processes' changes
      .lock                      the lock file that serializes writers across processes
      calls/                     calls waiting for a person's approval (pending_calls.py)
      .gitignore                 keeps usage.json, .cache/, .lock and calls/ out of git

This module knows files and bytes, not records. Every write is atomic: a temporary file in
the same directory, fsync, os.replace, fsync of the directory; a reader sees the old file or
the new one, never half of one. Writers hold the lock (the `filelock` package: fcntl.flock on
POSIX, msvcrt locking on Windows), so they never interleave. Appends to the logs are one
`write` of a whole line with O_APPEND; a reader takes only complete lines.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sized
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.registry import flock, layout
from toolkiln.registry.errors import FileTooLarge, StoreError, UnsafeFile
from toolkiln.registry.names import check_name
from toolkiln.syntax.loader import file_kind, read_at_most

if TYPE_CHECKING:
    from filelock import FileLock

Sig = tuple[int, int, int]  # (inode, size, mtime in ns): changes whenever a file is replaced or edited

GITIGNORE = "# written by toolkiln: run-time state, not tool definitions\nusage.json\n.cache/\n.lock\ncalls/\n"
TEMP_SUFFIX = ".tmp"
_OWN_TEMP = re.compile(r"\..+\.[0-9]+\.[0-9]+\.tmp")  # .<file name>.<pid>.<ns>.tmp, as write_bytes names them
STALE_TEMP_SECONDS = 60.0
MAX_RECORD_BYTES = 4 * 1024 * 1024  # a tool file or past version (a definition is at most 256 KB)
MAX_USAGE_BYTES = 16 * 1024 * 1024
LOG_CHUNK_BYTES = 64 * 1024 * 1024  # what one read of an append-only log takes at most

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Open relative to the registry's folder, one component at a time, never following a link.
_WALK = _NOFOLLOW != 0 and _DIRECTORY != 0 and os.open in os.supports_dir_fd


def sig_of(path: Path | str) -> Sig | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Folder:
    def __init__(
        self, root: str | os.PathLike[str], *, lock_timeout: float = 30.0, durable: bool = True, one_shot: bool = False
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self._root_prefix = os.path.join(os.fspath(self.root), "")  # the root and a separator
        self.durable = durable  # fsync files and folders (off: atomic still, but a power cut may lose writes)
        self.tools_dir = self.root / layout.TOOLS
        self.versions_dir = self.root / layout.VERSIONS
        self.tables_dir = self.root / layout.TABLES
        self.audit_path = self.root / layout.AUDIT
        self.usage_path = self.root / layout.USAGE
        self.cache_path = self.root / ".cache" / "checked"
        self.changes_path = self.root / ".cache" / "changes"
        self.index_path = self.root / ".cache" / "index.json"
        self.lock_timeout = lock_timeout
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            for folder in (self.tools_dir, self.versions_dir, self.tables_dir, self.cache_path.parent):
                try:
                    self.check_folders(folder)
                except UnsafeFile:
                    pass  # a link or a file where a folder belongs: reported by the load, never followed
        except OSError as error:
            raise StoreError(
                f"cannot create the registry at {self.root}: {error.strerror or error}",
                hint="check the path and its permissions",
            ) from None
        self._file_lock: FileLock | None = None  # made when first taken: a run that only reads takes none
        # A one-shot process (one thread, the lock taken once at a time, never re-entered)
        # holds it with flock(2) itself, without importing filelock (flock.py).
        self.one_shot = one_shot
        self._making_lock = threading.Lock()
        if not os.path.lexists(self.root / ".gitignore"):
            try:
                with self.lock():
                    if not os.path.lexists(self.root / ".gitignore"):
                        self.write_text(self.root / ".gitignore", GITIGNORE)
            except StoreError:
                pass  # a read-only registry can still be read

    # --- the lock -------------------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the registry's cross-process write lock (re-entrant within one Store, unless
        `one_shot`)."""
        if self.one_shot:
            try:
                held = flock.hold(str(self.root / layout.LOCK), self.lock_timeout)
            except flock.Busy:
                raise self._stayed_locked() from None
            if held is not None:
                try:
                    yield
                finally:
                    os.close(held)  # (lets go of the lock)
                return
        from filelock import Timeout

        lock = self._file_lock or self._make_lock()
        try:
            lock.acquire()
        except Timeout:
            raise self._stayed_locked() from None
        except OSError as error:
            raise StoreError(
                f"cannot lock the registry at {self.root}: {error.strerror or error}",
                hint="writing needs a registry folder you may write to",
            ) from None
        try:
            yield
        finally:
            lock.release()

    def _stayed_locked(self) -> StoreError:
        return StoreError(
            f"the registry at {self.root} stayed locked for {self.lock_timeout:g} s",
            hint="another process is writing to it; try again, or raise lock_timeout",
        )

    def _make_lock(self) -> FileLock:
        from filelock import FileLock

        with self._making_lock:
            if self._file_lock is None:
                # thread_local=False: the registry's own mutex already serializes its threads.
                self._file_lock = FileLock(
                    str(self.root / layout.LOCK), timeout=self.lock_timeout, thread_local=False, poll_interval=0.002
                )
            return self._file_lock

    # --- paths ----------------------------------------------------------------------------

    def tool_path(self, name: str) -> Path:
        return self.tools_dir / f"{check_name(name)}.json"

    def version_dir(self, name: str) -> Path:
        return self.versions_dir / check_name(name)

    def version_path(self, name: str, version: int) -> Path:
        return self.version_dir(name) / f"{int(version)}.json"

    def relative(self, path: Path) -> str:
        text = os.fspath(path)  # string work: pathlib's relative_to is slow at start-up's thousands of files
        return text[len(self._root_prefix) :] if text.startswith(self._root_prefix) else text

    # --- staying inside the folder --------------------------------------------------------
    #
    # Whatever is in the folder may have been put there by someone else (a clone, a shared
    # drive). Only regular files inside it are read, and only through real folders: a symbolic
    # link, a FIFO, a device or a folder where a file belongs is refused (UnsafeFile, R0303)
    # without being followed or opened for a blocking read.

    def _parts(self, path: Path) -> tuple[str, ...]:
        text, root = os.fspath(path), self._root_prefix
        if not text.startswith(root):
            raise UnsafeFile(f"{path} is outside the registry at {self.root}")
        parts = tuple(part for part in text[len(root) :].split(os.sep) if part not in ("", "."))
        if not parts or ".." in parts:
            raise UnsafeFile(f"{path} is not a file inside the registry at {self.root}")
        return parts

    def _refuse(self, path: Path, mode: int | None) -> UnsafeFile:
        kind = "a symbolic link" if mode is None else file_kind(mode)
        return UnsafeFile(
            f"{self.relative(path)} is {kind}; the registry reads and writes only regular files inside its folder",
            hint="remove or replace it by hand (toolkiln does not follow, read or delete it)",
        )

    def _open(self, path: Path, flags: int, mode: int = 0o644) -> int:
        """A descriptor of `path`, opened without following a symbolic link anywhere below the
        root (ELOOP/ENOTDIR on the way are UnsafeFile); FileNotFoundError when it is missing.
        The caller checks what it opened (fstat) before reading or writing."""
        parts = self._parts(path)
        flags |= _NOFOLLOW | _CLOEXEC
        if not _WALK:  # no openat (Windows): look at each folder on the way and the file, then open
            self.check_folders(path.parent, create=False)
            try:
                if stat.S_ISLNK(os.lstat(path).st_mode):
                    raise self._refuse(path, None)
            except FileNotFoundError:
                pass  # created by this open, when it may
            return os.open(path, flags, mode)
        folder = os.open(self.root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)  # the root may be a link: the user's choice
        try:
            for depth, part in enumerate(parts[:-1]):
                try:
                    inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=folder)
                except OSError as error:
                    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                        here = self.root.joinpath(*parts[: depth + 1])
                        raise self._refuse(here, _lstat_mode(part, folder)) from None
                    raise
                os.close(folder)
                folder = inner
            try:
                return os.open(parts[-1], flags, mode, dir_fd=folder)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.EMLINK):
                    raise self._refuse(path, _lstat_mode(parts[-1], folder)) from None
                raise
        finally:
            os.close(folder)

    def check_folders(self, folder: Path, *, create: bool = True) -> None:
        """Every folder from the root down to `folder` is a real folder (not a link), made when
        missing (`create`); UnsafeFile otherwise. Writes go only where this holds."""
        here = self.root
        for part in () if folder == self.root else self._parts(folder):
            here = here / part
            try:
                mode = os.lstat(here).st_mode
            except FileNotFoundError:
                if not create:
                    return
                here.mkdir()
                continue
            if not stat.S_ISDIR(mode):
                raise self._refuse(here, None if stat.S_ISLNK(mode) else mode)

    # --- whole files ----------------------------------------------------------------------

    def write_text(self, path: Path, text: str) -> None:
        """Replace `path` atomically and durably (temp file, fsync, rename, fsync of the folder)."""
        self.write_bytes(path, text.encode("utf-8"))

    def write_bytes(self, path: Path, data: bytes, *, durable: bool = True) -> None:
        """Replace `path` atomically; durably too unless `durable` is False (a cache whose loss
        is safe: still atomic, but a power cut may keep the old file)."""
        durable = durable and self.durable
        folder = path.parent
        temp = folder / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}{TEMP_SUFFIX}"
        try:
            self.check_folders(folder)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
            if durable:
                _fsync_dir(folder)
        except OSError as error:
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass
            raise StoreError(f"cannot write {self.relative(path)}: {error.strerror or error}") from None

    def read_bytes(self, path: Path, limit: int = MAX_RECORD_BYTES) -> bytes | None:
        """The bytes of a regular file inside the registry, or None when it does not exist.
        UnsafeFile for anything else (never followed or read), FileTooLarge past `limit`
        (only `limit` + 1 bytes are read to tell)."""
        try:
            fd = self._open(path, os.O_RDONLY | _NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None
        return self._read_fd(fd, path, limit)

    @contextmanager
    def reading(self, folder: Path, files: Sized) -> Iterator[Callable[[Path], bytes | None]]:
        """`read_bytes` for `files` of one folder (start-up reads thousands): the folder is
        opened once, as `read_bytes` opens it, and each file in it without following a link."""
        if not _WALK or not files:
            yield self.read_bytes
            return
        try:
            folder_fd = self._open(folder, os.O_RDONLY | _DIRECTORY)
        except FileNotFoundError:
            yield lambda path: None
            return
        except OSError as error:
            raise StoreError(f"cannot list {self.relative(folder)}: {error.strerror or error}") from None

        def read(path: Path, limit: int = MAX_RECORD_BYTES) -> bytes | None:
            try:
                fd = os.open(path.name, os.O_RDONLY | _NONBLOCK | _NOFOLLOW | _CLOEXEC, dir_fd=folder_fd)
            except FileNotFoundError:
                return None
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.EMLINK):
                    raise self._refuse(path, _lstat_mode(path.name, folder_fd)) from None
                raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None
            return self._read_fd(fd, path, limit)

        try:
            yield read
        finally:
            os.close(folder_fd)

    def _read_fd(self, fd: int, path: Path, limit: int) -> bytes:
        """Read an opened file (closing it): a regular file of at most `limit` bytes."""
        try:
            self._regular(fd, path)
            data = read_at_most(fd, limit + 1)
        except OSError as error:
            raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None
        finally:
            os.close(fd)
        if len(data) > limit:
            raise FileTooLarge(
                f"{self.relative(path)} is larger than {limit:,} bytes, more than the registry writes",
                hint="restore it from version control, or delete it",
            )
        return data

    def open_changes(self, flags: int) -> int:
        """A descriptor of the change counter (.cache/changes, see changes.py), a regular file
        opened as every file here is; OSError when it cannot be."""
        try:
            fd = self._open(self.changes_path, flags, 0o644)
        except UnsafeFile as error:
            raise OSError(error.message) from None
        try:
            self._regular(fd, self.changes_path)
        except UnsafeFile as error:
            os.close(fd)
            raise OSError(error.message) from None
        return fd

    def _regular(self, fd: int, path: Path) -> None:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise self._refuse(path, mode)
        if _NONBLOCK:
            os.set_blocking(fd, True)

    def set_aside(self, name: str, stamp: str) -> str:
        """Move a tool's file and its past versions into a new folder under .deleted/ (the
        same file system: renames, not copies); return that folder, relative to the root."""
        backup = self.root / layout.DELETED / f"{check_name(name)}.{stamp}"
        self.check_folders(backup)
        moves = [(self.tool_path(name), backup / f"{name}.json"), (self.version_dir(name), backup / layout.VERSIONS)]
        for source, target in moves:
            self.check_folders(source.parent, create=False)
            try:
                os.replace(source, target)  # a link is moved as itself, never followed
            except FileNotFoundError:
                continue
            except OSError as error:
                raise StoreError(f"cannot move {self.relative(source)} aside: {error.strerror or error}") from None
        if self.durable:
            for folder in (backup, self.tools_dir, self.versions_dir):
                if folder.is_dir():
                    _fsync_dir(folder)
        return self.relative(backup)

    def remove_tree(self, path: Path) -> None:
        """Remove a folder the registry made; never through a link (UnsafeFile)."""
        self.check_folders(path, create=False)
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
            self.check_folders(path.parent)
            fd = self._open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NONBLOCK)
            try:
                self._regular(fd, path)
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
        """The complete lines from `offset` on (at most LOG_CHUNK_BYTES of them), and the offset
        after the last complete one. A partial last line (a write in progress) is left for the
        next read."""
        try:
            fd = self._open(path, os.O_RDONLY | _NONBLOCK)
        except FileNotFoundError:
            return [], 0
        except OSError as error:
            raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None
        try:
            self._regular(fd, path)
            os.lseek(fd, offset, os.SEEK_SET)
            data = read_at_most(fd, LOG_CHUNK_BYTES)  # the rest is taken by the next read
        except OSError as error:
            raise StoreError(f"cannot read {self.relative(path)}: {error.strerror or error}") from None
        finally:
            os.close(fd)
        end = data.rfind(b"\n") + 1
        lines = data[:end].decode("utf-8", errors="replace").splitlines()
        return lines, offset + end

    # --- listings -------------------------------------------------------------------------

    def scan(
        self, folder: Path, suffixes: tuple[str, ...], refused: dict[str, UnsafeFile] | None = None
    ) -> dict[str, Sig]:
        """{file name: sig} of the regular files in `folder` with one of `suffixes`;
        the other entries with such a name (links, FIFOs, devices, folders) go to `refused`,
        unopened. Hidden files (temporaries among them) are skipped; stale temporaries are
        removed. A folder that is itself a link is not listed (UnsafeFile)."""
        found: dict[str, Sig] = {}  # (no Path per file: they were 40% of a scan of 10,000)
        self.check_folders(folder, create=False)
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return found
        except OSError as error:
            raise StoreError(f"cannot list {self.relative(folder)}: {error.strerror or error}") from None
        now = time.time()
        for entry in entries:
            if entry.name.startswith("."):
                if _OWN_TEMP.fullmatch(entry.name):
                    _remove_if_stale(entry, now)
                continue
            if not entry.name.endswith(suffixes):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                if refused is not None:
                    path = Path(entry.path)
                    refused[entry.name] = self._refuse(path, None if stat.S_ISLNK(st.st_mode) else st.st_mode)
                continue
            found[entry.name] = (st.st_ino, st.st_size, st.st_mtime_ns)
        return found

    def past_versions(self, name: str) -> list[int]:
        """The numbers of the past-version files of `name`, ascending."""
        folder = self.version_dir(name)
        try:
            self.check_folders(folder, create=False)
            names = os.listdir(folder)
        except (FileNotFoundError, NotADirectoryError, UnsafeFile):
            return []  # a folder that is a link is reported by the load (PastVersions.check_all)
        except OSError as error:
            raise StoreError(f"cannot list {self.relative(folder)}: {error.strerror or error}") from None
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
    """A temporary file left by a writer that died: no live writer keeps one for a minute.
    Only a regular file named as write_bytes names them is removed, nothing else hidden."""
    try:
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_TEMP_SECONDS:
            os.unlink(entry.path)
    except OSError:
        pass


def _lstat_mode(name: str, folder: int) -> int | None:
    """The mode of `name` in the open folder, not following it; None for a link (or unknown)."""
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        return None
    return None if stat.S_ISLNK(mode) else mode
