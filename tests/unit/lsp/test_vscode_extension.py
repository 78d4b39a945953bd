"""editors/vscode: its manifest names what the extension contributes, and its extension.js,
run by Node with stand-ins for `vscode` and `vscode-languageclient` (no build, no VS Code),
starts `toolkiln lsp` over stdio for .tk, .wf and the JSON tool files of the setting."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[3] / "editors" / "vscode"
NODE = shutil.which("node")

# Node runs extension.js with the two modules it requires answered by stand-ins that record
# what the extension asks of them, then prints what the LanguageClient was made with.
_STANDINS = r"""
const Module = require("module");
const made = [];
const standins = {
  vscode: { workspace: { getConfiguration: () => ({ get: (key, fallback) => (key === "jsonFiles" ? ["**/rules/*.json"] : fallback) }) } },
  "vscode-languageclient/node": {
    TransportKind: { stdio: 0 },
    LanguageClient: class { constructor(...args) { made.push(args); } start() { return Promise.resolve("started"); } stop() {} },
  },
};
const load = Module._load;
Module._load = (name, ...rest) => (name in standins ? standins[name] : load(name, ...rest));
const extension = require(process.argv[1]);
const context = { subscriptions: [] };
extension.activate(context).then((started) => {
  console.log(JSON.stringify({ started, made, subscriptions: context.subscriptions.length }));
});
"""


def test_the_manifest_contributes_the_languages_and_starts_from_extension_js() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    assert (EXTENSION / manifest["main"]).is_file()
    languages = {language["id"]: language["extensions"] for language in manifest["contributes"]["languages"]}
    assert languages == {"toolkiln": [".tk"], "toolkiln-workflow": [".wf"]}
    assert "vscode-languageclient" in manifest["dependencies"]
    settings = manifest["contributes"]["configuration"]["properties"]
    assert settings["toolkiln.command"]["default"] == ["toolkiln", "lsp"]


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
def test_activating_starts_toolkiln_lsp_over_stdio_for_the_files_of_the_settings() -> None:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", _STANDINS, str(EXTENSION / "extension.js")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    [(client_id, name, server, options)] = report["made"]
    assert (client_id, report["started"], report["subscriptions"]) == ("toolkiln", "started", 1)
    assert server == {"command": "toolkiln", "args": ["lsp"], "transport": 0}
    assert options["documentSelector"] == [
        {"scheme": "file", "language": "toolkiln"},
        {"scheme": "file", "language": "toolkiln-workflow"},
        {"scheme": "file", "language": "json", "pattern": "**/rules/*.json"},
    ]
