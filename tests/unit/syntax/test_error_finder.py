"""A syntax error of the text DSL is explained without importing Lark once Lark's parser has
left its tables in the state home (issue 34), with the very diagnostic Lark's path gives; a
tables file that does not verify is never decoded, and Lark explains the error and writes it
again. (tests/property/test_error_finder_agrees.py compares the two paths on broken sources.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.statehome import STATE_DIR_ENV
from toolkiln.syntax import error_tables, lr_driver, signed_files
from toolkiln.syntax import text as text_front
from toolkiln.syntax.grammar import NewlinePostLexer, compute_parser
from toolkiln.syntax.grammar_source import COMPUTE_OPTIONS, grammar_text

BROKEN = 'tool broken(a: number) description "d"\n{\n  return a +\n}\n'
GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "diagnostics"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A state home of this test's own, with no key or tables read before."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    monkeypatch.setattr(error_tables, "_kept", {})
    compute_parser.cache_clear()  # (one per process: this one keeps its tables here)
    yield tmp_path / "state"
    compute_parser.cache_clear()


def _tables_path() -> Path:
    version = error_tables.lark_version()
    assert version is not None
    always_accept = NewlinePostLexer.always_accept
    return error_tables.tables_path("compute", grammar_text("compute.lark"), COMPUTE_OPTIONS, always_accept, version)


def _diagnostics(text: str, *, finder: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """parse_text's diagnostics, with the error finder on, or off (Lark's path alone)."""
    with monkeypatch.context() as patch:
        if not finder:
            patch.setattr(lr_driver, "compute_tables", lambda: None)
        _, diagnostics = text_front.parse_text(text)
    return [repr(diagnostic) for diagnostic in diagnostics]


def _run_twice(probe: str, state: Path) -> tuple[list[str], list[str]]:
    """The lines `probe` prints in a fresh process, then in a second one, both with the state
    home `state` (the first leaves the tables there)."""
    env = {**os.environ, STATE_DIR_ENV: str(state)}
    first, second = (
        subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
        for _ in range(2)
    )
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    return first.stdout.splitlines(), second.stdout.splitlines()


def test_a_syntax_error_is_explained_without_importing_lark_once_its_tables_are_kept(state):
    broken = state.parent / "broken.tk"
    broken.write_text(BROKEN)
    probe = (
        "import sys\n"
        "from toolkiln.syntax.text import parse_text\n"
        f"_, found = parse_text(open({str(broken)!r}).read())\n"
        "print(found[0].code, found[0].message, found[0].hint)\n"
        "print('lark' in sys.modules)\n"
    )
    (message, lark_loaded), second = _run_twice(probe, state)
    assert message.startswith("E0101 unexpected end of line expected `(`") and lark_loaded == "True"
    assert second == [message, "False"]  # the same words, and no Lark


def test_a_json_tools_broken_expression_is_explained_without_importing_lark(state):
    tool = {
        "name": "t",
        "description": "d",
        "parameters": {"a": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": "a * 2 +"}]},
    }
    probe = (
        "import sys, toolkiln\n"
        f"found = toolkiln.check({json.dumps(tool)!r})\n"
        "print(found[0].code, found[0].span.line, found[0].span.column, found[0].message, found[0].hint)\n"
        "print('lark' in sys.modules)\n"
    )
    (message, lark_loaded), second = _run_twice(probe, state)
    assert message.startswith("E0101 1 ") and "unexpected end of input" in message and lark_loaded == "True"
    assert second == [message, "False"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("workflow w\non manual\nset s { total = 1 }}\nrespond r s\n", "E0101 3 20 unexpected `}` expected `after`"),
        # inside a declared shape: the finder tells it from what its parser holds, as Lark does
        ('workflow w\non manual\nhttp h GET "https://x.test/" returns { id: 5 }\n', "E0737 3 44 unexpected `5` in"),
    ],
)
def test_a_workflows_syntax_error_is_explained_without_importing_lark(state, text, said):
    probe = (
        "import sys\n"
        "from toolkiln.syntax.workflow_text import parse_workflow\n"
        f"_, found = parse_workflow({text!r})\n"
        "print(found[0].code, found[0].span.line, found[0].span.column, found[0].message, found[0].hint)\n"
        "print('lark' in sys.modules)\n"
    )
    (message, lark_loaded), second = _run_twice(probe, state)
    assert message.startswith(said) and lark_loaded == "True"
    assert second == [message, "False"]


def test_the_finder_decides_a_broken_source_and_says_what_lark_says(state, monkeypatch):
    compute_parser()  # Lark's parser (of this process) keeps its tables in this state home
    tables = error_tables.compute_tables()
    assert tables is not None and _tables_path().is_file()
    failure = lr_driver.first_failure(BROKEN, "start", tables)
    assert failure is not None and failure.what == "token" and failure.token is not None
    assert failure.token.kind == "_NL"
    found = _diagnostics(BROKEN, finder=True, monkeypatch=monkeypatch)
    assert found == _diagnostics(BROKEN, finder=False, monkeypatch=monkeypatch) and len(found) == 1


@pytest.mark.parametrize("source", sorted(GOLDEN.glob("*.tk")), ids=lambda path: path.name)
def test_every_golden_source_gets_the_same_diagnostics_either_way(state, monkeypatch, source):
    compute_parser()
    assert error_tables.compute_tables() is not None
    text = source.read_text()
    cut = [text[:end] for end in range(0, len(text), max(1, len(text) // 40))]  # half-typed files
    for variant in [text, *cut]:
        assert _diagnostics(variant, finder=True, monkeypatch=monkeypatch) == _diagnostics(
            variant, finder=False, monkeypatch=monkeypatch
        ), variant


@pytest.mark.parametrize(
    "body",
    [
        "return a" + "[0]" * 250 + " +",  # deeper than the guard allows before the error: Lark's E0402
        "return " + "(" * 150 + "a" + ")" * 150 + " +",
        "return " + " + ".join(["a"] * 300) + " +",  # a long chain: the bound passes the limit
    ],
    ids=["index chain", "parentheses", "long sum"],
)
def test_a_parse_that_may_nest_too_deep_is_left_to_lark(state, monkeypatch, body):
    compute_parser()
    text = 'tool t(a: list) description "d"\n{\n  ' + body + "\n}\n"
    assert _diagnostics(text, finder=True, monkeypatch=monkeypatch) == _diagnostics(
        text, finder=False, monkeypatch=monkeypatch
    )


def test_a_deep_index_chain_is_not_decided_by_the_finder(state):
    compute_parser()
    tables = error_tables.compute_tables()
    assert tables is not None
    with pytest.raises(lr_driver.MaybeTooDeep):
        lr_driver.first_failure(
            'tool t(a: list) description "d"\n{\n  return a' + "[0]" * 250 + " +\n}\n", "start", tables
        )


@pytest.mark.parametrize("tamper", ["edit", "other key"])
def test_a_tampered_tables_file_is_never_decoded_and_is_written_again(state, monkeypatch, tamper):
    """The tables are read with `marshal`, unsafe on hostile bytes: a file that does not
    verify under this user's key is not decoded; Lark explains the error and keeps them anew."""
    compute_parser()
    path = _tables_path()
    signature, _, body = path.read_bytes().partition(b"\n")
    if tamper == "edit":
        forged = signature + b"\n" + body.replace(b"RBRACE", b"RBRACF", 1)
    else:
        forged = signed_files.mac(b"k" * 32, "compute-tables", body) + b"\n" + body
    assert forged != path.read_bytes()
    path.write_bytes(forged)
    decoded: list[bytes] = []
    real = error_tables._decoded
    monkeypatch.setattr(error_tables, "_decoded", lambda data: decoded.append(data) or real(data))
    assert error_tables.compute_tables() is None and decoded == []
    compute_parser.cache_clear()
    compute_parser()  # Lark's path, as a command takes it then: the tables are kept again
    assert path.read_bytes() != forged and error_tables.compute_tables() is not None
    assert decoded == [path.read_bytes().partition(b"\n")[2]]


