"""The language server never runs a tool: a whole session (open, change, quick fix, hover,
completion, formatting, definition of a called tool that is registered) goes through
`toolkiln.lsp.server.serve` in a fresh interpreter, and afterwards nothing that runs programs
was even imported: not the interpreter, the optimizer, Tool, the sandbox and executables, the
registry's runs, the model clients or the server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUNNERS = (
    "toolkiln.interpret",
    "toolkiln.optimize",
    "toolkiln.tool",
    "toolkiln.executables",
    "toolkiln.registry.registry",
    "toolkiln.registry.kinds",
    "toolkiln.registry.runs",
    "toolkiln.llm",
    "toolkiln.server",
    "toolkiln.io.pool",
)

_SESSION = r"""
import io, json, sys
from pathlib import Path
folder = Path(sys.argv[1])
uri = (folder / "caller.tk").as_uri()
text = 'tool caller(n: number)\ndescription "C"\n{\n  c = call price(x = n)\n  ok = n > 1 && n < 3\n  return round(c)\n}\n'
at = lambda line, character: {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
messages = [
    {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}}},
    {"method": "initialized", "params": {}},
    {"method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "toolkiln", "version": 1, "text": text}}},
    {"id": 2, "method": "textDocument/codeAction", "params": {"textDocument": {"uri": uri}, "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 30}}, "context": {"diagnostics": []}}},
    {"method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text.replace("&&", "and")}]}},
    {"id": 3, "method": "textDocument/hover", "params": at(5, 10)},
    {"id": 4, "method": "textDocument/completion", "params": at(5, 2)},
    {"id": 5, "method": "textDocument/formatting", "params": {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}},
    {"id": 6, "method": "textDocument/definition", "params": at(3, 14)},
    {"id": 7, "method": "shutdown", "params": None},
    {"method": "exit", "params": None},
]
stream = b""
for message in messages:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    stream += b"Content-Length: %d\r\n\r\n" % len(body) + body
class Output(io.BytesIO):
    def close(self):  # the server closes its output at exit: keep what it wrote
        self.written = self.getvalue()
out = Output()
from toolkiln.lsp.server import Settings, serve
serve(Settings(registry=folder / "registry"), stdin=io.BytesIO(stream), stdout=out)
answers = {}
for chunk in out.written.split(b"Content-Length: ")[1:]:
    message = json.loads(chunk.split(b"\r\n\r\n", 1)[1])
    if "id" in message:
        answers[message["id"]] = message.get("result", message.get("error"))
print(json.dumps({"answers": answers, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_a_whole_session_imports_nothing_that_runs_a_program(tmp_path: Path) -> None:
    record = tmp_path / "registry" / "tools" / "price.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"kind": "script", "language": "bash", "body": "touch /tmp/ran"}')
    done = subprocess.run([sys.executable, "-c", _SESSION, str(tmp_path)], capture_output=True, text=True, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    answers = report["answers"]
    assert any(action["kind"] == "quickfix" for action in answers["2"])
    assert "round(x, digits?)" in answers["3"]["contents"]["value"]
    assert {"n", "round"} <= {item["label"] for item in answers["4"]}
    assert answers["6"]["uri"] == record.resolve().as_uri()  # found, and only found
    loaded = [name for name in report["modules"] if name.startswith(RUNNERS)]
    assert loaded == []
