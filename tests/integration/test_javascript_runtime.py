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
from toolkiln.executables.ownpilot_js import js_modules
from toolkiln.executables.policy import SandboxPolicy
from toolkiln.executables.program_tools import SHEBANGS
from toolkiln.executables.runner import run_program
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


HANDWRITTEN_JS = """const utils = require("toolkiln/utils");
utils.run(async (args) => {
  console.log("a note for stderr");
  const fetched = await utils.fetch("http://127.0.0.1:9/").then(() => "fetched", (error) => error.message);
  return { slug: utils.slugify(args.text), words: utils.countWords(args.text), id: utils.isUuid(utils.uuid()), fetched };
});
"""


def test_a_handwritten_javascript_tool_requires_toolkilns_utils(reg: Registry):
    reg.create(script("slug", HANDWRITTEN_JS))
    result = reg.run("slug", {"text": "Crème Brûlée for two"})
    assert result["sandbox"] == "bubblewrap" and "a note for stderr" in result["stderr"]
    assert result["output"] == {
        "slug": "creme-brulee-for-two",
        "words": 4,
        "id": True,
        "fetched": "fetch needs the network permission, which this tool does not have",
    }


def test_the_utils_module_is_read_only_in_the_sandbox(reg: Registry):
    body = """const fs = require("fs");
const file = require.resolve("toolkiln/utils");
let wrote;
try { fs.writeFileSync(file, "module.exports = 1;"); wrote = "wrote"; } catch (error) { wrote = error.code; }
console.log(JSON.stringify({ file, wrote }));
"""
    reg.create(script("tamper", body))
    assert reg.run("tamper", {"text": "x"})["output"] == {
        "file": "/run/toolkiln/node_modules/toolkiln/utils.js",
        "wrote": "EROFS",
    }


def test_an_unsandboxed_javascript_run_finds_the_utils_module_too(tmp_path: Path):
    body = 'const utils = require("toolkiln/utils");\nutils.run((args) => utils.kebabCase(args.text));\n'
    program = (SHEBANGS["javascript"] + body).encode()
    policy = SandboxPolicy(sandbox="none")
    result = run_program("kebab", program, [], stdin=b'{"text": "Hello World"}', policy=policy, beside=js_modules())
    assert (result.exit_code, result.stdout) == (0, '"hello-world"'), result.stderr
