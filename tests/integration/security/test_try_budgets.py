"""Red team: `try ... catch` (issue 31) cannot catch a budget, through a real `toolkiln serve`.

A tool sent to the server wraps work over its budget in `try`, hoping the handler answers
instead: the run must still stop with the budget's code (E0503 operations, E0505 a list's length), the
handler's value must not come back, and the server answers /health meanwhile. On the main
before `try` existed these definitions did not compile (the words were no syntax)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_server_support import ServerProcess, make_tokens

OVER_OPERATIONS = (
    'tool greedy(n: integer) description "Sums a lot, hoping try swallows the budget" {\n'
    '  return try sum([x * 2 for x in range(n)]) catch e: "caught"\n'
    "}"
)
# A list past max_list_length (a limit, E0505): deterministic on any machine, where a time limit
# is not (an idle machine hashes 90,000 texts within the second the load of CI needed; the
# time limit inside `try` is tested in-process: test_try_catch.py::test_a_time_limit_reached_inside_try_still_stops_the_run).
OVER_LIMIT = (
    'tool long(n: integer) description "Builds a list past its limit, hoping try swallows it" {\n'
    '  return try len([sha256(text(x)) for x in range(n)]) catch e: "caught"\n'
    "}"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    registry = tmp_path_factory.mktemp("try") / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry)
    process.tokens = tokens
    # The first check a server makes imports the compiler (and parses `try` with Lark); on a
    # busy machine that alone can pass the 2 s a check may take (R0305): warm it up first.
    with process.client(tokens["admin"]) as client:
        for _ in range(5):
            warm = client.post("/api/v1/tools/test", json={"definition": OVER_OPERATIONS, "args": {"n": 1}})
            if warm.status_code == 200:
                break
    yield process
    process.stop()


@pytest.mark.parametrize(
    ("definition", "n", "code"),
    [(OVER_OPERATIONS, 2_000_000, "E0503"), (OVER_LIMIT, 200_000, "E0505")],
    ids=["operations", "list length"],
)
def test_a_budget_reached_inside_try_still_stops_the_run(server: ServerProcess, definition: str, n: int, code: str):
    with server.client(server.tokens["admin"]) as client:
        small = client.post("/api/v1/tools/test", json={"definition": definition, "args": {"n": 3}})
        assert small.status_code == 200 and "caught" not in small.text, small.text[:300]
        answer = client.post("/api/v1/tools/test", json={"definition": definition, "args": {"n": n}})
        assert client.get("/health").status_code == 200
    assert code in answer.text, answer.text[:500]
    assert "caught" not in answer.text, answer.text[:500]
