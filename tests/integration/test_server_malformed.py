"""A request `toolkiln serve` cannot parse as HTTP gets the 400 every route documents: problem
details with a code (R0532), not uvicorn's plain text (schemathesis ST105, issue 25)."""

from __future__ import annotations

import json
import socket

import pytest
from test_server_support import served_registry


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served_registry(tmp_path_factory.mktemp("malformed"))


def exchange(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):  # the server closes the connection after it
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    return status, {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}, body


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /api/v1/tools/price/validate HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer tk_\x01x\r\n\r\n",
        b"GET /api/v1/tools/price/validate HTTP/1.1\r\nHost: a\r\nBad Name: v\r\n\r\n",
        b"GET /api/v1/tools/price/validate HTTP/9\r\n\r\n",
    ],
    ids=["control character in a value", "space in a header name", "broken request line"],
)
def test_a_request_that_is_not_http_gets_problem_details_with_a_code(server, request_bytes):
    status, headers, body = exchange(server.port, request_bytes)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/problem+json"
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (400, "R0532")
    assert problem["diagnostics"][0]["hint"]
    with server.client(server.tokens["read"]) as http:  # the server goes on answering
        assert http.get("/health").status_code == 200
