"""Diagnostics for CI: SARIF 2.1.0 (code scanning) and JUnit XML (test reports).

SARIF: one run of the `toolkiln` driver, a rule per code found (its title, explanation and,
given a docs address, a link to its entry on the error page), a result per diagnostic with
its physical location (line and column in the file, counted in characters) and, where the
JSON source locates it, the logical one (`logic.steps[0].value`), and the certain fix as a
replacement. JUnit: a test case per file checked, failed by its errors; warnings are its
output, as they do not fail `toolkiln check` (docs/ci.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree

from toolkiln.diagnostics.codes import CODES
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.render import render_text
from toolkiln.version import __version__

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def docs_anchor(code: str) -> str:
    """The code's entry on the error page (`errors.md#e0201-unknown-variable`)."""
    return f"errors.md#{code.lower()}-{CODES[code].name}"


def render_sarif(diagnostics: Sequence[Diagnostic], docs_url: str | None = None) -> str:
    """A SARIF 2.1.0 log; `docs_url` is where the docs are published (each rule's helpUri)."""
    codes = sorted({d.code for d in diagnostics})
    index = {code: i for i, code in enumerate(codes)}
    run = {
        "tool": {"driver": {"name": "toolkiln", "version": __version__, "rules": [_rule(c, docs_url) for c in codes]}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index[d.code]) for d in diagnostics],
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)


def _rule(code: str, docs_url: str | None) -> dict[str, Any]:
    entry = CODES[code]
    rule: dict[str, Any] = {
        "id": code,
        "name": entry.name,
        "shortDescription": {"text": entry.title},
        "fullDescription": {"text": entry.explanation.split("\n\n")[0]},
        "help": {"text": entry.explanation},
        "defaultConfiguration": {"level": entry.severity},
        "properties": {"docs": docs_anchor(code)},
    }
    if docs_url:
        page, anchor = docs_anchor(code).split("#")
        rule["helpUri"] = f"{docs_url.rstrip('/')}/{page.removesuffix('.md')}/#{anchor}"
    return rule


def _result(d: Diagnostic, rule_index: int) -> dict[str, Any]:
    message = d.message + (f" (hint: {d.hint})" if d.hint else "")
    result: dict[str, Any] = {"ruleId": d.code, "ruleIndex": rule_index, "level": d.severity}
    result["message"] = {"text": message}
    location: dict[str, Any] = {}
    if d.file is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(d.file)}}
        region = _region(d)
        if region is not None:
            physical["region"] = region
        location["physicalLocation"] = physical
    if d.span is not None and d.span.path:
        location["logicalLocations"] = [{"fullyQualifiedName": d.span.path, "kind": "member"}]
    if location:
        result["locations"] = [location]
    fix = d.details().fix
    if fix is not None and d.file is not None and fix.line and fix.column:
        deleted = {
            "startLine": fix.line,
            "startColumn": fix.column,
            "endLine": fix.end_line or fix.line,
            "endColumn": fix.end_column or fix.column,
        }
        change = {"artifactLocation": {"uri": _uri(d.file)}, "replacements": [_replacement(deleted, fix.replacement)]}
        result["fixes"] = [{"description": {"text": f"replace with {fix.replacement}"}, "artifactChanges": [change]}]
    return result


def _replacement(deleted: dict[str, int], text: str) -> dict[str, Any]:
    return {"deletedRegion": deleted, "insertedContent": {"text": text}}


def _region(d: Diagnostic) -> dict[str, int] | None:
    span = d.span
    if span is None or not span.line or not (span.path is None or span.in_file):
        return None
    region = {"startLine": span.line, "startColumn": max(span.column, 1)}
    if span.end_line:
        region |= {"endLine": span.end_line, "endColumn": max(span.end_column, 1)}
    return region


def _uri(file: str) -> str:
    """A file as a URI reference: relative paths stay relative (to the checkout), with '/'."""
    path = PurePath(file)
    if path.is_absolute():
        return "file://" + quote(path.as_posix())
    return quote(path.as_posix())


def render_junit(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    """A JUnit XML report: a test case per file, failed when it has an error."""
    by_file: dict[str, list[Diagnostic]] = {file: [] for file in files}
    for d in diagnostics:
        by_file.setdefault(d.file or "<input>", []).append(d)
    failed = sum(any(d.is_error for d in found) for found in by_file.values())
    suite = ElementTree.Element(
        "testsuite", name="toolkiln check", tests=str(len(by_file)), failures=str(failed), errors="0", skipped="0"
    )
    for file, found in by_file.items():
        case = ElementTree.SubElement(suite, "testcase", classname="toolkiln.check", name=file)
        errors = [d for d in found if d.is_error]
        if errors:
            summary = "; ".join(f"[{d.code}] {d.message}" for d in errors)
            failure = ElementTree.SubElement(case, "failure", message=summary[:1000], type=errors[0].code)
            failure.text = "\n\n".join(render_text(d) for d in errors)
        warnings = [d for d in found if not d.is_error]
        if warnings:
            ElementTree.SubElement(case, "system-out").text = "\n\n".join(render_text(d) for d in warnings)
    suites = ElementTree.Element("testsuites", name="toolkiln", tests=suite.get("tests", "0"), failures=str(failed))
    suites.append(suite)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True)
