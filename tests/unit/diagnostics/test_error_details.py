"""ErrorDetails: every toolkiln error reaches a caller as the same 16 keys, in the same order."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolkiln
from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.errors import CompileError, Error, RunError, error_details
from toolkiln.executables.errors import ExecutableError
from toolkiln.registry.errors import BrokenTool, ToolNotFound
from toolkiln.server.tokens import TokenError

BROKEN = "tool late_fee(days: int) -> int:\n    return days * rate\n"


def diagnostics() -> list[toolkiln.Diagnostic]:
    found = toolkiln.check(BROKEN, name="late_fee.tk")
    assert found, "the source must not check"
    return found


def keys() -> list[str]:
    """The keys in their JSON order: a diagnostic's (docs/errors.md shows them)."""
    found = list(diagnostics()[0].to_dict())
    assert len(found) == 16 and set(found) == set(ErrorDetails._fields)
    return found


def every_kind_of_error() -> list[BaseException | toolkiln.Diagnostic]:
    span = Span(start=3, end=7, line=2, column=4, end_line=2, end_column=8, path="logic.steps[0]")
    return [
        diagnostics()[0],
        CompileError(diagnostics()),
        RunError(codes.DIVISION_BY_ZERO.code, "division by zero", span, input="0", expected=("a number not 0",)),
        ToolNotFound("no tool `x`", "list_custom_tools shows the names", path="name"),
        BrokenTool("`x` does not compile any more", diagnostics=diagnostics()),
        ExecutableError(codes.SANDBOX_UNAVAILABLE, "no bubblewrap", "install bubblewrap", path="program"),
        TokenError(codes.TOKEN_NOT_FOUND, "no token `ci`"),
        Error("something else"),
    ]


@pytest.mark.parametrize("error", every_kind_of_error(), ids=lambda e: type(e).__name__)
def test_every_error_gives_the_same_keys_in_the_same_order(error):
    found = error_details(error)
    assert found
    for details in found:
        assert isinstance(details, ErrorDetails)
        assert list(details.to_dict()) == keys()
        assert list(details.explained().to_dict()) == keys()


def test_a_diagnostic_to_dict_is_its_details():
    for diagnostic in diagnostics():
        assert diagnostic.to_dict() == diagnostic.details().to_dict()
        assert diagnostic.to_dict()["code"] == diagnostic.code
        assert diagnostic.to_dict()["file"] == "late_fee.tk"
        assert diagnostic.to_dict()["line"] is not None


def test_a_compile_error_gives_each_of_its_diagnostics():
    error = CompileError(diagnostics())
    assert [d.to_dict() for d in error_details(error)] == [d.to_dict() for d in error.diagnostics]


def test_a_run_error_keeps_its_place_input_and_expected():
    span = Span(start=3, end=7, line=2, column=4, end_line=2, end_column=8, path="logic.steps[0]")
    error = RunError(codes.DIVISION_BY_ZERO.code, "division by zero", span, input="0", expected=("not 0",))
    (details,) = error_details(error)
    assert details.to_dict() == {
        **dict.fromkeys(keys()),
        "code": codes.DIVISION_BY_ZERO.code,
        "name": codes.DIVISION_BY_ZERO.name,
        "severity": "error",
        "message": "division by zero",
        "path": "logic.steps[0]",
        "line": 2,
        "column": 4,
        "end_line": 2,
        "end_column": 8,
        "input": "0",
        "expected": ["not 0"],
    }


def test_a_coded_error_comes_first_then_the_diagnostics_it_carries():
    error = BrokenTool("`x` does not compile any more", diagnostics=diagnostics())
    own, *rest = error_details(error)
    assert (own.code, own.name, own.message) == (error.code, error.name, error.message)
    assert [d.to_dict() for d in rest] == [d.to_dict() for d in diagnostics()]
    assert error.to_dict() == own.to_dict()


def test_every_error_has_a_code_even_one_raised_without():
    (details,) = error_details(Error("something else"))
    assert (details.code, details.name, details.message) == (
        codes.INVALID_REQUEST.code,
        codes.INVALID_REQUEST.name,
        "something else",
    )
    (bug,) = error_details(KeyError("x"))
    assert (bug.code, bug.message) == (codes.INTERNAL_ERROR.code, "internal error: KeyError: 'x'")
    assert bug.hint


def test_a_run_errors_dict_is_the_one_shape():
    error = RunError(codes.DIVISION_BY_ZERO.code, "division by zero", hint="guard the divisor")
    assert error.to_dict() == error.details().to_dict() and len(error.to_dict()) == 16


def test_explained_fills_a_missing_hint_from_the_codes_explanation_only():
    bare = ErrorDetails.coded(codes.DIVISION_BY_ZERO, "division by zero")
    first_paragraph = " ".join(codes.DIVISION_BY_ZERO.explanation.split("\n\n")[0].split())
    assert bare.explained().hint == first_paragraph
    hinted = ErrorDetails.coded(codes.DIVISION_BY_ZERO, "division by zero", "guard the divisor")
    assert hinted.explained().hint == "guard the divisor"
    assert ErrorDetails(code="X9999", message="x").explained().hint is None  # a code not registered


def test_server_problems_no_longer_reach_into_the_meta_tools():
    source = Path(toolkiln.__file__).parent / "server" / "problems.py"
    imported = {node.module for node in ast.walk(ast.parse(source.read_text())) if isinstance(node, ast.ImportFrom)}
    assert "toolkiln.registry.meta" not in imported
