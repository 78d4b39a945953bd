"""The seccomp filter given to bubblewrap (`--seccomp FD`): it refuses the few system calls
that write into host memory outside every file-system bound.

A run's files live in its /tmp, a tmpfs of bounded size. Three kinds of memory are not files
there and no resource limit bounds their total: System V shared memory (a segment outlives
its mapping, so RLIMIT_AS does not count it: one run kept 2.3 GB), memfds (anonymous files:
RLIMIT_FSIZE caps each, not their count) and POSIX message queues. Their calls fail with
EPERM; so does every call of another ABI (32-bit or x32), through which the same calls have
other numbers. The filter is data: classic BPF instructions, built here and read by bwrap.
"""

from __future__ import annotations

import errno
import functools
import platform
import struct

# The system calls refused, by machine: shmget, shmat, shmctl, memfd_create, mq_open, memfd_secret.
_REFUSED: dict[str, tuple[int, ...]] = {
    "x86_64": (29, 30, 31, 319, 240, 447),
    "aarch64": (194, 196, 195, 279, 180, 447),
}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_SYSCALL_BIT = 0x40000000  # x86_64: the x32 ABI's numbers, which the native checks would miss

_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_IF_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
_FAIL_WITH = 0x00050000  # SECCOMP_RET_ERRNO | errno
_NUMBER_OFFSET, _ARCH_OFFSET = 0, 4  # in struct seccomp_data


def supported() -> bool:
    """Whether this machine has a filter (x86_64 and aarch64); elsewhere runs go without one."""
    return platform.machine() in _REFUSED


@functools.cache
def filter_program() -> bytes:
    """The filter as bwrap reads it: an array of `struct sock_filter` in native byte order."""
    machine = platform.machine()
    refused = _REFUSED[machine]
    # Laid out as: arch check, load the number, [x32 check], one test per call, allow, refuse.
    # A jump's offset counts the instructions it skips.
    program = [
        (_LOAD_WORD, 0, 0, _ARCH_OFFSET),
        (_JUMP_IF_EQUAL, 1, 0, _AUDIT_ARCH[machine]),
        (_RETURN, 0, 0, _FAIL_WITH | errno.ENOSYS),  # another ABI: no call of it works
        (_LOAD_WORD, 0, 0, _NUMBER_OFFSET),
    ]
    if machine == "x86_64":
        program.append((_JUMP_IF_AT_LEAST, len(refused) + 1, 0, _X32_SYSCALL_BIT))
    for index, number in enumerate(refused):
        to_refuse = len(refused) - index  # past the remaining tests and the allow
        program.append((_JUMP_IF_EQUAL, to_refuse, 0, number))
    program += [(_RETURN, 0, 0, _ALLOW), (_RETURN, 0, 0, _FAIL_WITH | errno.EPERM)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
