"""The sandbox against real attacks, with the real bubblewrap (installed on first use by
scripts/sandbox-install.sh; these tests fail, never skip, when it cannot be).

Each attack is a real program: it reads the parent's secrets, writes outside its /tmp, reads
folders it was not given, connects to a server this test starts on 127.0.0.1, forks without
end, sleeps past its timeout leaving children, or floods its output. The kill and cap tests
also run without namespaces (`sandbox="none"`), which promises those limits too.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.executables import (
    ExecutableError,
    SandboxPolicy,
    ToolFolders,
    TrustStore,
    call,
    discover,
    load_tools,
    run_program,
)
from toolkiln.executables.sandbox import RUN_ID_BASE, RUN_ID_COUNT

BOTH = ["bubblewrap", "none"]
ROOT = os.geteuid() == 0


pytestmark = pytest.mark.usefixtures("bwrap_installed")


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder under /tmp that any user may enter and read (as root, programs run as an unprivileged user)."""
    with tempfile.TemporaryDirectory(prefix="toolkiln-sandbox-test-") as name:
        os.chmod(name, 0o755)
        yield Path(name)


def run(text: str, policy: SandboxPolicy, *, name: str = "tool", stdin: bytes = b""):
    return run_program(name, text.encode(), ["run"], stdin=stdin, policy=policy)


def unique_marker() -> str:
    """A number no other process has in its command line, usable as `sleep`'s argument."""
    return f"{random.randrange(10**6, 10**7)}.{random.randrange(10**8, 10**9)}"


def processes_mentioning(marker: str, *, within: float = 3.0) -> list[int]:
    """The live processes whose command line holds `marker`, once they have had `within`
    seconds to go (a killed process's teardown is not instant)."""
    deadline = time.monotonic() + within
    while True:
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if entry.isdigit() and int(entry) != os.getpid() and marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:  # not a process, or it ended while we looked
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def our_children() -> list[str]:
    """The processes, zombies included, whose parent is this test process."""
    children = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()  # after the command, which may hold spaces
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            children.append(f"{entry} ({fields[0]})")
    return children


def attempts(script: str) -> str:
    """A Python program that runs each `name: expression` of `script` and prints, as JSON,
    what each gave or the exception it raised."""
    checks = [line.split(": ", 1) for line in script.strip().splitlines()]
    body = "\n".join(
        f"try:\n    out[{name.strip()!r}] = repr({code})\nexcept Exception as e:\n    out[{name.strip()!r}] = 'FAILED ' + type(e).__name__"
        for name, code in checks
    )
    return f"#!/usr/bin/env python3\nimport json, os, socket, sys\nout = {{}}\n{body}\nprint(json.dumps(out))\n"


SANDBOX = SandboxPolicy(timeout_seconds=20)


def test_concurrent_runs_each_have_the_whole_process_limit():
    """RLIMIT_NPROC is counted per user: runs sharing one user id shared one budget, and 16
    concurrent calls left bwrap unable to fork. Each run (as root) has an id of its own."""
    from concurrent.futures import ThreadPoolExecutor

    program = "#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8; do sleep 0.3 & done\nwait\nid -u\n"
    policy = SandboxPolicy(timeout_seconds=30, processes=16)
    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(lambda _: run(program, policy), range(12)))
    assert [r.error for r in results] == [None] * 12, [r.stderr for r in results if r.error]
    if ROOT:
        assert len({r.stdout for r in results}) == 12


def test_the_program_runs_unprivileged_without_capabilities_or_user_namespaces():
    result = run("#!/bin/sh\nid -u\ngrep CapEff /proc/self/status\nunshare -U true && echo NESTED\n", SANDBOX)
    lines = result.stdout.splitlines()
    assert result.sandbox == "bubblewrap"
    if ROOT:
        assert RUN_ID_BASE <= int(lines[0]) < RUN_ID_BASE + RUN_ID_COUNT  # a user id of the run's own
    else:
        assert lines[0] == str(os.getuid())
    assert lines[1].split() == ["CapEff:", "0000000000000000"]
    assert "NESTED" not in result.stdout


@pytest.mark.parametrize("sandbox", BOTH)
def test_the_parents_secret_is_not_in_the_environment(sandbox, monkeypatch):
    secret = f"s3cret-{unique_marker()}"
    monkeypatch.setenv("TOOLKILN_TEST_SECRET", secret)
    result = run("#!/bin/sh\nenv\n", SandboxPolicy(sandbox=sandbox))
    names = {line.split("=", 1)[0] for line in result.stdout.splitlines()}
    assert secret not in result.stdout
    assert {"PATH", "HOME", "TMPDIR"} <= names <= {"PATH", "HOME", "LANG", "TMPDIR", "PWD"}


