"""The command reference is complete: every CLI command and subcommand that argparse knows is
documented in docs/cli.md and listed in the README's command table."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from toolkiln.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _commands() -> dict[str, list[str]]:
    """Top-level command -> its subcommands (empty for a command without)."""
    return {name: sorted(_subcommands(parser)) for name, parser in _subcommands(build_parser()).items()}


def _section(text: str, command: str) -> str:
    match = re.search(rf"^## `toolkiln {command}`\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"docs/cli.md has no section for `toolkiln {command}`"
    return match.group(1)


def test_every_command_and_subcommand_is_in_the_cli_reference():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command, subcommands in _commands().items():
        section = _section(text, command)
        missing = [
            sub for sub in subcommands if f"`{sub}`" not in section and f"toolkiln {command} {sub}" not in section
        ]
        assert not missing, f"docs/cli.md, `toolkiln {command}`: not described: {missing}"


def test_every_command_and_subcommand_is_in_the_readme_table():
    table = (ROOT / "README.md").read_text(encoding="utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `toolkiln ")]
    for command, subcommands in _commands().items():
        own = " ".join(row for row in rows if row.startswith((f"| `toolkiln {command} ", f"| `toolkiln {command}`")))
        assert own, f"README's command table has no row for `toolkiln {command}`"
        missing = [sub for sub in subcommands if not re.search(rf"\b{sub}\b", own)]
        assert not missing, f"README's row for `toolkiln {command}` does not name {missing}"
