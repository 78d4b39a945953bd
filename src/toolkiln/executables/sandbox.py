"""How a program is started in each sandbox: the bubblewrap command line, or a private folder.

Either way the program that runs is exactly the bytes given (the ones whose SHA-256 was
trusted): bubblewrap gets them through a memfd (`--ro-bind-data`), the unsandboxed run from a
private copy. A file changed on disk after it was checked is never what runs.

As root, the program runs as an unprivileged user id of its own: the kernel does not apply
RLIMIT_NPROC to root's processes (a fork bomb would not be stopped), and a process whose real
user is root reads every root-owned file bound into the sandbox through its owner bits. The id
is taken for the run from a range no account uses, so that RLIMIT_NPROC, which the kernel
counts per user, bounds each run and not every concurrent run together (with one shared id,
16 concurrent calls of a server exhausted 64 processes and bwrap could not fork).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.executables import seccomp
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.files import refuse_non_program
from toolkiln.executables.policy import SandboxPolicy

# The user (and group) ids of runs as root: a range of systemd's container ids that no account
# uses. A process takes them in turn from an offset of its own, so that two processes rarely
# hand out the same id at once (if they do, those two runs share one process budget).
RUN_ID_BASE = 1_800_000_000
RUN_ID_COUNT = 4096
PROGRAM_FOLDER = "/run/toolkiln"  # where the program is inside bubblewrap
_PROGRAM_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_BESIDE_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,200}")
# Top-level folders that are links into /usr on merged-/usr systems, or folders of their own.
_SYSTEM_FOLDERS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
# What of /etc a program may need: the loader, users' names, time zone, names and certificates
# (for `network=True`). Never shadow, sudoers or ssh keys.
_ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "resolv.conf",
    "ssl",
    "ca-certificates",
)
# A /dev of our own in place of bwrap's `--dev`, whose tmpfs (with /dev/shm) is writable without
# bound and whose /dev/pts hands out the host's ptys: the harmless devices bound from the host,
# the usual links, and /dev/shm a link to /tmp, so that shared memory counts in /tmp's size.
# It is part of the root, which is made read-only.
_DEVICES = ("null", "zero", "full", "random", "urandom")
_DEV_LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1"}
_DEV_LINKS |= {"stderr": "/proc/self/fd/2", "shm": "/tmp"}
_DEV_OPTIONS = [option for device in _DEVICES for option in ("--dev-bind", f"/dev/{device}", f"/dev/{device}")]
_DEV_OPTIONS += [option for link, target in _DEV_LINKS.items() for option in ("--symlink", target, f"/dev/{link}")]
_INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap; in a checkout: bash scripts/sandbox-install.sh)"


@dataclass(frozen=True)
class Launch:
    """What `subprocess.Popen` is given to start one run."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    pass_fds: tuple[int, ...]
    run_as: int | None  # uid and gid to switch to, or None to stay who we are


def find_bwrap() -> str:
    """The path of `bwrap`, or R0601 when it is not installed."""
    found = shutil.which("bwrap")
    if found is None:
        raise ExecutableError(codes.SANDBOX_UNAVAILABLE, "bubblewrap (`bwrap`) is not installed", _INSTALL_HINT)
    return found


@contextmanager
def prepared(
    name: str,
    content: bytes,
    command: Sequence[str],
    env: Mapping[str, str],
    policy: SandboxPolicy,
    beside: Mapping[str, bytes] | None = None,
    pass_fds: tuple[int, ...] = (),
) -> Iterator[Launch]:
    """The launch of `content` (a program called `name`) with `command` after it, in the
    sandbox `policy` names; what it needs (a memfd, a private folder) lives as long as the block.
    `beside`: files put read-only beside the program (a relative path each: toolkiln's own,
    never a caller's); `pass_fds`: descriptors the program inherits (its channel's pipes).
    R0614 for content that is not a program (bwrap would give it to /bin/sh)."""
    if not _PROGRAM_NAME.fullmatch(name):  # it becomes a file name: no `/`, no `..`
        raise ExecutableError(
            codes.INVALID_SANDBOX_POLICY, f"{name!r} cannot name a program: use letters, digits, _, . and -"
        )
    refuse_non_program(content, name)
    as_root = os.geteuid() == 0
    with (
        _RUN_IDS.taken() if as_root else nullcontext() as run_as,
        _launch(name, content, command, env, policy, run_as, dict(beside or {})) as launch,
    ):
        yield replace(launch, pass_fds=launch.pass_fds + pass_fds)


