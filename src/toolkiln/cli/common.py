"""What every command shares: exit codes, the usage error, walking paths, writing files safely,
and the loop of the `fmt` commands."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from decimal import Decimal
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.syntax.limits import MAX_SOURCE_CHARS

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic

# The dispatcher imports this module before it knows the command: what only some commands need
# (the compiler's front end, the renderers, the Diagnostic) is imported where used.

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def source_files(paths: list[Path], suffixes: tuple[str, ...], exclude: Sequence[str] = ()) -> Iterator[Path]:
    """Each file named, and the files with one of `suffixes` under each folder named, sorted.

    The walk skips hidden folders, registry folders (a project's ./.toolkiln holds records, not
    tool files) and what an `exclude` glob matches: a name, or a path relative to the folder
    named. Whatever is named on the command line is taken as it is.
    """
    for path in paths:
        if not _is_dir(path):
            yield path  # what cannot even be looked at is reported when it is read (E0100)
            continue
        found: list[Path] = []
        for folder, dirs, files in os.walk(path):
            here = Path(folder)
            dirs[:] = [d for d in dirs if not _skipped_folder(here / d, path, exclude)]
            found.extend(
                here / name
                for name in files
                if Path(name).suffix in suffixes
                and (here / name).is_file()
                and not _excluded(here / name, path, exclude)
            )
        yield from sorted(found)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long, a loop of links: not a folder to walk
        return False


def _skipped_folder(folder: Path, root: Path, exclude: Sequence[str]) -> bool:
    from toolkiln.registry.layout import is_registry

    return folder.name.startswith(".") or _excluded(folder, root, exclude) or is_registry(folder)


def _excluded(path: Path, root: Path, exclude: Sequence[str]) -> bool:
    relative = path.relative_to(root).as_posix()
    return any(fnmatch(path.name, glob) or fnmatch(relative, glob.rstrip("/")) for glob in exclude)


def read_source(path: Path, max_chars: int = MAX_SOURCE_CHARS) -> tuple[str | None, list[Diagnostic]]:
    """A file's text, or (None, [E0100]) when it is missing or unreadable (a FIFO, a device or
    a folder is refused without blocking; a file too large, E0401, is never read whole): every
    command reports that as `check` and `run` do, a diagnostic and exit 1."""
    from toolkiln.syntax.loader import read_source_file

    text = read_source_file(path, max_chars)
    if isinstance(text, str):
        return text, []
    return None, [replace(text, file=str(path))]


def reformat(
    paths: Iterable[Path], canonical_text: Callable[[Path], tuple[str | None, list[Diagnostic]]], *, check: bool
) -> int:
    """The loop of every `fmt` command: rewrite each file to its canonical text (or, with
    `check`, only name it); a file that does not parse gets its diagnostics and exit 1."""
    from toolkiln.diagnostics.render import render_text

    failed = changed = 0
    for path in paths:
        text, diagnostics = canonical_text(path)
        if text is None:
            for diagnostic in diagnostics:
                print(render_text(diagnostic) + "\n", file=sys.stderr)
            failed += 1
            continue
        if read_source(path, len(text) + 1)[0] == text:
            continue
        changed += 1
        if check:
            print(f"would reformat {path}")
        else:
            write_atomically(path, text)
            print(f"reformatted {path}")
    return EXIT_FAILED if failed or (check and changed) else EXIT_OK


def arguments_json(text: str) -> Any:
    """A tool's arguments from `--args`, numbers kept exact; unreadable JSON is a usage error."""
    try:
        return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise UsageError(f"--args is not valid JSON: {error.msg} (column {error.colno})") from None
    except (ValueError, RecursionError) as error:  # an integer of 4,300+ digits; nesting past the stack
        raise UsageError(f"--args cannot be read: {error}"[:200]) from None


def write_output(path: Path | None, text: str) -> None:
    """A command's product: to standard output, or atomically to `path` (a failed write is a usage error)."""
    if path is None:
        sys.stdout.write(text)
        return
    try:
        write_atomically(path, text)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None


def report_diagnostics(diagnostics: Sequence[Diagnostic], format_: str) -> None:
    """Diagnostics to standard error, as text or as the JSON list (`--format json`)."""
    from toolkiln.diagnostics.render import render_json, render_text

    if format_ == "json":
        print(render_json(list(diagnostics)), file=sys.stderr)
    elif diagnostics:
        print("\n\n".join(render_text(d) for d in diagnostics), file=sys.stderr)


def write_atomically(path: Path, text: str) -> None:
    import tempfile

    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def whole_number(low: int = 1, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (no upper bound when None)."""

    def parse(text: str) -> int:
        if not text.strip().isdigit() or not text.isascii():
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        value = int(text)
        if value < low or (high is not None and value > high):
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, not {value}")
        return value

    return parse


def decimals_option(parser: argparse.ArgumentParser) -> None:
    """`--decimals`: how a run's numbers are written (toolkiln.dumps's choice)."""
    parser.add_argument(
        "--decimals",
        choices=("number", "string"),
        default="number",
        help='numbers as JSON numbers with the digits computed (19.00), or as strings ("19.00")',
    )
