"""Reading the final answer of a prompted conversation: one JSON value, alone or in a ```json
block, checked against the response format. Nothing is repaired: what is not that JSON goes
back to the model as a located E0906 diagnostic."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from toolkiln.ast.spans import LineIndex, Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.llm.errors import LLMConfigError
from toolkiln.syntax.limits import MAX_SOURCE_CHARS

_JSON_BLOCK = re.compile(r"```json[ \t]*\r?\n(.*?)```", re.DOTALL)
_SHOWN_ERRORS = 5


def read_final_answer(text: str, validator: Draft202012Validator) -> Any | Diagnostic:
    """The answer's value, or the diagnostic of why `text` is not the JSON asked for."""
    if len(text) > MAX_SOURCE_CHARS:
        message = f"the answer has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}"
        return Diagnostic.of(codes.INVALID_FINAL_ANSWER, message, Span(), hint="answer in a shorter reply")
    block = _JSON_BLOCK.search(text)
    start, end = block.span(1) if block else (0, len(text))
    try:
        value = json.loads(text[start:end], parse_float=Decimal, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        index = LineIndex(text)
        return Diagnostic.of(
            codes.INVALID_FINAL_ANSWER,
            f"the answer is not JSON: {error.msg}",
            index.span(start + error.pos, start + error.pos + 1),
            hint="write one JSON value, alone or in a ```json block, and nothing else",
        )
    except (ValueError, RecursionError) as error:
        message = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        return Diagnostic.of(codes.INVALID_FINAL_ANSWER, f"the answer is not JSON: {message}", Span())
    problems = sorted(validator.iter_errors(value), key=lambda problem: list(problem.absolute_path))
    if problems:
        shown = "; ".join(
            f"at {_where(problem.absolute_path)}: {problem.message[:200]}" for problem in problems[:_SHOWN_ERRORS]
        )
        more = f" (and {len(problems) - _SHOWN_ERRORS} more)" if len(problems) > _SHOWN_ERRORS else ""
        return Diagnostic.of(
            codes.INVALID_FINAL_ANSWER,
            f"the answer does not match the response format: {shown}{more}",
            Span(),
            hint="call finalResponse() again to see the format",
        )
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _where(path: Any) -> str:
    parts = list(path)
    return "the top" if not parts else "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def checked_format(response_format: Any) -> Draft202012Validator:
    """A validator of the response format; LLMConfigError for what is no JSON Schema."""
    if not isinstance(response_format, Mapping | bool):
        raise LLMConfigError(f"response_format must be a JSON Schema (a dict), not {type(response_format).__name__}")
    try:
        Draft202012Validator.check_schema(response_format)
    except SchemaError as error:
        raise LLMConfigError(f"response_format is not a JSON Schema: {error.message[:300]}") from None
    return Draft202012Validator(response_format)