def test_the_parents_environment_cannot_be_read_through_proc(monkeypatch):
    secret = f"s3cret-{unique_marker()}"
    monkeypatch.setenv("TOOLKILN_TEST_SECRET", secret)
    script = "#!/bin/sh\nfor f in /proc/*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null\nls /proc\n"
    result = run(script, SANDBOX)
    assert secret not in result.stdout
    pids = [entry for entry in result.stdout.split() if entry.isdigit()]
    assert len(pids) <= 4, f"the sandbox sees only its own few processes, not the host's: {pids}"


def test_nothing_outside_its_private_tmp_can_be_written(open_folder):
    given = open_folder / "given"
    given.mkdir()
    host_tmp_name = f"toolkiln-escape-{unique_marker()}"
    script = attempts(
        f"""
        usr: open('/usr/escape', 'w')
        etc: open('/etc/escape', 'w')
        root_folder: open('/escape', 'w')
        program: open('/run/toolkiln/tool', 'a')
        var_tmp: open('/var/tmp/escape', 'w')
        home: open('/home/escape', 'w')
        host_folder: open('{open_folder}/escape', 'w')
        given_read_only: open('{given}/escape', 'w')
        private_tmp: open('/tmp/{host_tmp_name}', 'w').write('x')
        """
    )
    result = run(script, SandboxPolicy(read_only_paths=(given,)))
    out = result.output
    assert out.pop("private_tmp") == "1"
    # Under /tmp, the path of a host folder names a folder of the private /tmp (bwrap made it to
    # hold `given`): the write lands there, and the host folder stays as it was (below).
    out.pop("host_folder")
    assert [key for key, value in out.items() if not value.startswith("FAILED")] == [], out
    assert not Path("/tmp", host_tmp_name).exists(), "the sandbox's /tmp is its own"
    assert os.listdir(open_folder) == ["given"] and os.listdir(given) == []


def test_folders_it_was_not_given_cannot_be_read(open_folder):
    (open_folder / "registry.json").write_text("secret registry")
    (open_folder / "registry.json").chmod(0o644)  # readable by anyone on the host
    given = open_folder / "given"
    given.mkdir()
    (given / "data.txt").write_text("given data")
    (given / "data.txt").chmod(0o644)
    script = attempts(
        f"""
        root: os.listdir('/root')
        home: os.listdir('/home')
        shadow: open('/etc/shadow').read()
        registry: open('{open_folder}/registry.json').read()
        given: open('{given}/data.txt').read()
        """
    )
    out = run(script, SandboxPolicy(read_only_paths=(given,))).output
    assert out.pop("given") == repr("given data")
    assert [key for key, value in out.items() if not value.startswith("FAILED")] == [], out


@pytest.fixture
def server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 that records what each connection sends."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)  # so that the thread sees `stop` soon after the test
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(3)
                received.append(connection.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], received
    stop.set()
    thread.join(timeout=5)
    listener.close()


@pytest.mark.parametrize("network", [False, True])
def test_the_network_is_reached_only_when_allowed(server, network):
    port, received = server
    script = attempts(f"connect: socket.create_connection(('127.0.0.1', {port}), timeout=3).sendall(b'hello')")
    out = run(script, SandboxPolicy(network=network)).output
    if network:
        assert out["connect"] == "None"
        deadline = time.monotonic() + 5
        while not received and time.monotonic() < deadline:
            time.sleep(0.02)
        assert received == [b"hello"]
    else:
        assert out["connect"].startswith("FAILED")
        assert received == []


FORKER = """#!/usr/bin/env python3
# Forks until the kernel says no (at most 2000 times); each child sleeps, holding its slot.
import json, os, time
forked = 0
error = None
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError as e:
        error = type(e).__name__
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    forked += 1
print(json.dumps({"forked": forked, "error": error}), flush=True)
time.sleep(60)
"""


def test_a_fork_bomb_is_stopped_by_the_process_limit_and_leaves_nothing_behind():
    marker = unique_marker().replace(".", "_")
    result = run(FORKER, SandboxPolicy(processes=24, timeout_seconds=2), name=f"bomb_{marker}")
    report = json.loads(result.stdout)
    assert report["error"] == "BlockingIOError" and report["forked"] < 24
    assert result.timed_out
    assert processes_mentioning(marker) == []


@pytest.mark.parametrize("sandbox", BOTH)
def test_past_its_timeout_the_program_and_its_children_are_killed(sandbox):
    marker = unique_marker()
    script = f"#!/bin/sh\nsleep {marker} &\n(sleep {marker}; true) &\necho started\nsleep {marker}\n"
    before = {child.split()[0] for child in our_children()}  # pids: a session's n8n server is one
    result = run(script, SandboxPolicy(sandbox=sandbox, timeout_seconds=1))
    assert (result.timed_out, result.stdout) == (True, "started\n")
    assert result.duration_seconds < 5 and result.exit_code != 0
    assert result.error and "timed out" in result.error["error"]
    assert processes_mentioning(marker) == []
    assert [child for child in our_children() if child.split()[0] not in before] == [], (
        "no zombie is left: it was reaped"
    )


