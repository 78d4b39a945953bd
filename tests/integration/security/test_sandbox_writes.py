"""Red team (issue 24, item 6): a sandboxed run writes into host memory only inside its /tmp,
and the total it writes there is bounded, with the real bubblewrap.

Each test runs a hostile program that tries one way to write past the bound: bwrap's own
/dev tmpfs and /dev/shm, many files in /tmp, memfds, System V shared memory, the host's ptys,
descriptors without end. The program reports what it managed; the host's shared memory
(`Shmem` in /proc/meminfo: tmpfs, shm and memfd pages) is sampled while it runs. On the old
sandbox every one of these wrote gigabytes or succeeded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from toolkiln.executables import SandboxPolicy, run_program

pytestmark = pytest.mark.usefixtures("bwrap_installed")

MIB = 1 << 20
POLICY = SandboxPolicy(timeout_seconds=30, cpu_seconds=30)  # 16 MiB writable in all, the default
FILL = """
def fill(make, chunks=512):
    # Write 1 MiB chunks through `make(i)` (a new file-like each time) until one fails; the MiB written.
    written = 0
    try:
        for i in range(chunks):
            with make(i) as handle:
                handle.write(b"x" * (1 << 20))
            written += 1
    except OSError:
        pass
    return written
"""


def run_attack(body: str, policy: SandboxPolicy = POLICY) -> dict:
    program = f"#!/usr/bin/env python3\nimport json, os\n{FILL}\nout = {{}}\n{body}\nprint(json.dumps(out))\n"
    result = run_program("attack", program.encode(), ["run"], policy=policy)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def host_shared_memory_mib() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no Shmem line in /proc/meminfo")


@contextmanager
def peak_shared_memory_growth() -> Iterator[list[int]]:
    """The most the host's shared memory grew (MiB) while the block ran, in a one-item list."""
    start, peak, done = host_shared_memory_mib(), [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], host_shared_memory_mib() - start)
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()


def test_dev_shm_counts_in_the_total_of_tmp_and_dev_is_read_only():
    with peak_shared_memory_growth() as growth:
        out = run_attack(
            """
out["dev_shm"] = fill(lambda i: open(f"/dev/shm/f{i}", "wb"))
out["tmp_after"] = fill(lambda i: open(f"/tmp/g{i}", "wb"))
try:
    open("/dev/escape", "wb").close()
    out["dev"] = "written"
except OSError as error:
    out["dev"] = type(error).__name__
"""
        )
    # /dev/shm is the run's /tmp: 16 MiB between them (less what the file system keeps), not 512.
    assert out["dev_shm"] + out["tmp_after"] <= 16, out
    assert out["dev"] != "written", out
    assert growth[0] < 64, f"the host's shared memory grew by {growth[0]} MiB"


def test_many_files_in_tmp_stop_at_the_total_not_at_each_file_size():
    out = run_attack('out["tmp"] = fill(lambda i: open(f"/tmp/f{i}", "wb"))\nout["home"] = os.environ["HOME"]')
    assert out["home"] == "/tmp"
    assert 0 < out["tmp"] <= 16, out  # each file is 1 MiB, under RLIMIT_FSIZE: the total stops them
    larger = run_attack('out["tmp"] = fill(lambda i: open(f"/tmp/f{i}", "wb"))', SandboxPolicy(writable_bytes=4 * MIB))
    assert larger["tmp"] <= 4, larger


def test_memory_that_is_no_file_cannot_be_filled():
    with peak_shared_memory_growth() as growth:
        out = run_attack(
            """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
out["memfd"] = fill(lambda i: open(os.memfd_create(f"m{i}"), "wb", closefd=False))
segment = libc.shmget(0, 256 << 20, 0o1600)
out["sysv_shm"] = "refused" if segment < 0 else "created"
out["sysv_errno"] = ctypes.get_errno()
"""
        )
    assert out["memfd"] == 0, out
    assert out == {"memfd": 0, "sysv_shm": "refused", "sysv_errno": 1}
    assert growth[0] < 64, f"the host's shared memory grew by {growth[0]} MiB"


def test_no_host_pty_and_no_descriptors_without_end():
    out = run_attack(
        """
try:
    os.close(os.open("/dev/ptmx", os.O_RDWR))
    out["ptmx"] = "opened"
except OSError as error:
    out["ptmx"] = type(error).__name__
pipes = []
try:
    while len(pipes) < 5000:
        pipes.append(os.pipe())
except OSError:
    pass
out["pipes"] = len(pipes)
"""
    )
    assert out["ptmx"] != "opened", out
    assert out["pipes"] < POLICY.open_files // 2, out  # two descriptors each


def test_proc_dev_and_the_rest_of_the_root_are_not_writable():
    out = run_attack(
        """
for path in ("/proc/sys/kernel/hostname", "/proc/sysrq-trigger", "/run/escape",
             "/etc/escape", "/usr/escape", "/escape", "/dev/escape", "/dev/null/escape"):
    try:
        with open(path, "w") as handle:
            handle.write("1")
        out[path] = "written"
    except OSError as error:
        out[path] = type(error).__name__
"""
    )
    assert [path for path, what in out.items() if what == "written"] == [], out
