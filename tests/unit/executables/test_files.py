"""Reading an executable's file (issue 24, items 2-3): opened without following a link and
without blocking, checked on its descriptor before a byte is read, inside the allowed folders
by its real path, and never quoted back. Each hostile path is refused at once with its code.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
from pathlib import Path

import pytest

from toolkiln.errors import CompileError
from toolkiln.executables import ExecutableError, run_program
from toolkiln.executables import files as files_module
from toolkiln.executables.files import MAX_PROGRAM_BYTES, read_program
from toolkiln.executables.program_runs import program_of, run_program_tool
from toolkiln.executables.program_tools import parse_program
from toolkiln.executables.skill_files import read_skill

PROGRAM = b"#!/bin/sh\necho hello\n"
MARKER = "x9-hidden-hash"
SECRET = f"root:{MARKER}:19000:0:99999:7:::\nsecond line\n".encode()


def refusal(path: Path, **options) -> ExecutableError:
    """The error `read_program(path)` gives, which must come at once (a blocking open or read
    would hang here: the thread is given 5 s, far more than a refusal takes)."""
    outcome: list[BaseException | tuple[bytes, str]] = []

    def read() -> None:
        try:
            outcome.append(read_program(path, **options))
        except BaseException as error:  # noqa: BLE001 - handed to the test below
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive(), f"reading {path} blocked"
    assert isinstance(outcome[0], ExecutableError), outcome
    return outcome[0]


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "tool"
    path.write_bytes(PROGRAM)
    path.chmod(0o755)
    return path


def test_a_regular_file_is_read_once_with_its_hash(program):
    assert read_program(program) == (PROGRAM, hashlib.sha256(PROGRAM).hexdigest())


def test_a_fifo_nobody_writes_to_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    try:
        error = refusal(fifo)
    finally:
        os.close(os.open(fifo, os.O_RDWR))  # releases a reader the old code left blocked in open()
    assert error.code == "R0613" and "a FIFO" in error.message


@pytest.mark.parametrize("device", ["/dev/ptmx", "/dev/zero", "/dev/null"])
def test_a_device_is_refused_at_once_without_being_opened(device):
    error = refusal(Path(device))
    assert error.code == "R0613" and "a character device" in error.message


def test_a_symbolic_link_is_refused_even_to_a_regular_file(program, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(program)
    error = refusal(link)
    assert error.code == "R0613" and "a symbolic link" in error.message
    to_secret = tmp_path / "shadow"
    to_secret.symlink_to("/etc/shadow")
    assert refusal(to_secret).code == "R0613"


def test_a_folder_and_a_socket_are_refused(tmp_path):
    assert "a folder" in refusal(tmp_path).message
    listening = socket.socket(socket.AF_UNIX)
    try:
        listening.bind(str(tmp_path / "socket"))
        error = refusal(tmp_path / "socket")
        assert error.code == "R0613" and "a socket" in error.message
    finally:
        listening.close()


def test_a_relative_path_is_refused(program, monkeypatch):
    monkeypatch.chdir(program.parent)
    assert refusal(Path("tool")).code == "R0613"


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    huge = tmp_path / "huge"
    with huge.open("wb") as handle:
        handle.truncate(MAX_PROGRAM_BYTES + 1)  # sparse: nothing to read, only its size
    reads: list[int] = []
    monkeypatch.setattr(files_module.os, "read", lambda fd, size: reads.append(size) or b"")
    error = refusal(huge)
    assert error.code == "R0613" and "64 MiB" in error.message and reads == []


def test_outside_the_allowed_folders_is_the_same_error_as_missing(tmp_path, program):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    inside = allowed / "tool"
    inside.write_bytes(PROGRAM)
    assert read_program(inside, allowed_folders=(allowed,))[0] == PROGRAM
    outside = refusal(program, allowed_folders=(allowed,))
    missing = refusal(tmp_path / "missing", allowed_folders=(allowed,))
    secret = refusal(Path("/etc/shadow"), allowed_folders=(allowed,))
    fifo_outside = tmp_path / "fifo"
    os.mkfifo(fifo_outside)
    as_fifo = refusal(fifo_outside, allowed_folders=(allowed,))
    errors = (outside, missing, secret, as_fifo)
    assert {(error.code, error.message.replace(str(error.path), "PATH"), error.hint) for error in errors} == {
        ("R0605", "PATH is not a readable file inside the folders executables may come from", outside.hint)
    }
    assert refusal(inside, allowed_folders=()).code == "R0605"  # no folder: nothing is allowed


def test_the_allowed_folders_are_checked_on_the_real_path_not_the_text(tmp_path):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    secret = tmp_path / "secret"
    secret.write_bytes(PROGRAM)
    (allowed / "door").symlink_to(tmp_path)  # a folder link inside that leads outside
    assert refusal(allowed / "door" / "secret", allowed_folders=(allowed,)).code == "R0605"
    assert refusal(allowed / ".." / "secret", allowed_folders=(allowed,)).code == "R0605"
    linked_allowed = tmp_path / "linked"
    linked_allowed.symlink_to(allowed)  # an allowed folder named through a link is the folder
    (allowed / "tool").write_bytes(PROGRAM)
    assert read_program(allowed / "tool", allowed_folders=(linked_allowed,))[0] == PROGRAM


def test_a_file_swapped_after_the_check_is_not_what_is_read(tmp_path, program, monkeypatch):
    """The path is replaced by a FIFO between the check (fstat) and the read: what is read is
    the file that was checked, from its descriptor, and nothing blocks."""
    original_fstat = os.fstat

    def fstat_then_swap(fd):
        info = original_fstat(fd)
        swapped = tmp_path / "swap"
        os.mkfifo(swapped)
        os.replace(swapped, program)
        return info

    monkeypatch.setattr(files_module.os, "fstat", fstat_then_swap)
    content, sha256 = read_program(program)
    assert (content, sha256) == (PROGRAM, hashlib.sha256(PROGRAM).hexdigest())
    assert program.is_fifo()


def test_a_file_that_is_no_program_is_refused_and_never_quoted(tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    definition = {"kind": "executable", "name": "leak", "description": "Leaks.", "path": str(secret)}
    spec, _ = parse_program(definition, pin=True)
    assert spec is not None
    for run in (lambda: run_program_tool(spec, {}, created_by="user"), lambda: run_program("leak", SECRET, ["run"])):
        with pytest.raises(ExecutableError) as refused:
            run()
        assert refused.value.code == "R0614" and MARKER not in f"{refused.value}{refused.value.hint}"


def test_a_pinned_executable_is_read_inside_the_allowed_folders_at_run_time(tmp_path, program):
    definition = {"kind": "executable", "name": "tool", "description": "One.", "path": str(program)}
    spec, _ = parse_program(definition, pin=True, allowed_folders=(program.parent,))
    assert spec is not None and program_of(spec, (program.parent,)) == (PROGRAM, ["run"])
    with pytest.raises(ExecutableError) as moved_out:
        program_of(spec, (tmp_path / "elsewhere",))
    assert moved_out.value.code == "R0609"
    _, outside = parse_program(definition, pin=True, allowed_folders=(tmp_path / "elsewhere",))
    assert [problem.code for problem in outside] == ["R0605"]


def test_a_skill_file_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "greet.skill"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_skill(fifo)
        except CompileError as error:
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=5)
    os.close(os.open(fifo, os.O_RDWR))  # releases a reader the old code left blocked in open()
    assert outcome and "a FIFO" in str(outcome[0].diagnostics[0].message)
