"""Executables and their sandbox (R06xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- executables and sandbox ---------------------------------------------------------------
# The codes of `toolkiln.executables` (src/toolkiln/executables/) and `toolkiln trust`.

SANDBOX_UNAVAILABLE = register(
    "R0601",
    "sandbox-unavailable",
    "The bubblewrap sandbox cannot run",
    """
An executable tool was to run under bubblewrap (`sandbox="bubblewrap"`, the default), but
`bwrap` is not installed or cannot create its namespaces here. Nothing ran. Install it
(`apt-get install bubblewrap`, or `bash scripts/sandbox-install.sh` in a checkout). A tool
you wrote yourself may run without namespaces only when you ask for it by name:

    run_program(program, "run", policy=SandboxPolicy())                 # error: no bwrap
    run_program(program, "run", policy=SandboxPolicy(sandbox="none"))   # your choice, said aloud
""",
)

UNTRUSTED_EXECUTABLE = register(
    "R0602",
    "untrusted-executable",
    "Executable not trusted",
    """
A file in a project's tool folder (`./toolkiln-tools`) is executed, even to read its
description, only once you have trusted that folder, and only while the file is the one you
trusted (the same SHA-256). The file is new, changed, or its folder was never trusted.
Read it, then trust the folder again:

    toolkiln trust ./toolkiln-tools
""",
)

INVALID_TOOL_ARGUMENTS = register(
    "R0603",
    "invalid-tool-arguments",
    "Arguments do not match the tool's input schema",
    """
The arguments of an executable tool are checked against the `input_schema` of its
description before anything runs. They must be a JSON object that the schema accepts, at most
64 KiB as JSON. The message names the property and the rule it broke.

    {"city": 12}        # error: 12 is not of type 'string'
    {"city": "Lyon"}    # fixed
""",
)

BAD_TOOL_DESCRIPTION = register(
    "R0604",
    "bad-tool-description",
    "The tool's description is not valid",
    """
