"""pygls's protocol, answering what it would leave unanswered: JSON-RPC says a request whose
params do not fit gets error -32602 with its id (pygls logs it and the client waits forever),
a body that is not JSON -32700 and one that is no message -32600, both with id null; and the
protocol says a request after `shutdown` is answered -32600 (pygls drops it unanswered)."""

from __future__ import annotations

from typing import Any

from lsprotocol.types import ResponseError
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class _Answered:
    """What a message already answered becomes: pygls ignores a message of another version."""

    jsonrpc = "answered"


class AnsweringProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            msg_id = data.get("id")
            if "method" not in data or not isinstance(msg_id, (int, str)):
                raise  # a notification or a response: nobody waits for an answer
            self._send_response(msg_id, None, error.to_response_error())
            return _Answered()

    def handle_message(self, message: Any) -> None:
        if not hasattr(message, "jsonrpc"):  # JSON, but a list, a number, a string, null
            self.answer_null(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
            return
        msg_id, method = getattr(message, "id", None), getattr(message, "method", None)
        if self._shutdown and method not in (None, "exit") and isinstance(msg_id, (int, str)):
            refused = ResponseError(code=INVALID_REQUEST, message="the server is shutting down")
            self._send_response(msg_id, None, refused)
            return
        super().handle_message(message)

    def answer_null(self, code: int, message: str) -> None:
        """An error response with id null: the request it answers could not be read."""
        self._send_response(None, None, ResponseError(code=code, message=message))  # type: ignore[arg-type]
