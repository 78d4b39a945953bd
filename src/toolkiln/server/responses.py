"""JSON answers with exact numbers, and the JSON form of a tool record.

A tool's result is a Decimal (`0.1 * 3` is `0.3`, not `0.30000000000000004`), with the digits
the run computed (`31.500`); FastAPI's own encoder would turn it into a float. Every answer is
written as `toolkiln run` prints a result: each number as a JSON number with its digits, or,
with `decimals="string"` (the routes' `?decimals=string`), as a JSON string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse
from starlette.background import BackgroundTask

from toolkiln.registry.json_values import iso
from toolkiln.registry.models import ToolRecord
from toolkiln.semantics.values import DecimalEncoding, to_json, to_jsonable


class ExactJSONResponse(JSONResponse):
    def __init__(
        self,
        content: Any,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
        *,
        decimals: DecimalEncoding = "number",
    ) -> None:
        self.decimals = decimals  # read by render, which JSONResponse's __init__ calls
        super().__init__(content, status_code, headers, media_type, background)

    def render(self, content: Any) -> bytes:
        if self.decimals == "string":
            return utf8(to_json(to_jsonable(content, decimals="string")))
        return utf8(to_json(content, exact=True))


def utf8(text: str) -> bytes:
    """`text` as UTF-8, a lone surrogate as its escape: JSON's `"\\ud800"` decodes to a
    character UTF-8 cannot carry, and an answer that echoes one (a diagnostic's input, a
    result) would fail to encode; inside a JSON string the escape is the same value again."""
    return text.encode("utf-8", "backslashreplace")


def record_json(record: ToolRecord, trusted_here: bool | None = None) -> dict[str, Any]:
    """A record as JSON data: the fields of the tool file (`pins` only when it has some), usage
    and times as ISO text, and (when given) whether this registry wrote it here."""
    left_out = {"created_at", "updated_at", "last_used_at", "deployment"} | (set() if record.pins else {"pins"})
    data = record.model_dump(exclude=left_out)
    data.update(
        created_at=iso(record.created_at),
        updated_at=iso(record.updated_at),
        last_used_at=iso(record.last_used_at),
        deployment=None if record.deployment is None else record.deployment.model_dump(),
    )
    if trusted_here is not None:
        data["trusted_here"] = trusted_here
    return data
