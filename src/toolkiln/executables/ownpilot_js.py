"""JavaScript script tools' own module, `require("toolkiln/utils")`, and the body of a tool
made from an OwnPilot custom tool.

Every `javascript` run finds toolkiln's `utils` (toolkiln_utils.js) beside its program, at
node_modules/toolkiln/utils.js (`JS_MODULES`: the sandbox binds it read-only). An OwnPilot
tool's `code` (the body of an async function of `args`, with `utils` and `fetch` in scope,
returning the result) runs inside `utils.run`, which reads the arguments from stdin and prints
the result as JSON. Only text is put together here, and nothing runs; the tool's own code is
never changed. What `utils` reads of the run's environment:

- TOOLKILN_NETWORK: "1" in a run that has the network (`fetch` exists only then);
- TOOLKILN_SECRETS: the names of the secrets the tool declares (`getApiKey` reads only those);
- TOOLKILN_CHANNEL and TOOLKILN_SEEDED: the run's channel to toolkiln (channel.py).
"""

from __future__ import annotations

from importlib import resources

UTILS_FILE = "toolkiln_utils.js"
UTILS_MODULE = "node_modules/toolkiln/utils.js"  # beside the program: require("toolkiln/utils")
NETWORK_ENV = "TOOLKILN_NETWORK"  # "1" in a run that has the network (program_runs.py)
SECRETS_ENV = "TOOLKILN_SECRETS"  # the declared secrets' names, comma-separated
SEEDED_ENV = "TOOLKILN_SEEDED"  # "1": uuid and randomInt ask the caller's (seeded) random source


def utils_source() -> bytes:
    return resources.files("toolkiln.executables").joinpath(UTILS_FILE).read_bytes()


def js_modules() -> dict[str, bytes]:
    """The files a javascript run finds beside its program (relative path: content)."""
    return {UTILS_MODULE: utils_source()}


def ownpilot_body(code: str) -> str:
    """The script body running OwnPilot's `code` with toolkiln's `utils` and `fetch`."""
    return _RUN_BEFORE + code + _RUN_AFTER


_RUN_BEFORE = """"use strict";
const utils = require("toolkiln/utils");
utils.run(async (args) => {
  const fetch = utils.fetch; // (the tool's name for it; globalThis.fetch is not touched)
// --- the tool's code, as OwnPilot stored it ---
"""

_RUN_AFTER = """
// --- end of the tool's code ---
});
"""
