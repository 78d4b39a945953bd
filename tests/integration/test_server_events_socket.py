"""The tool events over a WebSocket on a real `toolkiln serve` (RustyClaw's `/ws`), read with the
`websockets` client while another client changes the registry: the same events as the
Server-Sent Events stream, the same token check and the same bound on streams."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, served_registry
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

EVENTS = "/api/v1/events"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    yield from served_registry(tmp_path_factory.mktemp("socket-events"))


def socket(server: ServerProcess, token: str | None, **headers: str) -> ClientConnection:
    sent = headers | ({"Authorization": f"Bearer {token}"} if token else {})
    return connect(server.url.replace("http", "ws", 1) + EVENTS, additional_headers=sent, open_timeout=10)


def next_event(connection: ClientConnection) -> dict:
    while True:
        message = json.loads(connection.recv(timeout=10))
        if "heartbeat" not in message:
            return message


def test_an_event_arrives_for_a_tool_another_client_creates(server):
    model = make_token(server.registry, "socket-model", "read", "model")
    with socket(server, model) as connection:

        def create() -> None:
            with server.client(server.tokens["write"]) as writer:
                assert writer.post("/api/v1/tools", json={"definition": compute_tool("socketed")}).status_code == 201

        timer = threading.Timer(0.3, create)
        timer.start()
        timer.join()
        event = next_event(connection)
    assert (event["tool"], event["event"], event["action"], event["version"]) == ("socketed", "create", "create", 1)
    assert set(event) == {"id", "event", "tool", "action", "version", "status", "actor", "at"}  # no note, no token


def test_last_event_id_resumes_where_the_stream_left_off(server):
    with server.client(server.tokens["write"]) as writer:
        writer.post("/api/v1/tools", json={"definition": compute_tool("resumed_socket")})
        writer.post("/api/v1/tools/resumed_socket/disable")
    with socket(server, server.tokens["read"], **{"Last-Event-ID": "0"}) as connection:
        replayed = [next_event(connection) for _ in range(2)]
        while replayed[-1]["tool"] != "resumed_socket" or replayed[-1]["action"] != "disable":
            replayed.append(next_event(connection))
    assert [e["id"] for e in replayed] == list(range(1, len(replayed) + 1))


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_a_handshake_without_a_valid_token_is_refused_with_401(server, token):
    with pytest.raises(InvalidStatus) as refused:
        socket(server, token)
    answer = refused.value.response
    assert answer.status_code == 401
    assert json.loads(answer.body)["code"] in ("R0501", "R0502")


def test_sockets_share_the_limit_of_streams_and_a_closed_one_frees_its_slot(server):
    with ExitStack() as open_sockets:
        for _ in range(8):
            open_sockets.enter_context(socket(server, server.tokens["read"]))
        with pytest.raises(InvalidStatus) as refused:
            socket(server, server.tokens["read"])
        assert refused.value.response.status_code == 503
        assert json.loads(refused.value.response.body)["code"] == "R0519"
    for _ in range(100):  # every socket closed: the server sees each go and frees its slot
        try:
            with ExitStack() as again:
                for _ in range(8):
                    again.enter_context(socket(server, server.tokens["read"]))
                return
        except InvalidStatus:
            threading.Event().wait(0.1)
    raise AssertionError("closed sockets never freed their slots")
