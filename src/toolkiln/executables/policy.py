"""`SandboxPolicy`: what one run of a program may use, checked when it is made."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from toolkiln.diagnostics import codes
from toolkiln.executables.errors import ExecutableError

SandboxKind = Literal["bubblewrap", "none"]
SANDBOX_KINDS: tuple[SandboxKind, ...] = get_args(SandboxKind)
MAX_TIMEOUT_SECONDS = 3600.0
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MIB = 1 << 20
_POSITIVE_WHOLE = (
    "cpu_seconds",
    "memory_bytes",
    "processes",
    "file_size_bytes",
    "writable_bytes",
    "open_files",
    "output_bytes",
    "stderr_excerpt_bytes",
)


@dataclass(frozen=True)
class SandboxPolicy:
    """The sandbox and the limits of one run. The defaults suit a small tool: 10 s, 512 MiB of
    address space, 64 processes, 16 MiB per written file and 16 MiB written in all, 256 open
    files per process, 1 MiB of output, no network."""

    sandbox: SandboxKind = "bubblewrap"
    network: bool = False
    timeout_seconds: float = 10.0  # wall clock; the process group is killed past it
    cpu_seconds: int = 10
    memory_bytes: int = 512 * _MIB  # RLIMIT_AS of every process
    processes: int = 64  # RLIMIT_NPROC: the fork-bomb stop
    file_size_bytes: int = 16 * _MIB  # RLIMIT_FSIZE: each file written
    writable_bytes: int = 16 * _MIB  # bubblewrap: the size of /tmp, the one writable place
    open_files: int = 256  # RLIMIT_NOFILE: what a process holds (pipes, sockets) is bounded
    output_bytes: int = 1 * _MIB  # stdout (and stderr) past this: the run is killed
    # Instead: stdout past output_bytes is read and dropped until the program ends (or its
    # timeout), and the result keeps the start with a marker (Kodelet's tools expect that).
    truncate_output: bool = False
    stderr_excerpt_bytes: int = 8192  # how much of stderr the result keeps
    env_whitelist: tuple[str, ...] = ("PATH", "HOME", "LANG")
    read_only_paths: tuple[Path, ...] = ()  # bound at the same path, read-only (bubblewrap)
    cwd: Path | None = None  # one of read_only_paths; else the private /tmp

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise ExecutableError(codes.INVALID_SANDBOX_POLICY, problem)


def _problem(policy: SandboxPolicy) -> str | None:
    if policy.sandbox not in SANDBOX_KINDS:
        return f"sandbox is {policy.sandbox!r}; use one of {', '.join(SANDBOX_KINDS)}"
    timeout = policy.timeout_seconds
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT_SECONDS:
        return f"timeout_seconds is {timeout!r}; it must be more than 0 and at most {MAX_TIMEOUT_SECONDS:g}"
    for field in _POSITIVE_WHOLE:
        value = getattr(policy, field)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            return f"{field} is {value!r}; it must be a positive whole number"
    bad_names = [name for name in policy.env_whitelist if not _ENV_NAME.fullmatch(name)]
    if bad_names:
        return f"env_whitelist holds {bad_names[0]!r}, not an environment variable name"
    relative = [str(path) for path in policy.read_only_paths if not Path(path).is_absolute()]
    if relative:
        return f"read_only_paths holds {relative[0]!r}; give absolute paths"
    if policy.cwd is not None and policy.cwd not in policy.read_only_paths:
        return f"cwd {str(policy.cwd)!r} is not one of read_only_paths: the program could not see it"
    return None
