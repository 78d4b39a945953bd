"""The `javascript` runtime of script tools: Node (the machine's) in the same bubblewrap
sandbox and limits as bash and python; arguments as data, no network unless granted, the
resource limits hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_program_tools import script as program_script

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.registry.registry import Registry

pytestmark = pytest.mark.usefixtures("bwrap_installed")

ECHO_JS = """let input = "";
process.stdin.on("data", (part) => (input += part));
process.stdin.on("end", () => {
  const args = JSON.parse(input);
  console.log(JSON.stringify({ shout: args.text.toUpperCase(), env: JSON.parse(process.env.TK_ARG_TEXT) }));
});
"""


def script(name: str, body: str, **fields: object) -> dict[str, object]:
    return program_script(name, body, runtime="javascript", **fields)


@pytest.fixture
def reg(tmp_path: Path) -> Iterator[Registry]:
    with Registry(tmp_path / "registry", durable=False, usage_flush_seconds=0) as registry:
        yield registry


def test_a_javascript_script_runs_in_bubblewrap_with_its_arguments_as_data(reg: Registry):
    reg.create(script("shout", ECHO_JS))
    attack = '`${process.exit(3)}` "); process.exit(4); ("'
    result = reg.run("shout", {"text": attack})
    assert result["sandbox"] == "bubblewrap"
    assert result["output"] == {"shout": attack.upper(), "env": attack}


def test_a_javascript_script_sees_no_user_files_and_no_network(reg: Registry, tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("a user's file", encoding="utf-8")
    body = """const fs = require("fs");
const net = require("net");
const args = JSON.parse(fs.readFileSync(0, "utf8"));
const home = (() => { try { return fs.readFileSync(args.text, "utf8"); } catch (e) { return e.code; } })();
const etc = fs.existsSync("/etc/shadow");
const socket = net.connect(9, "127.0.0.1");
socket.on("error", (e) => console.log(JSON.stringify({ home, etc, net: e.code })));
socket.on("connect", () => { console.log(JSON.stringify({ home, etc, net: "connected" })); socket.destroy(); });
"""
    reg.create(script("peek", body))
    output = reg.run("peek", {"text": str(secret)})["output"]
    assert output["home"] == "ENOENT" and output["etc"] is False
    assert output["net"] != "connected"


def test_a_javascript_script_is_held_to_its_memory_and_time(reg: Registry):
    hog = "const keep = []; for (;;) keep.push(new Array(1e6).fill(1));\n"
    reg.create(script("hog", hog, timeout_secs=20))
    with pytest.raises(RunError) as raised:
        reg.run("hog", {"text": "x"})  # V8 aborts at its heap limit, under the 512 MiB RLIMIT_AS
    assert raised.value.code == codes.PROGRAM_FAILED.code and "exited with status" in raised.value.message
    reg.create(script("spin", "for (;;) {}\n", timeout_secs=2))
    with pytest.raises(RunError) as spun:
        reg.run("spin", {"text": "x"})
    assert spun.value.code == codes.PROGRAM_FAILED.code and "timed out after 2.0 s" in spun.value.message