class _RunIds:
    """The ids of this process's runs as root: each run holds one no other run of it holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: set[int] = set()
        self._next = (os.getpid() * 7919) % RUN_ID_COUNT

    @contextmanager
    def taken(self) -> Iterator[int]:
        with self._lock:
            for _ in range(RUN_ID_COUNT):
                candidate = RUN_ID_BASE + self._next
                self._next = (self._next + 1) % RUN_ID_COUNT
                if candidate not in self._held:
                    break
            self._held.add(candidate)  # past RUN_ID_COUNT runs at once, ids are shared
        try:
            yield candidate
        finally:
            with self._lock:
                self._held.discard(candidate)


_RUN_IDS = _RunIds()


@contextmanager
def _launch(
    name: str,
    content: bytes,
    command: Sequence[str],
    env: Mapping[str, str],
    policy: SandboxPolicy,
    run_as: int | None,
    beside: dict[str, bytes],
) -> Iterator[Launch]:
    for relative in beside:  # toolkiln's own names; a slip must not write outside the folder
        assert _BESIDE_PATH.fullmatch(relative) and ".." not in relative, relative
    if policy.sandbox == "bubblewrap":
        bwrap = find_bwrap()
        filter_data = seccomp.filter_program() if seccomp.supported() else b""
        # close-on-exec memfds: pass_fds gives them to bwrap alone
        with (
            _memfd(f"toolkiln-{name}", content) as program_fd,
            _memfd("toolkiln-seccomp", filter_data) as filter_fd,
            ExitStack() as files,
        ):
            modules = {files.enter_context(_memfd("toolkiln-module", data)): path for path, data in beside.items()}
            options = _bwrap_options(name, program_fd, env, policy, modules)
            fds = (program_fd, filter_fd, *modules)
            if filter_data:
                options += ["--seccomp", str(filter_fd)]
            argv = [bwrap, *options, f"{PROGRAM_FOLDER}/{name}", *command]
            yield Launch(argv, {}, "/", fds, run_as)
        return
    folder = Path(tempfile.mkdtemp(prefix="toolkiln-run-"))
    try:
        program = folder / name
        program.write_bytes(content)
        program.chmod(0o500)
        for relative, data in beside.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_bytes(data)
        if run_as is not None:
            for path in (folder, program):
                os.chown(path, run_as, run_as)
        private = {"HOME": str(folder), "TMPDIR": str(folder)}
        cwd = str(policy.cwd or folder)
        yield Launch([str(program), *command], {**env, **private}, cwd, (), run_as)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _memfd(name: str, content: bytes) -> Iterator[int]:
    """A memfd holding `content`, read from its start."""
    fd = os.memfd_create(name)
    try:
        unwritten = memoryview(content)
        while unwritten:
            unwritten = unwritten[os.write(fd, unwritten) :]
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)


def _bwrap_options(
    name: str, fd: int, env: Mapping[str, str], policy: SandboxPolicy, modules: Mapping[int, str]
) -> list[str]:
    # --unshare-user again so that --disable-userns may follow: no user namespace inside
    # (each one opens more of the kernel to the program).
    options = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"]
    options += ["--cap-drop", "ALL"]
    if policy.network:
        options.append("--share-net")
    options += ["--ro-bind", "/usr", "/usr"]
    for folder in _SYSTEM_FOLDERS:
        host = Path("/") / folder
        if host.is_symlink():
            options += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            options += ["--ro-bind", str(host), str(host)]
    for entry in _ETC_ENTRIES:
        options += ["--ro-bind-try", f"/etc/{entry}", f"/etc/{entry}"]
    options += ["--proc", "/proc", *_DEV_OPTIONS]
    options += ["--size", str(policy.writable_bytes), "--tmpfs", "/tmp"]
    options += ["--perms", "0555", "--ro-bind-data", str(fd), f"{PROGRAM_FOLDER}/{name}"]
    for module_fd, module in modules.items():
        options += ["--perms", "0444", "--ro-bind-data", str(module_fd), f"{PROGRAM_FOLDER}/{module}"]
    for path in policy.read_only_paths:
        options += ["--ro-bind", str(path), str(path)]
    options += ["--remount-ro", "/"]  # the sandbox's own root, /dev with it: only /tmp stays writable
    options += ["--chdir", str(policy.cwd or "/tmp"), "--clearenv"]
    for key, value in {**env, "HOME": "/tmp", "TMPDIR": "/tmp"}.items():
        options += ["--setenv", key, value]
    return options
