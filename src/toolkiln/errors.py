"""The public exceptions. Every error toolkiln raises on purpose derives from `Error`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.ast.spans import Span
    from toolkiln.diagnostics.details import ErrorDetails
    from toolkiln.diagnostics.model import Diagnostic


class Error(Exception):
    """Base of every toolkiln error."""

    def __reduce__(self) -> tuple[Any, ...]:
        # An exception pickles as its class called with its `args`, the one message line,
        # which our errors' __init__ does not take: rebuilt field by field instead, so that a
        # process pool hands back a RunError with its code and location.
        return _rebuilt, (type(self), self.args, self.__dict__)


def _rebuilt(kind: type[Error], args: tuple[Any, ...], fields: dict[str, Any]) -> Error:
    error = kind.__new__(kind)
    error.args = args
    error.__dict__.update(fields)
    return error


class CompileError(Error):
    """The source does not parse or check; `.diagnostics` says where and why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.is_error]
        first = errors[0] if errors else None
        summary = f"{len(errors)} error(s)" + (f"; first: [{first.code}] {first.message}" if first else "")
        super().__init__(summary)


class UsageError(Error, TypeError):
    """An entry point was called with an argument of the wrong type (a float for a source, a
    list for `tools`); the message names the argument. It is a TypeError too."""


class RunError(Error):
    """A failure while running a compiled tool, with a stable code and the span it came from."""

    def __init__(
        self,
        code: str,
        message: str,
        span: Span | None = None,
        hint: str | None = None,
        *,
        input: str | None = None,  # noqa: A002 - as Diagnostic: the offending value or name
        expected: tuple[str, ...] | None = None,
        value: Any = None,
    ) -> None:
        self.code = code
        self.message = message
        self.span = span
        self.hint = hint
        self.input = input
        self.expected = expected
        self.value = value  # what the program threw (JsonLogic's `throw`), for `try ... catch`
        super().__init__(f"[{code}] {message}")

    def at(self, span: Span) -> RunError:
        """This error, located at `span` unless it already has a location."""
        if self.span is None:
            self.span = span
        return self

    def diagnostic(self) -> Diagnostic:
        """This error as a Diagnostic, to render like compile errors (locate it in its source
        first: `error.diagnostic().located(source)` shows the line and a caret)."""
        from toolkiln.diagnostics.model import Diagnostic

        return Diagnostic(
            code=self.code,
            severity="error",
            message=self.message,
            span=self.span,
            hint=self.hint,
            input=self.input,
            expected=self.expected,
        )

    def details(self) -> ErrorDetails:
        """This error in the one shape callers read; a run has no file, so no snippet."""
        from toolkiln.diagnostics.codes import CODES  # (the codes: on first use)
        from toolkiln.diagnostics.details import ErrorDetails

        span, entry = self.span, CODES.get(self.code)
        return ErrorDetails(
            code=self.code,
            name=entry.name if entry else None,
            message=self.message,
            path=span.path if span else None,
            line=span.line if span and span.line else None,
            column=span.column if span and span.column else None,
            end_line=span.end_line if span and span.line else None,
            end_column=span.end_column if span and span.line else None,
            hint=self.hint,
            input=self.input,
            expected=self.expected,
        )

    def to_dict(self) -> dict[str, Any]:
        """This error in the one shape of an error (the 16 keys of `ErrorDetails.to_dict`)."""
        return self.details().to_dict()


def error_details(error: BaseException | Diagnostic) -> list[ErrorDetails]:
    """Any toolkiln error as the list of ErrorDetails a caller reads: a compile error's
    diagnostics; a run error; a coded error (registry, executables, tokens: `code`, `name`,
    `message`, `hint`, `path`) followed by the diagnostics it carries. Every one has a code: a
    toolkiln error without one is an invalid request (R0104), anything else a bug (R0508)."""
    from toolkiln.diagnostics.codes import INTERNAL_ERROR, INVALID_REQUEST  # (on first use)
    from toolkiln.diagnostics.details import ErrorDetails
    from toolkiln.diagnostics.model import Diagnostic

    if isinstance(error, Diagnostic):
        return [error.details()]
    if isinstance(error, CompileError):
        return [d.details() for d in error.diagnostics]
    if isinstance(error, RunError):
        return [error.details()]
    code = getattr(error, "code", None)
    if isinstance(code, str):
        own = ErrorDetails(
            code=code,
            name=getattr(error, "name", None),
            message=getattr(error, "message", str(error)),
            hint=getattr(error, "hint", None),
            path=getattr(error, "path", None),
        )
        return [own, *(d.details() for d in getattr(error, "diagnostics", []))]
    if isinstance(error, Error):
        hint = getattr(error, "hint", None)
        return [ErrorDetails.coded(INVALID_REQUEST, str(error), hint if isinstance(hint, str) else None)]
    return [
        ErrorDetails.coded(
            INTERNAL_ERROR,
            f"internal error: {type(error).__name__}: {error}",
            "this is a bug in toolkiln, not in your call; try again differently",
        )
    ]
