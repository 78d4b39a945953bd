// The toolkiln extension: starts `toolkiln lsp` (stdio) for .tk, .wf and the JSON tool files
// the settings name. Plain JavaScript, no build step: `npm install` here, then run it.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function documentSelector(jsonFiles) {
  return [
    { scheme: "file", language: "toolkiln" },
    { scheme: "file", language: "toolkiln-workflow" },
    ...jsonFiles.map((pattern) => ({ scheme: "file", language: "json", pattern })),
  ];
}

function activate(context) {
  const settings = vscode.workspace.getConfiguration("toolkiln");
  const [command, ...args] = settings.get("command", ["toolkiln", "lsp"]);
  const server = { command, args, transport: TransportKind.stdio };
  const options = { documentSelector: documentSelector(settings.get("jsonFiles", ["**/tools/*.json"])) };
  client = new LanguageClient("toolkiln", "toolkiln", server, options);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
