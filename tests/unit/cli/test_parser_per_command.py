"""`toolkiln run` builds only `run`'s parser, and `toolkiln tools SUBCOMMAND` only that
subcommand's (issue 34: `tools run` built all 18 and their 70 arguments, `run` the five
compute commands'). What a person sees must not change: each command line here is parsed by the
narrowed parser and by the whole one, and the help, the usage, the error, the exit code and the
parsed arguments are the same."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from toolkiln.cli.app import build_parser
from toolkiln.cli.tools import TOOLS_COMMANDS

LINES = [
    ["run", "--help"],
    ["run"],
    ["run", "t.json", "--args", "{}", "--seed", "x"],
    ["run", "t.json", "--tables", "a.csv", "--decimals", "string"],
    ["check", "--help"],
    ["check"],
    ["check", "--format", "nope", "x"],
    ["check", "x", "--strict", "--n8n-version", "2.41.1"],
    ["fmt", "--check", "x", "--bogus"],
    ["optimize"],
    ["explain", "E0116"],
    ["tools", "--help"],
    ["tools", "-h", "run"],
    ["tools"],
    ["tools", "bogus"],
    ["tools", "--registry", "reg", "bogus", "x"],
    ["tools", "run", "--help"],
    ["tools", "run"],
    ["tools", "--registry", "reg", "run"],
    ["tools", "--reg", "reg", "run", "shipping_cost", "--args", "{}"],
    ["tools", "--registry=reg", "run", "shipping_cost", "--seed", "3"],
    ["tools", "run", "shipping_cost", "--registry", "reg", "--bogus"],
    ["tools", "run", "--registry"],
    ["tools", "--registry"],
    ["tools", "--registry", "-x", "run", "t"],
    ["tools", "--bogus", "run", "t"],
    ["tools", "create", "--help"],
    ["tools", "import"],
    ["tools", "import", "--help"],
    ["tools", "discover", "--help"],
    ["tools", "repin", "--help"],
    ["tools", "delete", "t", "--force", "--by", "llm"],
    ["tools", "export", "--format", "nope"],
    ["tools", "rollback", "t", "y"],
    ["tools", "list", "--json", "--status", "active"],
    ["tools", "show"],
]


def outcome(parser: argparse.ArgumentParser, words: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, ...]:
    try:
        parsed = vars(parser.parse_args(words))
        code = None
    except SystemExit as done:
        parsed, code = {}, done.code
    out, err = capsys.readouterr()
    handler = parsed.pop("handler", None)
    return code, out, err, parsed, getattr(handler, "__qualname__", None)


@pytest.mark.parametrize("words", LINES, ids=" ".join)
def test_the_narrowed_parser_answers_as_the_whole_one(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    whole = outcome(build_parser(), words, capsys)
    assert outcome(build_parser(words[0], words[1:]), words, capsys) == whole
    assert whole[1] or whole[2] or whole[3]  # (a line that says or parses something)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_a_compute_command_builds_only_its_parser() -> None:
    assert list(_subcommands(build_parser("run", ["t.json"]))) == ["run"]
    assert list(_subcommands(build_parser("fmt", ["--check", "t.json"]))) == ["fmt"]


def test_a_named_subcommand_builds_only_its_parser_and_anything_else_all() -> None:
    def built(words: list[str]) -> list[str]:
        return list(_subcommands(_subcommands(build_parser("tools", words))["tools"]))

    assert built(["run", "shipping_cost"]) == ["run"]
    assert built(["--registry", "reg", "import", "--from", "kitz"]) == ["import"]
    assert built(["--help"]) == built(["bogus"]) == built(["-h", "run"]) == list(TOOLS_COMMANDS)


def test_the_list_of_subcommands_is_the_whole_parsers() -> None:
    assert list(_subcommands(_subcommands(build_parser())["tools"])) == list(TOOLS_COMMANDS)
