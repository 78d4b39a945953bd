"""uvicorn's HTTP protocols with toolkiln's answer to a request they cannot parse.

uvicorn answers a request it cannot read (a control character in a header, a broken request
line) itself, before the app: 400 with the text "Invalid HTTP request received.". Every route's
OpenAPI document says a 400 is problem details (`application/problem+json`); these protocols
keep that promise with R0532, for the httptools parser `toolkiln serve` uses and for h11
where httptools is not installed.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

from toolkiln.diagnostics import codes
from toolkiln.server.problems import diagnostic, problem

HINT = "send headers and the request line as HTTP/1.1 defines them (no control characters)"


def malformed_answer(message: str) -> bytes:
    """The whole HTTP/1.1 answer: status line, headers and the problem's body."""
    response = problem(400, codes.MALFORMED_REQUEST.code, message, [diagnostic(codes.MALFORMED_REQUEST, message, HINT)])
    head = [
        b"HTTP/1.1 400 Bad Request",
        b"content-type: " + response.media_type.encode("ascii"),  # type: ignore[union-attr]
        b"content-length: " + str(len(response.body)).encode("ascii"),
        b"connection: close",
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + bytes(response.body)


class ProblemH11(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        self.transport.write(malformed_answer(msg))
        self.transport.close()


def http_protocol() -> type[asyncio.Protocol]:
    """The protocol class for uvicorn.Config(http=...): httptools' when it is installed."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return ProblemH11

    class ProblemHttpTools(HttpToolsProtocol):
        def send_400_response(self, msg: str) -> None:
            self.transport.write(malformed_answer(msg))
            self.transport.close()

    return ProblemHttpTools
