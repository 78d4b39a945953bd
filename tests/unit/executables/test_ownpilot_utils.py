"""toolkiln's `utils` for javascript tools (executables/toolkiln_utils.js, found beside the
program as node_modules/toolkiln/utils.js) and the program around an imported OwnPilot tool's
code, run by the machine's Node as the sandbox runs it (the same flags and files; the sandbox
itself is tests/integration/peers/test_ownpilot_javascript.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from toolkiln.executables.ownpilot_js import NETWORK_ENV, SECRETS_ENV, js_modules, ownpilot_body
from toolkiln.executables.program_tools import SHEBANGS

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no node on PATH")
FLAGS = SHEBANGS["javascript"].split()[3:]  # after '#!/usr/bin/env -S node'


def run(code: str, env: dict[str, str] | None = None, args: str = "{}") -> subprocess.CompletedProcess[str]:
    """Node running the imported tool's program as a file, with toolkiln's modules beside it."""
    assert NODE is not None
    with tempfile.TemporaryDirectory() as folder:
        for path, data in {"tool.js": ownpilot_body(code).encode(), **js_modules()}.items():
            (Path(folder) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / path).write_bytes(data)
        return subprocess.run(
            [NODE, *FLAGS, str(Path(folder) / "tool.js")],
            input=args,
            capture_output=True,
            text=True,
            env={NETWORK_ENV: "0", SECRETS_ENV: "", **(env or {})},
            timeout=60,
        )


def answer(code: str, env: dict[str, str] | None = None, args: str = "{}") -> object:
    done = run(code, env, args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_text_helpers_answer_as_documented():
    code = """return [
      utils.slugify("Crème Brûlée, for 2!"), utils.camelCase("invoice total"), utils.camelCase("invoiceTotal"),
      utils.snakeCase("Hello, World!"), utils.kebabCase("a__b"), utils.truncate("abcdefghij", 6),
      utils.truncate("short", 10), utils.countWords("one, two  three"), utils.removeDiacritics("Ångström"),
      utils.capitalize("word"), utils.urlEncode("a b&c"), utils.base64Encode("hé"), utils.base64Decode("aMOp"),
    ];"""
    assert answer(code) == [
        "creme-brulee-for-2",
        "invoiceTotal",
        "invoiceTotal",
        "hello_world",
        "a-b",
        "abc...",
        "short",
        3,
        "Angstrom",
        "Word",
        "a%20b%26c",
        "aMOp",
        "hé",
    ]


def test_the_data_helpers_answer_as_documented():
    code = """return [
      utils.isJson("[1,]"), utils.parseJson("{\\"a\\": 1}"), utils.parseJson("nope"), utils.toJson({a: [1]}),
      utils.isUuid(utils.uuid()), utils.isUuid("not"), utils.chunk([1, 2, 3], 2), utils.unique([1, 1, 2]),
      utils.sum([1, "2", "x"]), utils.avg([]), utils.round(2.345, 2), utils.parseCsv("name,qty\\n bolt , 4\\n\\"a,b\\""),
      utils.isEmail("a@b.co"), utils.isUrl("ftp://x"), utils.randomInt(5, 5), typeof utils.now(),
    ];"""
    assert answer(code) == [
        False,
        {"a": 1},
        None,
        '{"a":[1]}',
        True,
        False,
        [[1, 2], [3]],
        [1, 2],
        3,
        0,
        2.35,
        [{"name": "bolt", "qty": "4"}, {"name": "a,b", "qty": ""}],
        True,
        False,
        5,
        "string",
    ]


def test_an_api_key_is_read_from_a_declared_secret_only():
    code = "return [utils.getApiKey('weatherapi'), utils.getApiKey('other'), typeof process.env.OTHER];"
    found = answer(code, env={SECRETS_ENV: "WEATHERAPI", "WEATHERAPI": "k1", "OTHER": "k2"})
    assert found == ["k1", None, "string"]


def test_the_tool_gets_its_arguments():
    assert answer("return utils.slugify(args.title);", args='{"title": "Hello, World"}') == "hello-world"


def test_stdout_holds_only_the_result_and_a_failure_is_an_exit_status():
    done = run("console.log('noise'); console.info('more'); return {a: 1};")
    assert (done.returncode, json.loads(done.stdout)) == (0, {"a": 1}) and "noise" in done.stderr
    failed = run("throw new Error('no such city');")
    assert failed.returncode == 1 and failed.stdout == "" and "no such city" in failed.stderr


def test_fetch_without_the_network_says_why_and_calltool_needs_the_runs_channel():
    done = run("await fetch('http://127.0.0.1:9/'); return 1;")
    assert done.returncode == 1 and "fetch needs the network permission" in done.stderr
    called = run("return await utils.callTool('web_fetch', {});")
    assert called.returncode == 1 and "this run has no channel to toolkiln" in called.stderr