`TOOL description` must print one JSON object with `name` (the file's name without its
extension), `description` (text) and `input_schema` (a valid JSON Schema of an object), and
exit 0 within the time limit. What it printed is not that; the message says what is wrong.

    {"name": "hello", "description": "Greets someone.",
     "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}}}
""",
)

EXECUTABLE_NOT_FOUND = register(
    "R0605",
    "executable-not-found",
    "No executable tool by that name",
    """
No executable file of that name is in the tool folders: `$TOOLKILN_HOME/tools` (yours) and
`./toolkiln-tools` (the project's). A tool's name is its file's name without the extension;
the file must be executable (`chmod +x`). A model sees it as `custom_tool_<name>`. The
same code is given for a tool file that cannot be read, and, with the same message whatever
the cause, for a path outside the folders executables may come from (`--allow executables=DIR`).
""",
)

TRUST_STORE_ERROR = register(
    "R0606",
    "trust-store-error",
    "The trusted folders cannot be read or changed",
    """
`toolkiln trust` keeps the folders you trusted, with the SHA-256 of each file, in
`$TOOLKILN_HOME/trusted-folders.json` (mode 0600). The folder to trust does not exist or is not
a folder, or that file cannot be read, parsed or written. Nothing was trusted. A damaged file
can be removed: every project folder is then untrusted until you trust it again.
""",
)

INVALID_SANDBOX_POLICY = register(
    "R0607",
    "invalid-sandbox-policy",
    "Invalid sandbox settings",
    """
A sandbox setting is out of range: the sandbox is `bubblewrap` or `none`; a time limit is
more than 0 and at most 3600 seconds; memory, processes, file size and the output cap are
positive whole numbers; an environment name is letters, digits and `_`; a path to bind is
absolute. A program's name (it becomes a file name in the sandbox) is letters, digits, `_`,
`.` and `-`, not starting with `.` or `-`.
""",
)

INVALID_PROGRAM_TOOL = register(
    "R0608",
    "invalid-program-tool",
    "Invalid script or executable tool definition",
    """
A registered script tool (`"kind": "script"`) or executable tool (`"kind": "executable"`)
has a field the registry cannot take. A script names its `runtime` (`bash`, `python` or `javascript`) and
its `body` (the program text); an executable names the absolute `path` of its file (the
registry pins the file's SHA-256 when it is created). Both may give `parameters` (a JSON
Schema with `"type": "object"`), `policy` (`allow`, `deny` or `elevated`), `network`
(`true` or `false`), `timeout_secs` (more than 0, at most 3600) and `sandbox`
(`bubblewrap` or `none`). The message names the field.

    {"kind": "script", "name": "greet", "description": "Greets someone.",
     "runtime": "python", "body": "import json, sys\\nprint(json.load(sys.stdin)['who'])",
     "parameters": {"type": "object", "properties": {"who": {"type": "string"}},
                    "required": ["who"]}}
""",
)

EXECUTABLE_CHANGED = register(
    "R0609",
    "executable-changed",
    "The executable's file changed since it was approved",
    """
A registered executable tool is pinned to the SHA-256 of its file. The file on disk is no
longer that file (or it is gone), so it was not run. Read the new file; if you want it, pin
it again and approve it (a new version of an executable tool always waits for approval):

    toolkiln tools repin NAME
    toolkiln tools approve NAME
""",
)

PROGRAM_DENIED = register(
    "R0610",
    "program-denied",
    "The tool's policy is deny",
    """
A script or executable tool whose `policy` is `deny` is kept in the registry but never runs,
whatever its status. Update its policy to `allow` (or `elevated`) to run it again.
""",
)

PROGRAM_FAILED = register(
    "R0611",
    "program-failed",
    "The program of a script or executable tool failed",
    """
The tool's program ran (the message names the sandbox that ran it) and failed: it exited
with a status other than 0, printed an error object `{"error": ..., "details": ...}`, was
killed at its time limit, or wrote more than the output cap. The hint holds the start of
what it wrote to stderr, or the details it gave.
""",
)

UNSANDBOXED_MODEL_TOOL = register(
    "R0612",
    "unsandboxed-model-tool",
    "A model's tool may not run outside the sandbox",
    """
`"sandbox": "none"` runs a program as a plain process (limits, a private folder and a
cleared environment, but no namespaces). Only a person may ask for that: a script or
executable tool created or changed by a model (`created_by: "llm"`) runs in bubblewrap or
not at all. Leave `sandbox` out (it defaults to `bubblewrap`), or have a person create the tool.
""",
)

UNSAFE_EXECUTABLE_FILE = register(
    "R0613",
    "unsafe-executable-file",
    "The executable's path is not a regular file",
    """
An executable tool's `path` must be the absolute path of a regular file of at most 64 MiB.
It is opened without following a link and without waiting, and checked before a byte is
read: a symbolic link (give its target), a FIFO, a device (`/dev/zero`, `/dev/ptmx`), a
socket or a folder is refused, and so is a relative path. Nothing was read or run.

    {"kind": "executable", "path": "/dev/ptmx", ...}              # error: a device
    {"kind": "executable", "path": "/opt/tools/git_info", ...}    # a regular file
""",
)

NOT_A_PROGRAM = register(
    "R0614",
    "not-a-program",
    "The file is not a program",
    """
A program's file must start with an interpreter line (`#!/usr/bin/env python3`) or be an ELF
binary. Any other file would be handed to `/bin/sh`, which runs it line by line and quotes
each line it cannot run in its errors, so a text file (a secret one) is refused instead, and
its content is never quoted. Add the interpreter line the file needs.
""",
)

TOOL_CALL_LIMIT = register(
    "R0615",
    "tool-call-limit",
    "A tool's request to toolkiln is past its channel's bounds",
    """
A javascript tool asks toolkiln for something (`utils.callTool`, a seeded `utils.uuid`)
through its run's channel, which has bounds: at most 32 calls of other tools per run, each
request one line of JSON of at most 64 KiB, each answer at most 1 MiB, at most 10,000
requests. A call past the count, an answer past its size, or a request of no known shape
(not JSON, not `{"call": name, "args": {...}}`, a draw with no whole `lo` <= `hi`) is
refused with this code; a request past its size, or past 10,000, closes the channel (the
tool's next request fails: "toolkiln closed this run's channel"). Make fewer calls, or ask
for less in one.
""",
)

TOOL_CALL_TOO_DEEP = register(
    "R0616",
    "tool-call-too-deep",
    "Tools called by tools, too deep",
    """
A tool that another tool called (`utils.callTool`) may call tools in turn, at most 4 deep:
the tool a caller ran, a tool it calls, one that one calls, and one more. The next call is
refused with this code, so that tools that call each other cannot recurse without end.
Flatten the chain, or make the innermost work a compute tool's `call` steps.
""",
)

TOOL_CALL_WITHOUT_CALLER = register(
    "R0617",
    "tool-call-without-caller",
    "A tool called another outside a call made for someone",
    """
`utils.callTool` calls another tool as whoever called the tool that runs (its principal and
tenant, never more), so it works only in a run made through `Registry.invoke`: the REST
API, MCP, the web page, an agent loop, `toolkiln tools run`. A run through `Registry.run`
(Python's fast path, which knows no principal) has no one to call as, and the call is
refused with this code. Run the outer tool through `invoke`.
""",
)