def test_without_a_key_lark_explains_the_error(tmp_path, monkeypatch):
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    monkeypatch.setenv(STATE_DIR_ENV, str(blocker / "state"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    monkeypatch.setattr(error_tables, "_kept", {})
    assert error_tables.compute_tables() is None
    _, found = text_front.parse_text(BROKEN)
    assert [diagnostic.code for diagnostic in found] == ["E0101"]


def test_a_fifo_in_the_tables_place_is_passed_over_without_blocking(state):
    """A read that waited for a writer would hang the command: the tables' file is opened
    without blocking and read only if it is a regular file; Lark explains the error."""
    path = _tables_path()
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    probe = (
        "from toolkiln.syntax.text import parse_text\n"
        f"_, found = parse_text({BROKEN!r})\n"
        "assert [d.code for d in found] == ['E0101'], found\n"
    )
    env = {**os.environ, STATE_DIR_ENV: str(state)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_tables_file_over_the_size_bound_is_not_decoded(state, monkeypatch):
    compute_parser()
    size = _tables_path().stat().st_size
    decoded: list[bytes] = []
    real = error_tables._decoded
    monkeypatch.setattr(error_tables, "_decoded", lambda data: decoded.append(data) or real(data))
    monkeypatch.setattr(signed_files, "MAX_CACHE_BYTES", size - 1)  # (16 MB: here the file is just over it)
    assert error_tables.compute_tables() is None and decoded == []
    monkeypatch.setattr(signed_files, "MAX_CACHE_BYTES", size)
    assert error_tables.compute_tables() is not None and len(decoded) == 1  # the same file, within it