@pytest.mark.parametrize("sandbox", BOTH)
def test_children_left_running_when_the_program_exits_are_killed_at_once(sandbox):
    marker = unique_marker()
    result = run(f"#!/bin/sh\nsleep {marker} &\necho done\n", SandboxPolicy(sandbox=sandbox, timeout_seconds=20))
    assert (result.stdout, result.timed_out, result.exit_code) == ("done\n", False, 0)
    assert result.duration_seconds < 3
    assert processes_mentioning(marker) == []


@pytest.mark.parametrize("sandbox", BOTH)
def test_a_hundred_megabytes_of_output_is_capped_while_it_streams(sandbox):
    cap = 1 << 20
    tracemalloc.start()
    try:
        result = run("#!/bin/sh\nhead -c 100000000 /dev/zero\n", SandboxPolicy(sandbox=sandbox, output_bytes=cap))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.capped and len(result.stdout) == cap
    assert peak < 4 * cap, f"the parent held {peak} bytes for a {cap}-byte cap"
    assert result.error == {"error": "output past the cap; killed", "details": None}


def test_a_flood_on_stderr_is_capped_and_only_an_excerpt_kept():
    result = run("#!/bin/sh\nhead -c 50000000 /dev/zero >&2\n", SandboxPolicy(output_bytes=1 << 20))
    assert result.capped and len(result.stderr) == 8192


def test_the_file_size_cpu_and_memory_limits_hold():
    big_file = run("#!/bin/sh\nhead -c 4000000 /dev/zero > /tmp/big\n", SandboxPolicy(file_size_bytes=1 << 20))
    assert big_file.exit_code != 0
    spin = run("#!/bin/sh\nwhile :; do :; done\n", SandboxPolicy(cpu_seconds=1, timeout_seconds=20))
    assert not spin.timed_out and spin.exit_code != 0 and spin.duration_seconds < 10
    memory = run(attempts("allocate: len(bytearray(1 << 30))"), SandboxPolicy(memory_bytes=256 << 20))
    assert memory.output == {"allocate": "FAILED MemoryError"}


def test_without_bubblewrap_the_sandbox_refuses_and_nothing_runs(monkeypatch, open_folder):
    os.chmod(open_folder, 0o777)
    marker = open_folder / "ran"
    monkeypatch.setenv("PATH", str(open_folder))
    with pytest.raises(ExecutableError) as caught:
        run(f"#!/bin/sh\ntouch {marker}\n", SandboxPolicy())
    assert caught.value.code == "R0601" and "sandbox-install.sh" in (caught.value.hint or "")
    assert not marker.exists()
    assert run(f"#!/bin/sh\n/usr/bin/touch {marker}\n", SandboxPolicy(sandbox="none")).sandbox == "none"
    assert marker.exists()


def test_a_given_folder_is_the_working_directory_read_only(open_folder):
    repo = open_folder / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "trunk"], cwd=repo, check=True)
    commit = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"]
    subprocess.run(commit, cwd=repo, check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(repo)], check=True)
    script = "#!/bin/sh\ngit -c safe.directory='*' log -1 --format=%s\ntouch x || echo read-only\n"
    result = run(script, SandboxPolicy(read_only_paths=(repo,), cwd=repo))
    assert result.stdout.splitlines() == ["first", "read-only"]
    assert os.listdir(repo) == [".git"]


HELLO = """#!/usr/bin/env python3
import json, os, sys
if sys.argv[1] == "description":
    print(json.dumps({"name": "hello", "description": "Greets.", "input_schema": {"type": "object",
                      "properties": {"who": {"type": "string"}}, "required": ["who"]}}))
else:
    print(json.dumps({"stdin": json.load(sys.stdin), "env": os.environ["TK_ARG_WHO"], "me": sys.argv[0]}))
"""


def test_a_tool_is_described_and_called_through_the_protocol_inside_bubblewrap(tmp_path):
    """The tool's file is in a folder only root may enter: the sandbox gets its bytes, not its path."""
    tools = tmp_path / "tools"
    tools.mkdir(mode=0o700)
    (tools / "hello.py").write_text(HELLO)
    (tools / "hello.py").chmod(0o700)
    loaded = load_tools(discover(ToolFolders(tools, None), TrustStore(tmp_path)), SANDBOX)
    result = call(loaded.tools["hello"], {"who": "$(id)"}, SANDBOX)
    assert result.output == {"stdin": {"who": "$(id)"}, "env": '"$(id)"', "me": "/run/toolkiln/hello"}
    assert result.sandbox == "bubblewrap"
