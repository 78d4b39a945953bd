"""`toolkiln serve` on a registry in PostgreSQL streams a change made by another process on
the database (another machine, here the test's own registry) on /api/v1/events, as it does for
its own: the event stream reads the database's audit log, which every writer appends to."""

from __future__ import annotations

import json
import threading

from test_server_support import ServerProcess, compute_tool

from toolkiln import Registry
from toolkiln.server.db_tokens import tokens_for

EVENT_SECONDS = 15  # (the stream looks every 0.5 s; a loaded machine may take longer)


def test_the_event_stream_tells_of_a_tool_made_by_another_process(postgres_url, tmp_path):
    with Registry(postgres_url) as reg:
        read = tokens_for(reg._store, reg.location, tmp_path / "state").create("viewer", "read", "person")[0]
    server = ServerProcess(postgres_url, log_dir=tmp_path)
    heard: list[dict] = []
    streaming, done = threading.Event(), threading.Event()

    def listen() -> None:
        with server.client(read) as http, http.stream("GET", "/api/v1/events", timeout=EVENT_SECONDS * 2) as events:
            assert events.status_code == 200
            streaming.set()
            for line in events.iter_lines():
                if line.startswith("data: "):
                    heard.append(json.loads(line.removeprefix("data: ")))
                    if heard[-1]["tool"] == "from_elsewhere":
                        done.set()
                        return

    listener = threading.Thread(target=listen, daemon=True)
    try:
        listener.start()
        assert streaming.wait(EVENT_SECONDS)
        with Registry(postgres_url) as elsewhere:
            elsewhere.create(compute_tool("from_elsewhere"))
        assert done.wait(EVENT_SECONDS), f"no event in {EVENT_SECONDS} s; heard {heard}"
        assert (heard[-1]["action"], heard[-1]["version"]) == ("create", 1)
    finally:
        server.stop()
