"""GET /api/v1/events on a real `toolkiln serve`: tool events as Server-Sent Events, read with a
real httpx streaming client while another client changes the registry."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest
from test_server_support import ServerProcess, compute_tool, make_token, served_registry

from toolkiln import Registry

EVENTS = "/api/v1/events"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    yield from served_registry(tmp_path_factory.mktemp("events"))


def events_of(response: httpx.Response) -> Iterator[dict]:
    """The events of a stream as they come: id (when it has one), event name and JSON data."""
    current: dict = {}
    for line in response.iter_lines():
        if line.startswith(("id:", "event:", "data:")):
            field, value = line.split(":", 1)
            current[field] = value.strip()
        elif line == "" and "data" in current:
            yield {**({"id": int(current["id"])} if "id" in current else {}), "event": current["event"]} | json.loads(
                current["data"]
            )
            current = {}


def read_events(response: httpx.Response, wanted: int) -> list[dict]:
    """The first `wanted` events of a stream."""
    found = list(itertools.islice(events_of(response), wanted))
    assert len(found) == wanted, f"the stream ended after {found}"
    return found


def in_background(action) -> threading.Timer:
    timer = threading.Timer(0.3, action)  # after the stream is open
    timer.start()
    return timer


def test_an_event_arrives_for_a_tool_another_client_creates(server):
    model = make_token(server.registry, "events-model", "read", "model")
    with server.client(model) as reader, reader.stream("GET", EVENTS) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")

        def create() -> None:
            with server.client(server.tokens["write"]) as writer:
                assert writer.post("/api/v1/tools", json={"definition": compute_tool("streamed")}).status_code == 201

        in_background(create).join()
        [event] = read_events(response, 1)
    assert event["tool"] == "streamed" and event["event"] == event["action"] == "create"
    assert event["version"] == 1 and event["actor"] == "user" and event["at"].endswith("Z")
    assert set(event) == {"id", "event", "tool", "action", "version", "status", "actor", "at"}  # no note, no token


def test_last_event_id_resumes_from_the_audit_log(server):
    with server.client(server.tokens["write"]) as writer:
        writer.post("/api/v1/tools", json={"definition": compute_tool("resumed_a")})
        writer.post("/api/v1/tools/resumed_a/disable")
    with server.client(server.tokens["read"]) as reader:
        with reader.stream("GET", EVENTS, headers={"Last-Event-ID": "0"}) as response:
            everything = read_events(response, len(server_log(server)))
        created = next(e for e in everything if e["tool"] == "resumed_a")
        with reader.stream("GET", EVENTS, headers={"Last-Event-ID": str(created["id"])}) as response:
            [after] = read_events(response, 1)
    assert [e["id"] for e in everything] == list(range(1, len(everything) + 1))
    assert (created["action"], after["tool"], after["action"], after["status"]) == (
        "create",
        "resumed_a",
        "disable",
        "disabled",
    )


def server_log(server: ServerProcess) -> list:
    """The registry's audit log as Python reads it (what the stream must replay)."""
    with Registry(server.registry) as reg:
        return reg.audit_log()


def test_a_bad_last_event_id_is_a_coded_400(server):
    with server.client(server.tokens["read"]) as reader:
        answer = reader.get(EVENTS, headers={"Last-Event-ID": "latest"})
    assert answer.status_code == 400 and answer.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_a_stream_without_a_valid_token_is_401(server, token):
    with server.client(token) as stranger:
        answer = stranger.get(EVENTS)
    assert answer.status_code == 401
    assert answer.json()["code"] in ("R0501", "R0502")


def test_a_stream_past_the_limit_is_refused_and_a_closed_one_frees_its_slot(server):
    with ExitStack() as open_streams:
        clients = [open_streams.enter_context(server.client(server.tokens["read"])) for _ in range(9)]
        streams = [open_streams.enter_context(c.stream("GET", EVENTS)) for c in clients[:8]]
        assert all(s.status_code == 200 for s in streams)
        refused = clients[8].get(EVENTS)
        assert refused.status_code == 503
        assert refused.json()["code"] == "R0519" and refused.headers["Retry-After"]
        streams[0].close()
        clients[0].close()
    # every stream closed: the server notices within its poll and frees the slots
    with server.client(server.tokens["read"]) as reader:
        for _ in range(100):
            with reader.stream("GET", EVENTS) as response:
                if response.status_code == 200:
                    return
            threading.Event().wait(0.1)
    raise AssertionError("closed streams never freed their slots")


def test_runs_arrive_as_executed_events_whoever_ran_the_tool(server):
    """RustyClaw's feed tells of executions: a run through the server and one by another process
    on the registry (the CLI, Python) each reach the stream as an `executed` event with the count
    of runs since the last poll; it has no id (runs are not audit lines, so they are not replayed)."""
    with server.client(server.tokens["write"]) as writer:
        assert writer.post("/api/v1/tools", json={"definition": compute_tool("counted")}).status_code == 201

    def run_twice() -> None:
        with server.client(server.tokens["run"]) as runner:
            assert runner.post("/api/v1/tools/counted/execute", json={"args": {"x": 2}}).status_code == 200
        with Registry(server.registry) as elsewhere:  # another process than the server's
            assert elsewhere.run("counted", {"x": 3}) == 6

    runs = 0
    quiet = httpx.Timeout(30, read=10)  # past heartbeats: a stream that never tells of the runs fails
    with server.client(server.tokens["read"]) as reader, reader.stream("GET", EVENTS, timeout=quiet) as response:
        in_background(run_twice)
        for event in events_of(response):
            if event["event"] == "executed" and event["tool"] == "counted":
                assert set(event) == {"event", "tool", "action", "runs", "at"} and event["at"].endswith("Z")
                runs += event["runs"]
                if runs >= 2:
                    break
    assert runs == 2
