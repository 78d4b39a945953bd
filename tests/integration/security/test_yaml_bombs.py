"""Red team: a skill's YAML front matter through a real `toolkiln serve` (the sweep of issue 32).

A definition that is text starting with `---` is read as a `.skill` file. Its YAML may name a
value once (`&a`) and repeat it (`*a`): six lines of aliases are a million values, which the
server expanded while saving (on the main of 2026-11-28: 201 after 6 s, the server 230 MiB
larger, 76 MB written; nine lines ran it out of memory). Aliases are now refused (R0608)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_server_support import ServerProcess, served_registry


def yaml_bomb(levels: int) -> str:
    """A skill whose parameters hold 10**levels strings, written in a few hundred bytes."""
    lists = ["&a0 [x, x, x, x, x, x, x, x, x, x]"]
    lists += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    enum = "[" + ", ".join(lists) + "]"
    front = f"name: bomb\ndescription: d\nruntime: python\nparameters: {{type: object, properties: {{t: {{enum: {enum}}}}}}}"
    return f"---\n{front}\n---\nprint(1)\n"


def peak_mib(server: ServerProcess) -> int:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) // 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served_registry(tmp_path_factory.mktemp("yaml"))


def test_a_yaml_bomb_is_refused_unexpanded_and_saves_nothing(server: ServerProcess) -> None:
    before = peak_mib(server)
    with server.client(server.tokens["write"]) as client:
        answer = client.post("/api/v1/tools", json={"definition": yaml_bomb(6)})
        assert client.get("/health").status_code == 200
        listed = client.get("/api/v1/tools").json()
    assert answer.status_code == 422, answer.text[:300]
    [error] = answer.json()["diagnostics"]
    assert (error["code"], error["line"]) == ("R0608", 5)
    assert "alias" in error["message"]
    assert "bomb" not in str(listed)
    assert peak_mib(server) - before < 64
