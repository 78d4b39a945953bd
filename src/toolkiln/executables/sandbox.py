"""How a program is started in each sandbox: the bubblewrap command line, or a private folder.

Either way the program that runs is exactly the bytes given (the ones whose SHA-256 was
trusted): bubblewrap gets them through a memfd (`--ro-bind-data`), the unsandboxed run from a
private copy. A file changed on disk after it was checked is never what runs.

As root, the program runs as the unprivileged user 65534 (nobody): the kernel does not apply
RLIMIT_NPROC to root's processes (a fork bomb would not be stopped), and a process whose real
user is root reads every root-owned file bound into the sandbox through its owner bits.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.policy import SandboxPolicy

UNPRIVILEGED_ID = 65534  # nobody / nogroup on Debian
PROGRAM_FOLDER = "/run/toolkiln"  # where the program is inside bubblewrap
_PROGRAM_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
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
    name: str, content: bytes, command: Sequence[str], env: Mapping[str, str], policy: SandboxPolicy
) -> Iterator[Launch]:
    """The launch of `content` (a program called `name`) with `command` after it, in the
    sandbox `policy` names; what it needs (a memfd, a private folder) lives as long as the block."""
    if not _PROGRAM_NAME.fullmatch(name):  # it becomes a file name: no `/`, no `..`
        raise ExecutableError(
            codes.INVALID_SANDBOX_POLICY, f"{name!r} cannot name a program: use letters, digits, _, . and -"
        )
    run_as = UNPRIVILEGED_ID if os.geteuid() == 0 else None
    if policy.sandbox == "bubblewrap":
        bwrap = find_bwrap()
        fd = os.memfd_create(f"toolkiln-{name}")  # close-on-exec: pass_fds gives it to bwrap alone
        try:
            unwritten = memoryview(content)
            while unwritten:
                unwritten = unwritten[os.write(fd, unwritten) :]
            os.lseek(fd, 0, os.SEEK_SET)
            argv = [bwrap, *_bwrap_options(name, fd, env, policy), f"{PROGRAM_FOLDER}/{name}", *command]
            yield Launch(argv, {}, "/", (fd,), run_as)
        finally:
            os.close(fd)
        return
    folder = Path(tempfile.mkdtemp(prefix="toolkiln-run-"))
    try:
        program = folder / name
        program.write_bytes(content)
        program.chmod(0o500)
        if run_as is not None:
            for path in (folder, program):
                os.chown(path, run_as, run_as)
        private = {"HOME": str(folder), "TMPDIR": str(folder)}
        cwd = str(policy.cwd or folder)
        yield Launch([str(program), *command], {**env, **private}, cwd, (), run_as)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _bwrap_options(name: str, fd: int, env: Mapping[str, str], policy: SandboxPolicy) -> list[str]:
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
    options += ["--proc", "/proc", "--dev", "/dev"]
    options += ["--size", str(policy.file_size_bytes), "--tmpfs", "/tmp"]
    options += ["--perms", "0555", "--ro-bind-data", str(fd), f"{PROGRAM_FOLDER}/{name}"]
    for path in policy.read_only_paths:
        options += ["--ro-bind", str(path), str(path)]
    options += ["--remount-ro", "/"]  # the sandbox's own root: only /tmp (its own mount) stays writable
    options += ["--chdir", str(policy.cwd or "/tmp"), "--clearenv"]
    for key, value in {**env, "HOME": "/tmp", "TMPDIR": "/tmp"}.items():
        options += ["--setenv", key, value]
    return options
