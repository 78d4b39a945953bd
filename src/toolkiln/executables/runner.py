"""`run_program`: start a program in its sandbox, feed it stdin, read its output while it
streams (up to a cap), and kill its whole process group at the timeout or the cap.

Nothing is held whole: stdout is kept up to `output_bytes` and the run is killed past it
(under `truncate_output`, the rest is read and dropped until the program ends);
stderr is kept up to `stderr_excerpt_bytes` and counted (killed past `output_bytes` too).
The group is killed while its leader is still an unreaped zombie, so its id cannot have been
reused; then the leader is reaped. With bubblewrap, the program lives in its own pid
namespace under `--die-with-parent`: killing bwrap kills everything inside.
"""

from __future__ import annotations

import os
import resource
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, cast

from toolkiln.executables.channel import Channel, Serve
from toolkiln.executables.policy import SandboxPolicy
from toolkiln.executables.result import RunResult
from toolkiln.executables.sandbox import prepared

_CHUNK = 65536
_IDLE_CHECK_SECONDS = 0.25  # how often a quiet run is checked for an exited leader


def run_program(
    name: str,
    content: bytes,
    command: Sequence[str],
    *,
    stdin: bytes = b"",
    extra_env: Mapping[str, str] | None = None,
    policy: SandboxPolicy | None = None,
    beside: Mapping[str, bytes] | None = None,
    serve: Serve | None = None,
) -> RunResult:
    """Run `content` (a program file's bytes, called `name`) with `command` as its arguments,
    with `beside` (relative path: bytes) read-only beside it; `serve` answers the requests of
    the run's channel (channel.py; none without it).

    The environment holds only `policy.env_whitelist` (taken from ours), `extra_env`, and
    HOME and TMPDIR pointing at the run's private folder. R0601 when bubblewrap is asked for
    and missing; every other failure (a timeout, the cap, a crash) is in the result."""
    policy = policy or SandboxPolicy()
    env = {key: os.environ[key] for key in policy.env_whitelist if key in os.environ}
    env.update(extra_env or {})
    started = time.monotonic()
    streams = _Streams(policy)
    channel = None if serve is None else Channel(serve)
    if channel is not None:
        env.update(channel.env)
    pass_fds = () if channel is None else channel.program_fds
    with prepared(name, content, command, env, policy, beside, pass_fds) as launch, _closed_after(channel):
        try:
            process = subprocess.Popen(
                launch.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=launch.env,
                cwd=launch.cwd,
                pass_fds=launch.pass_fds,
                start_new_session=True,  # its own process group, killed as one
                user=launch.run_as,
                group=launch.run_as,
                extra_groups=[] if launch.run_as is not None else None,
                preexec_fn=_resource_limits(policy),  # only setrlimit calls: safe between fork and exec
            )
        except (OSError, subprocess.SubprocessError) as error:  # no interpreter, a cwd it may not enter
            streams.stderr += f"cannot start {name}: {getattr(error, 'strerror', None) or error}".encode()
            return streams.result(127, started)
        if channel is not None:
            channel.started()
        with process:  # leaving the block closes the pipes and reaps the program
            try:
                streams.pump(process, stdin, deadline=started + policy.timeout_seconds, channel=channel)
            finally:
                _kill_group(process)  # no orphans, whatever happened
    return streams.result(process.returncode, started)


def _resource_limits(policy: SandboxPolicy) -> Callable[[], None]:
    wanted = (
        (resource.RLIMIT_CPU, policy.cpu_seconds, policy.cpu_seconds + 1),  # SIGXCPU, then SIGKILL
        (resource.RLIMIT_AS, policy.memory_bytes, policy.memory_bytes),
        (resource.RLIMIT_NPROC, policy.processes, policy.processes),
        (resource.RLIMIT_FSIZE, policy.file_size_bytes, policy.file_size_bytes),
        (resource.RLIMIT_NOFILE, policy.open_files, policy.open_files),
        (resource.RLIMIT_CORE, 0, 0),  # a crash leaves no core file behind
    )
    limits = [(which, _at_most(soft, which), _at_most(hard, which)) for which, soft, hard in wanted]

    def apply() -> None:  # runs in the child, between fork and exec
        for which, soft, hard in limits:
            resource.setrlimit(which, (soft, hard))

    return apply


