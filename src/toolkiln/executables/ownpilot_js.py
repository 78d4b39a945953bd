"""The body of a `javascript` script tool made from an OwnPilot custom tool: OwnPilot's `code`
(the body of an async function of `args`, with `utils` and `fetch` in scope, returning the
result) inside a program that reads the arguments from stdin and prints the result as JSON.

Only text is put together here, and nothing runs: Node runs the body in the sandbox, as any
script's. The tool's own code is never changed; what surrounds it is toolkiln's:

- `utils` (ownpilot_utils.js, toolkiln's own helpers of OwnPilot's names);
- `fetch` only when the run has the network (read from the run's environment, so that an
  update of `network` needs no new body) (toolkiln's, on Node's http and https modules:
  Node's own needs WebAssembly, which --jitless turns off; `ok`, `status`, `headers.get`,
  `text()`, `json()`); otherwise a function that says why it fails;
- `console.log` and its kin write to stderr: stdout holds only the result.
"""

from __future__ import annotations

import json
from importlib import resources

UTILS_FILE = "ownpilot_utils.js"
NETWORK_ENV = "TOOLKILN_NETWORK"  # "1" in a run that has the network (program_runs.py)


def utils_source() -> str:
    return resources.files("toolkiln.executables").joinpath(UTILS_FILE).read_text(encoding="utf-8")


def ownpilot_body(code: str, api_keys: dict[str, str]) -> str:
    """The script body running OwnPilot's `code`; `api_keys` maps each `requiredApiKeys` name
    to the secret (environment variable) that holds it, for `utils.getApiKey(name)`."""
    # json.dumps writes a JavaScript literal of the same data (ES2019 takes U+2028 in strings).
    prelude = (
        '"use strict";\n'
        f"const API_KEYS = Object.freeze({json.dumps(api_keys, sort_keys=True)});\n"
        f'const NETWORK = process.env.{NETWORK_ENV} === "1";\n'
    )
    return prelude + utils_source() + _RUN_BEFORE + code + _RUN_AFTER


_RUN_BEFORE = """
for (const name of ["log", "info", "debug", "warn"]) console[name] = console.error;
// Node's own fetch (undici) needs WebAssembly, which --jitless turns off: a small fetch on the
// http and https modules instead, the tool's own name for it (globalThis.fetch is not touched).
const toolFetch = !NETWORK
  ? async () => {
      throw new Error("fetch needs the network permission, which this tool does not have");
    }
  : (url, options = {}) =>
      new Promise((resolve, reject) => {
        const target = new URL(String(url));
        const client = require(target.protocol === "https:" ? "https" : "http");
        const request = client.request(
          target,
          { method: options.method || "GET", headers: options.headers || {} },
          (response) => {
            const parts = [];
            response.on("data", (part) => parts.push(part));
            response.on("end", () => {
              const body = Buffer.concat(parts).toString("utf8");
              resolve({
                ok: response.statusCode >= 200 && response.statusCode < 300,
                status: response.statusCode,
                statusText: response.statusMessage,
                headers: { get: (name) => response.headers[String(name).toLowerCase()] ?? null },
                text: async () => body,
                json: async () => JSON.parse(body),
              });
            });
          },
        );
        request.on("error", reject);
        if (options.body !== undefined) request.write(String(options.body));
        request.end();
      });
const args = JSON.parse(require("fs").readFileSync(0, "utf8") || "{}");
(async (args, utils, fetch) => {
// --- the tool's code, as OwnPilot stored it ---
"""

_RUN_AFTER = """
// --- end of the tool's code ---
})(args, utils, toolFetch).then(
  (value) => process.stdout.write(JSON.stringify(value === undefined ? null : value)),
  (error) => {
    process.stderr.write(String((error && error.stack) || error) + "\\n");
    process.exitCode = 1;
  },
);
"""
