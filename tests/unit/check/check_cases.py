"""Checker cases as data (tests/unit/check/data/*.test, the format is in CONTRIBUTING.md).

A file holds `[case name]` blocks; each case is a toolkiln text source whose lines end in the
codes the checker must report there: `return y  # E0202`, several as `# W0208 W0209`, one
with its exact hint as `# E0201 hint: did you mean `total`?` (more markers on a line each
start with `#`). A case without markers checks
clean. Lines starting with `--` are comments of the file. The markers are taken out of the
source before it is checked, so a case checks exactly the program it shows.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

_CASE = re.compile(r"\[case ([a-z0-9_]+)\]")
_CODE = r"[EW]\d{4}"
# `#` starting a marker: the first `#` of the line followed by a code.
_MARKER_START = re.compile(rf"(?:^|\s)#\s*(?={_CODE}\b)")
_NEXT_MARKER = re.compile(rf"\s+#\s*(?={_CODE}\b)")
_CODES = re.compile(rf"({_CODE}(?:\s+{_CODE})*)\s*")
_HINTED = re.compile(rf"({_CODE}) hint: (.+)")
_LOOKS_LIKE_A_CODE = re.compile(rf"#.*\b{_CODE}\b")


class CaseFileError(Exception):
    """A .test file that does not read as cases: a bad header, a malformed marker, a name twice."""


@dataclass(frozen=True)
class Expected:
    line: int
    code: str
    hint: str | None = None  # None: any hint


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    line: int  # of the `[case ...]` header, for the failure message
    source: str  # without the markers
    expected: tuple[Expected, ...]

    @property
    def id(self) -> str:
        return f"{self.file}::{self.name}"


def _markers(text: str, where: str) -> tuple[str, list[tuple[str, str | None]]]:
    """A source line without its marker, and the (code, hint) pairs the marker expects."""
    start = _MARKER_START.search(text)
    if start is None:
        if _LOOKS_LIKE_A_CODE.search(text):
            raise CaseFileError(f"{where}: a code in a comment that is not a marker: {text!r}")
        return text, []
    expected: list[tuple[str, str | None]] = []
    for marker in _NEXT_MARKER.split(text[start.end() :].rstrip()):
        if hinted := _HINTED.fullmatch(marker):
            expected.append((hinted.group(1), hinted.group(2)))
        elif _CODES.fullmatch(marker):
            expected.extend((code, None) for code in marker.split())
        else:
            raise CaseFileError(f"{where}: a marker is `# CODE ...` or `# CODE hint: text`, not {marker!r}")
    return text[: start.start()].rstrip(), expected


def _case(name: str, file: str, header_line: int, lines: list[str]) -> Case:
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise CaseFileError(f"{file}:{header_line}: case {name} has no source")
    source_lines: list[str] = []
    expected: list[Expected] = []
    for number, text in enumerate(lines, start=1):
        code_line, found = _markers(text, f"{file}:{header_line + number}")
        source_lines.append(code_line)
        expected.extend(Expected(number, code, hint) for code, hint in found)
    return Case(name, file, header_line, "\n".join(source_lines) + "\n", tuple(expected))


def parse_cases(text: str, file: str) -> list[Case]:
    cases: list[Case] = []
    header: tuple[str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("--"):
            continue
        if line.startswith("["):
            match = _CASE.fullmatch(line.rstrip())
            if match is None:
                raise CaseFileError(f"{file}:{number}: a case starts with `[case name]` (a-z, 0-9, _): {line!r}")
            if header is not None:
                cases.append(_case(header[0], file, header[1], body))
            header, body = (match.group(1), number), []
        elif header is not None:
            body.append(line)
        elif line.strip():
            raise CaseFileError(f"{file}:{number}: text before the first `[case name]`: {line!r}")
    if header is not None:
        cases.append(_case(header[0], file, header[1], body))
    twice = [name for name, count in Counter(case.name for case in cases).items() if count > 1]
    if twice:
        raise CaseFileError(f"{file}: case names given twice: {', '.join(twice)}")
    return cases


def all_cases(folder: Path = DATA) -> list[Case]:
    return [case for path in sorted(folder.glob("*.test")) for case in parse_cases(path.read_text("utf-8"), path.name)]


def mismatches(case: Case, found: list[tuple[int | None, str, str | None]]) -> list[str]:
    """What differs between a case's markers and the (line, code, hint) the checker found:
    a code missing, a code not expected (a warning too), a hint other than the marker's."""
    expected_codes = Counter((e.line, e.code) for e in case.expected)
    found_codes = Counter((line, code) for line, code, _ in found)
    problems = [f"line {line}: expected {code}, not reported" for line, code in expected_codes - found_codes]
    problems += [f"line {line}: {code} reported, not expected" for line, code in found_codes - expected_codes]
    for e in case.expected:
        hints = [hint for line, code, hint in found if (line, code) == (e.line, e.code)]
        if e.hint is not None and hints and e.hint not in hints:
            problems.append(f"line {e.line}: {e.code} hint {hints!r}, expected {e.hint!r}")
    return problems


def annotated(source: str, found: list[tuple[int | None, str, str | None]]) -> str:
    """The source with what the checker found as markers: what the case would say."""
    lines = source.splitlines()
    for index in range(len(lines)):
        codes = [code for line, code, _ in found if line == index + 1]
        if codes:
            lines[index] += "  # " + " ".join(codes)
    unplaced = [code for line, code, _ in found if line is None or not 1 <= line <= len(lines)]
    return "\n".join(lines + ([f"-- without a line: {' '.join(unplaced)}"] if unplaced else []))