def _at_most(value: int, which: int) -> int:
    """`value`, or the hard limit we run under if that is lower: raising it would fail."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


@dataclass
class _Streams:
    """The output of one run as it is read, and why reading stopped."""

    policy: SandboxPolicy
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    stderr_total: int = 0
    timed_out: bool = False
    capped: bool = False
    dropped: int = 0  # stdout bytes read past the cap under truncate_output

    def result(self, exit_code: int, started: float) -> RunResult:
        marker = f"\n\n[TRUNCATED - output exceeded {self.policy.output_bytes:,} bytes]" if self.dropped else ""
        return RunResult(
            stdout=self.stdout.decode("utf-8", errors="replace") + marker,
            stderr=self.stderr.decode("utf-8", errors="replace"),
            exit_code=exit_code,
            timed_out=self.timed_out,
            capped=self.capped,
            duration_seconds=time.monotonic() - started,
            sandbox=self.policy.sandbox,
            truncated=self.dropped > 0,
        )

    def pump(
        self, process: subprocess.Popen[bytes], data: bytes, *, deadline: float, channel: Channel | None = None
    ) -> None:
        """Write `data` to stdin and read stdout and stderr until both end, the deadline
        passes or the cap is reached (then the caller kills the group); serve the channel's
        requests meanwhile."""
        assert process.stdin and process.stdout and process.stderr  # all three are pipes
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        selector.register(process.stderr, selectors.EVENT_READ)
        if channel is not None:
            selector.register(channel.requests, selectors.EVENT_READ, channel)
        pending = memoryview(data)
        if pending:
            os.set_blocking(process.stdin.fileno(), False)
            selector.register(process.stdin, selectors.EVENT_WRITE)
        else:
            process.stdin.close()
        with selector:
            while len(selector.get_map()) and not self.capped:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.timed_out = True
                    return
                events = selector.select(min(remaining, _IDLE_CHECK_SECONDS))
                if not events and _leader_exited(process):
                    _kill_group(process)  # what it left running holds the pipes open
                for key, _ in events:
                    if key.data is not None:
                        _on_channel(selector, key.data, key.fd)
                        continue
                    stream = cast(IO[bytes], key.fileobj)  # the three pipes, beside the channel's
                    if stream is process.stdin:
                        pending = _write_some(stream, pending)
                        if not pending:
                            selector.unregister(stream)
                            stream.close()
                    elif not self._read(stream, process):
                        selector.unregister(stream)

    def _read(self, stream: IO[bytes], process: subprocess.Popen[bytes]) -> bool:
        """Read one chunk; False at the end of the stream."""
        chunk = os.read(stream.fileno(), _CHUNK)
        if not chunk:
            return False
        cap = self.policy.output_bytes
        if stream is process.stdout:
            room = max(0, cap - len(self.stdout))
            self.stdout += chunk[:room]
            if self.policy.truncate_output:  # kept to the cap; the rest is read and dropped
                self.dropped += len(chunk) - min(room, len(chunk))
            else:
                self.capped |= len(chunk) > room
        else:
            self.stderr += chunk[: max(0, self.policy.stderr_excerpt_bytes - len(self.stderr))]
            self.stderr_total += len(chunk)
            self.capped |= self.stderr_total > cap
        return True


def _on_channel(selector: selectors.BaseSelector, channel: Channel, fd: int) -> None:
    """Serve what the channel can now, then watch only what it waits for: no request is read
    while an answer is unsent; a channel past its bounds is closed."""
    if fd == channel.requests:
        channel.read()
    else:
        channel.write()
    for end, wanted, event in (
        (channel.requests, channel.wants_read, selectors.EVENT_READ),
        (channel.answers, channel.wants_write, selectors.EVENT_WRITE),
    ):
        registered = end in selector.get_map()
        if wanted and not registered:
            selector.register(end, event, channel)
        elif registered and not wanted:
            selector.unregister(end)
    if not channel.open:
        channel.close()


@contextmanager
def _closed_after(channel: Channel | None) -> Iterator[None]:
    try:
        yield
    finally:
        if channel is not None:
            channel.close()


def _write_some(stream: IO[bytes], pending: memoryview) -> memoryview:
    try:
        written = os.write(stream.fileno(), pending[:_CHUNK])
    except BrokenPipeError:  # the program exited or closed stdin without reading it all
        return pending[:0]
    return pending[written:]


def _leader_exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether the program has exited, without reaping it (its group id stays reserved)."""
    try:
        return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # the whole group has already ended
        pass
