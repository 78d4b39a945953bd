"""Lark parsers are built once and kept signed in this user's state folder (issue 34): a file
that does not verify (edited, or signed by another user's key) is never loaded: the parser is
built again and the file rewritten."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkiln.statehome import STATE_DIR_ENV, key_path, load_key
from toolkiln.syntax import parser_cache
from toolkiln.syntax.grammar import DepthGuard, NewlinePostLexer, grammar_text

TEXT = 'tool t(a: number) description "d"\n{\n  if a > 1 {\n    return a * 2\n  }\n  return [a, "x"]\n}\n'


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state home of this test's own, and no key or parser read before."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    return tmp_path / "state"


def _options() -> dict:
    return {"parser": "lalr", "start": ["start", "expr_start"], "propagate_positions": True, "maybe_placeholders": True}


def _parser():
    """What compute_parser() builds (it keeps one per process)."""
    objects = {"postlex": NewlinePostLexer(), "transformer": DepthGuard()}
    return parser_cache.cached_parser("compute", grammar_text("compute.lark"), objects, **_options())


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records each look at a parser's file: whether a parser was read from it."""
    loads: list[bool] = []
    real = parser_cache._read

    def counted(*args):
        parser = real(*args)
        loads.append(parser is not None)
        return parser

    monkeypatch.setattr(parser_cache, "_read", counted)
    return loads


def test_a_parser_read_from_its_file_parses_as_the_built_one(state, monkeypatch):
    loads = _loads(monkeypatch)
    built = _parser()
    path = parser_cache.cache_path("compute", grammar_text("compute.lark"), _options())
    assert path.parent == state / "parsers" and path.is_file() and loads == [False]
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    read = _parser()
    assert loads == [False, True]
    assert read.parse(TEXT, start="start") == built.parse(TEXT, start="start")


@pytest.mark.parametrize("tamper", ["edit", "other data", "other key"])
def test_a_tampered_or_foreign_file_is_never_decoded_and_is_rebuilt(state, monkeypatch, tamper):
    """`marshal` is not safe on hostile bytes: a file whose signature does not verify under
    this user's key is rebuilt without its body ever reaching the decoder."""
    _parser()
    path = parser_cache.cache_path("compute", grammar_text("compute.lark"), _options())
    mac, _, body = path.read_bytes().partition(b"\n")
    if tamper == "edit":  # one terminal's name changed: the signature no longer covers it
        forged = mac + b"\n" + body.replace(b"NAME", b"NAMF", 1)
    elif tamper == "other data":  # valid marshal of something else under the old signature
        forged = mac + b"\n" + marshal.dumps({"data": {}, "memo": {0: ("other",)}})
    else:  # signed with a key that is not this user's
        forged = parser_cache._mac(b"k" * 32, "compute", body) + b"\n" + body
    assert forged != path.read_bytes()
    path.write_bytes(forged)
    loads, decoded = _loads(monkeypatch), _decodes(monkeypatch)
    parser = _parser()
    assert loads == [False] and decoded == []  # refused before decoding
    assert parser.parse(TEXT, start="start") is not None
    assert path.read_bytes() != forged  # rewritten, and read back the next time
    _parser()
    assert loads == [False, True] and decoded == [path.read_bytes().partition(b"\n")[2]]


def _decodes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Records each body handed to the decoder."""
    bodies: list[bytes] = []
    real = parser_cache._decoded

    def recorded(body: bytes):
        bodies.append(body)
        return real(body)

    monkeypatch.setattr(parser_cache, "_decoded", recorded)
    return bodies


def test_without_a_key_nothing_is_kept(tmp_path, monkeypatch):
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    monkeypatch.setenv(STATE_DIR_ENV, str(blocker / "state"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    assert _parser().parse(TEXT, start="start") is not None
    assert not (blocker.parent / "parsers").exists()


def test_the_data_reads_back_exactly():
    value = {"memo": {0: {"name": "A", "pair": (1, "b")}}, "list": [(), [True, None]], 3: "x", (1, ("a",)): {}}
    again = parser_cache._decoded(parser_cache._encoded(value))
    assert again == value and repr(again) == repr(value)  # tuples as tuples, not lists


def test_a_fifo_in_the_parsers_place_is_passed_over_without_blocking(state):
    """A read that waited for a writer would hang the command: the file is opened without
    blocking and read only if it is a regular file (the parser is then built as usual)."""
    path = parser_cache.cache_path("compute", grammar_text("compute.lark"), _options())
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    probe = (
        "from toolkiln.syntax.grammar import compute_parser\n"
        "assert compute_parser().parse('return 1\\n', start='start') is not None"
    )
    env = {**os.environ, STATE_DIR_ENV: str(state)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_anything_but_a_file_in_the_keys_place_is_no_key_and_blocks_nothing(state, kind):
    """A FIFO where the key belongs blocked every command that signs or verifies (a syntax
    error's check, the registry's index) until a writer came: it is opened without blocking
    and read only if it is a regular file; else there is no key, and nothing is kept."""
    state.mkdir()
    os.mkfifo(key_path()) if kind == "fifo" else key_path().mkdir()
    env = {**os.environ, STATE_DIR_ENV: str(state)}
    broken = state.parent / "broken.tk"
    broken.write_text('tool broken(a: number) description "d"\n{\n  return a +\n}\n')
    command = [sys.executable, "-m", "toolkiln", "check", str(broken)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and "E0101" in done.stdout, done.stderr
    assert load_key() is None and sorted(path.name for path in state.iterdir()) == ["index.key"]
