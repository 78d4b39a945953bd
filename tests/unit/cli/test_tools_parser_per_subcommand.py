"""`toolkiln tools SUBCOMMAND` builds only that subcommand's parser (issue 34: `tools run` built
all 18 and their 70 arguments). What a person sees must not change: each command line here is
parsed by the narrowed parser and by the whole one, and the help, the usage, the error, the exit
code and the parsed arguments are the same."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from toolkiln.cli.app import build_parser
from toolkiln.cli.tools import TOOLS_COMMANDS

LINES = [
    ["--help"],
    ["-h", "run"],
    [],
    ["bogus"],
    ["--registry", "reg", "bogus", "x"],
    ["run", "--help"],
    ["run"],
    ["--registry", "reg", "run"],
    ["--reg", "reg", "run", "shipping_cost", "--args", "{}"],
    ["--registry=reg", "run", "shipping_cost", "--seed", "3"],
    ["run", "shipping_cost", "--registry", "reg", "--bogus"],
    ["run", "--registry"],
    ["--registry"],
    ["--registry", "-x", "run", "t"],
    ["--bogus", "run", "t"],
    ["create", "--help"],
    ["import"],
    ["import", "--help"],
    ["discover", "--help"],
    ["repin", "--help"],
    ["delete", "t", "--force", "--by", "llm"],
    ["export", "--format", "nope"],
    ["rollback", "t", "y"],
    ["list", "--json", "--status", "active"],
    ["show"],
]


def outcome(parser: argparse.ArgumentParser, words: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, ...]:
    try:
        parsed = vars(parser.parse_args(["tools", *words]))
        code = None
    except SystemExit as done:
        parsed, code = {}, done.code
    out, err = capsys.readouterr()
    handler = parsed.pop("handler", None)
    return code, out, err, parsed, getattr(handler, "__qualname__", None)


@pytest.mark.parametrize("words", LINES, ids=" ".join)
def test_the_narrowed_parser_answers_as_the_whole_one(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    whole = outcome(build_parser(), words, capsys)
    assert outcome(build_parser("tools", words), words, capsys) == whole
    assert whole[1] or whole[2] or whole[3]  # (a line that says or parses something)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_a_named_subcommand_builds_only_its_parser_and_anything_else_all() -> None:
    def built(words: list[str]) -> list[str]:
        return list(_subcommands(_subcommands(build_parser("tools", words))["tools"]))

    assert built(["run", "shipping_cost"]) == ["run"]
    assert built(["--registry", "reg", "import", "--from", "kitz"]) == ["import"]
    assert built(["--help"]) == built(["bogus"]) == built(["-h", "run"]) == list(TOOLS_COMMANDS)


def test_the_list_of_subcommands_is_the_whole_parsers() -> None:
    assert list(_subcommands(_subcommands(build_parser())["tools"])) == list(TOOLS_COMMANDS)
