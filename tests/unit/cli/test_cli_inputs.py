"""Regressions from a security sweep of the CLI's inputs (issue 18, item 5): each command that
reads a file refuses what is not a regular file without blocking (a FIFO, a device, a folder),
never reads a huge file whole, reports every OS error as E0100 (exit 1), and a closed or full
standard output ends the command with one line on stderr, never a traceback.

Anything that could block runs in a subprocess with a timeout, so a regression fails instead of
hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkiln.cli import main
from toolkiln.syntax.loader import read_regular_file

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
LATE_FEE = EXAMPLES / "late_fee.tk"
LATE_FEE_ARGS = '{"days_overdue": 10, "amount": 100}'
MAIN = "import sys; from toolkiln.cli import main; sys.exit(main())"


def cli(*argv: object, timeout: float = 30, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MAIN, *map(str, argv)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
        cwd=EXAMPLES,
    )


def assert_clean(result: subprocess.CompletedProcess[str]) -> str:
    output = (result.stdout or "") + result.stderr
    assert "Traceback" not in output
    assert "internal error" not in output
    return output


def commands(path: object, registry: Path) -> list[tuple[str, ...]]:
    """Every command that reads an input file, with `path` as that file."""
    return [
        ("run", path, "--args", "{}"),
        ("check", path),
        ("fmt", path),
        ("optimize", path),
        ("workflow", "compile", path),
        ("tools", "--registry", registry, "create", path),
        ("run", LATE_FEE, "--args", LATE_FEE_ARGS, "--tables", path),
    ]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.tk"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("index", range(7), ids=["run", "check", "fmt", "optimize", "wf-compile", "create", "tables"])
def test_a_fifo_is_refused_without_blocking(fifo, tmp_path, index):
    argv = commands(fifo, tmp_path / "reg")[index]
    result = cli(*argv, timeout=30)
    output = assert_clean(result)
    assert result.returncode == 1, output
    assert "not a regular file" in output


def test_a_fifo_named_like_json_or_wf_is_refused(tmp_path):
    for name in ("pipe.json", "pipe.wf"):
        os.mkfifo(tmp_path / name)
    for argv in (
        ("check", tmp_path / "pipe.json", tmp_path / "pipe.wf"),
        ("fmt", tmp_path / "pipe.json", tmp_path / "pipe.wf"),
        ("workflow", "fmt", tmp_path / "pipe.wf"),
        ("workflow", "import", tmp_path / "pipe.json"),
        ("tools", "--registry", tmp_path / "reg", "create", tmp_path / "pipe.json"),
    ):
        result = cli(*argv)
        output = assert_clean(result)
        assert result.returncode == 1, (argv, output)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("index", range(7), ids=["run", "check", "fmt", "optimize", "wf-compile", "create", "tables"])
def test_dev_zero_is_refused_not_read_whole(tmp_path, index):
    argv = commands("/dev/zero", tmp_path / "reg")[index]
    result = cli(*argv, timeout=30)
    output = assert_clean(result)
    assert result.returncode == 1, output
    assert "not a regular file" in output


def test_a_folder_is_refused(tmp_path):
    folder = tmp_path / "dir.tk"
    folder.mkdir()
    for argv in (("run", folder), ("optimize", folder), ("workflow", "compile", tmp_path)):
        result = cli(*argv)
        output = assert_clean(result)
        assert result.returncode == 1, output
        assert "E0100" in output


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    huge = tmp_path / "huge.tk"
    with open(huge, "wb") as handle:
        handle.truncate(1 << 33)  # 8 GiB, sparse: reading it whole would run out of memory
    table = tmp_path / "huge.json"
    os.link(huge, table)
    for argv in (
        ("run", huge),
        ("check", huge),
        ("optimize", huge),
        ("workflow", "compile", huge),
        ("tools", "--registry", tmp_path / "reg", "create", huge),
        ("run", LATE_FEE, "--args", LATE_FEE_ARGS, "--tables", table),
    ):
        result = cli(*argv)
        output = assert_clean(result)
        assert result.returncode == 1, (argv, output)
        assert "E0401" in output or "larger than" in output, (argv, output)


LONG = "a" * 4097  # longer than PATH_MAX: every call on it fails with ENAMETOOLONG


@pytest.mark.parametrize(
    "argv",
    [
        ("run", LONG),
        ("check", LONG),
        ("fmt", LONG),
        ("optimize", LONG),
        ("workflow", "compile", LONG),
        ("workflow", "fmt", LONG),
        ("workflow", "import", LONG),
        ("check", LONG + ".wf"),
        ("check", LONG + ".json"),
        ("run", str(LATE_FEE), "--args", LATE_FEE_ARGS, "--tables", LONG),
    ],
    ids=lambda argv: "-".join(a for a in argv if a != LONG and not a.startswith(("/", "{")))[:30],
)
def test_a_path_too_long_is_an_unreadable_file(capsys, argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    output = captured.out + captured.err
    assert code == 1, output
    assert "internal error" not in output
    assert "E0100" in output or "E0802" in output or "cannot read" in output


def test_tools_create_with_a_path_too_long(capsys, tmp_path):
    code = main(["tools", "--registry", str(tmp_path / "reg"), "create", LONG])
    output = "".join(capsys.readouterr())
    assert code == 1
    assert "internal error" not in output


# --- standard output closed or full ---------------------------------------------------------


def test_stdout_closed_before_the_command(tmp_path):
    code = f"import os, sys; os.close(1); from toolkiln.cli import main; sys.exit(main({['run', str(LATE_FEE), '--args', LATE_FEE_ARGS]!r}))"
    result = subprocess.run([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, timeout=30)
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "toolkiln: standard output is closed; redirect it (to /dev/null to discard it)"
    ]


def test_stdout_closed_by_the_shell():
    result = subprocess.run(
        ["sh", "-c", '"$0" -c "$1" run "$2" --args "$3" >&-', sys.executable, MAIN, str(LATE_FEE), LATE_FEE_ARGS],
        stderr=subprocess.PIPE,
        text=True,
        timeout=30,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1


def test_stdout_closed_does_not_write_into_a_file_opened_later(tmp_path):
    """With descriptor 1 closed, the next file opened would get number 1 and the output with it."""
    source = tmp_path / "t.tk"
    source.write_text(LATE_FEE.read_text())
    code = f"import os, sys; os.close(1); from toolkiln.cli import main; sys.exit(main({['fmt', str(source)]!r}))"
    subprocess.run([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, timeout=30)
    assert source.read_text() == LATE_FEE.read_text()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv",
    [
        ("run", str(LATE_FEE), "--args", LATE_FEE_ARGS),
        ("check", str(LATE_FEE)),
        ("optimize", str(LATE_FEE)),
        ("explain", "E0100"),
    ],
    ids=["run", "check", "optimize", "explain"],
)
def test_stdout_on_a_full_disk(argv):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-c", MAIN, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=30
        )
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == ["toolkiln: cannot write to standard output: No space left on device"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_tools_list_on_a_full_disk(tmp_path):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-c", MAIN, "tools", "--registry", str(tmp_path / "reg"), "list"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    assert "Traceback" not in result.stderr
    assert result.returncode == 1


# --- the reader itself ----------------------------------------------------------------------


def test_read_regular_file_refuses_a_fifo_at_once(fifo):
    with pytest.raises(OSError, match="not a regular file \\(a FIFO\\)"):
        read_regular_file(fifo, 100)


def test_read_regular_file_reads_at_most_one_byte_past_the_limit(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 1000)
    assert read_regular_file(path, 10) == b"x" * 11
    assert read_regular_file(path, 5000) == b"x" * 1000


def test_a_registry_path_too_long_is_a_usage_error(capsys):
    code = main(["tools", "--registry", LONG, "list"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.strip() == "toolkiln: --registry cannot be opened: File name too long"


def test_tools_run_with_a_fifo_table(fifo, tmp_path):
    result = cli("tools", "--registry", tmp_path / "reg", "run", "nothing", "--tables", fifo)
    output = assert_clean(result)
    assert result.returncode == 1
    assert "not a regular file" in output
