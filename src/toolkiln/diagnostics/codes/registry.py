"""The tool registry (R01xx-R04xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- registry -----------------------------------------------------------------------------
# Raised as exceptions by toolkiln.Registry (registry/errors.py), and returned in the same
# shape as diagnostics by its meta-tools.

REGISTRY_ERROR = register(
    "R0100",
    "registry-error",
    "Registry error",
    """
A registry operation failed; the more specific codes below say how.
""",
)

TOOL_NAME_INVALID = register(
    "R0101",
    "invalid-tool-name",
    "Invalid tool name",
    """
A tool name must match `^[a-z][a-z0-9_]{0,63}$` and must not be the name of a meta-tool
(`create_compute_tool`, `create_workflow_tool`, `create_script_tool`, `list_custom_tools`, `test_custom_tool`,
`delete_custom_tool`, `toggle_custom_tool`). Path tricks such as `../x`, `a/b` or a NUL byte are refused here too.
""",
)

TOOL_NOT_FOUND = register(
    "R0102",
    "tool-not-found",
    "Tool not found",
    """
No tool, or no such version of a tool, has that name. `toolkiln tools list` shows them.
""",
)

DUPLICATE_TOOL = register(
    "R0103",
    "duplicate-tool",
    "Tool exists already",
    """
A tool of that name exists already. Change it with `update` (a new version), or choose
another name.
""",
)

INVALID_REQUEST = register(
    "R0104",
    "invalid-request",
    "Invalid request",
    """
An argument the registry cannot act on: an unknown actor (use "user" or "llm"), an unknown
export format, a version that does not exist, a field a tool definition does not have, or a
definition larger than 256 KB.
""",
)

DEPENDENCY_CYCLE = register(
    "R0105",
    "dependency-cycle",
    "Tools would call each other in a cycle",
    """
Saving the tool would make a cycle of `call` steps: the tool calls, directly or through other
tools, a tool that calls it back (or it calls itself). A cycle could never finish, so it is
refused when the tool is saved. The message lists the cycle; break it by removing one call.

    tool a(...) { r = call b(...) ... }      # registered
    tool b(...) { r = call a(...) ... }      # refused: b -> a -> b
""",
)

TOOL_IN_USE = register(
    "R0106",
    "tool-in-use",
    "Tool is called by other tools",
    """
The tool cannot be deleted because other registered tools call it; the message lists them.
Change those tools first, or delete with `force=True` (`--force` on the command line): the
callers then no longer compile. They refuse to run (R0301) and are listed in the registry's
problems (E0211) until a tool of that name is created again and the registry is reloaded
(`reg.refresh()`), or until they are updated not to call it.
""",
)

PERMISSION_DENIED = register(
    "R0201",
    "permission-denied",
    "Permission denied",
    """
The actor may not do this. A model (`by="llm"`) may not delete or change a tool a person
created, and only a person approves or rejects a tool waiting for approval.
""",
)

INVALID_TRANSITION = register(
    "R0202",
    "invalid-transition",
    "Invalid lifecycle transition",
    """
The lifecycle does not allow this action from the tool's status: `approve` and `reject` act
only on a tool in `pending_approval`; `enable` and `disable` only on an approved tool.
""",
)

TOOL_NOT_ACTIVE = register(
    "R0203",
    "tool-not-active",
    "Tool not active",
    """
Only active tools run. A disabled tool can be enabled; a tool waiting for approval must be
approved first.
""",
)

BROKEN_TOOL = register(
    "R0301",
    "broken-tool",
    "Stored tool does not compile",
    """
A stored tool file no longer parses or checks (it was edited by hand, truncated, or the
language changed). A file that does not decode is skipped at start-up; a definition that no
longer checks is found when the tool is first run, called or fetched, or when
`Registry.problems` is asked for (it checks every definition), and skipped from then on. Both
are listed in `Registry.problems` with their diagnostics; fix the file or roll back to a good
version.
""",
)

STORE_ERROR = register(
    "R0302",
    "store-error",
    "Store cannot be read or written",
    """
A file system error, or the registry's lock could not be taken in time (another process
holds it), or the tools a change was checked against kept changing while it was checked (a
change is checked without holding the lock, then confirmed under it: see docs/registry.md).
Check the folder's permissions and free space, then retry.
""",
)

UNSAFE_REGISTRY_FILE = register(
    "R0303",
    "unsafe-registry-file",
    "Not a regular file inside the registry",
    """
The registry reads and writes only regular files inside its own folder. An entry where it
expects one is a symbolic link, a FIFO, a device, a socket or a folder (or a folder on the way
to it is a symbolic link): it is not opened, followed or written through, and it is listed in
`Registry.problems` (`toolkiln tools check`). A change that would write through it is refused.
Remove or replace the entry by hand; toolkiln does not delete what it did not create.

    tools/evil.json -> /etc/passwd        # refused: a symbolic link
    versions/price -> /home/me/elsewhere  # refused: writes would leave the folder
""",
)

REGISTRY_FILE_TOO_LARGE = register(
    "R0304",
    "registry-file-too-large",
    "Registry file too large",
    """
A file in the registry folder is larger than the registry ever writes it (4 MiB for a tool
record or a past version, 16 MiB for usage counts and for a table file). Only the first bytes
are read, to tell; the file is skipped and listed in `Registry.problems`. Restore it from
version control, or delete it.
""",
)

DATABASE_UNREACHABLE = register(
    "R0306",
    "database-unreachable",
    "Registry database cannot be reached",
    """
A registry named by a `postgresql://` URL: no PostgreSQL answered at its host and port (nothing
listens there, the name does not resolve, or it did not answer in time). The message names the
URL without its password. Check that the server runs and that the host and port are right.

    toolkiln tools list --registry postgresql://kiln@db.internal:5432/tools
""",
)

DATABASE_LOGIN_REFUSED = register(
    "R0307",
    "database-login-refused",
    "Registry database refused the login",
    """
PostgreSQL answered but refused to let the URL's user in: a wrong password, a user or database
that does not exist, or no `pg_hba.conf` line allows this client. The message says which, as
PostgreSQL said it, and never prints the password. Fix the URL (or `~/.pgpass`), or ask the
database's administrator for the user and database.
""",
)

DATABASE_SCHEMA_VERSION = register(
    "R0308",
    "database-schema-version",
    "Registry database has another schema version",
    """
The registry's tables in the database were made by a toolkiln of another version. An older
schema is upgraded on purpose, once, with no server using it (`toolkiln registry upgrade`); a
newer one needs a newer toolkiln. A server never changes the schema silently at start-up.
""",
)

CHECK_TOO_SLOW = register(
    "R0305",
    "check-too-slow",
    "Check took longer than its budget",
    """
A check that saves nothing (REST `POST /api/v1/tools/validate` and `/tools/test`, the web
page's editor, the `test_custom_tool` meta-tool) has a total time budget: twice the registry's
`max_seconds` (2 s by default) for compiling the definition, reading an executable's file and
running all its examples. Past it the check stops with this error, so that a request never
holds a thread for long. Make the examples fewer or faster; an executable tool's `path` must
be a regular file that can be read at once. Creating or updating the tool checks it without
this budget (every example still within `max_seconds`).
""",
)

# --- registry: workflow tools on n8n ----------------------------------------------------------
# Raised by the registry when a workflow tool is deployed to n8n or run through its webhook.

N8N_NOT_CONFIGURED = register(
    "R0401",
    "n8n-not-configured",
    "No n8n server configured",
    """
A workflow tool needs an n8n server to be deployed to, and an API key to deploy it. Give the
registry a client (`Registry(path, n8n=N8nClient(url, key))`) or set `TOOLKILN_N8N_URL` and
`TOOLKILN_N8N_API_KEY`. A tool's definition may name that same server in `"n8n": {"url": ...}`,
never another (R0700). The key is never stored in the registry.
""",
)

WORKFLOW_DEPLOY_FAILED = register(
    "R0402",
    "workflow-deploy-failed",
    "Workflow could not be deployed",
    """
Creating, updating, activating, deactivating or deleting the tool's workflow in n8n failed:
the server could not be reached, refused the key (401), or refused the workflow (400, with
n8n's message, e.g. a node type it does not know). Nothing was changed in the registry: the
action (create, approve, enable, update, disable, delete) can be retried once n8n is fixed.
`delete(force=True)` deletes the tool even when its workflow cannot be removed.
""",
)

WORKFLOW_NOT_DEPLOYED = register(
    "R0403",
    "workflow-not-deployed",
    "Workflow tool not deployed",
    """
The workflow tool is active, but its current version has no deployment in n8n on record (its
file was copied or edited by hand). Deploy it again with `reg.deploy(name)` or
`toolkiln tools deploy NAME`.
""",
)

WORKFLOW_RUN_FAILED = register(
    "R0404",
    "workflow-run-failed",
    "Workflow run failed",
    """
Posting the arguments to the tool's webhook failed: n8n could not be reached, the webhook is
not registered (the workflow was deactivated or deleted in n8n: deploy it again), or the
workflow answered with an error status (the message is n8n's, `.status` its HTTP status), or
n8n answered but its execution of the workflow failed (an empty answer, or one sent before the
end): the message then names the node that failed and n8n's error.
""",
)

WORKFLOW_NAME_TAKEN = register(
    "R0405",
    "workflow-name-taken",
    "Workflow name taken in n8n",
    """
A workflow tool's workflow would get the name of a workflow in n8n that the tool did not
create (deployed with `toolkiln n8n deploy`, or made in n8n's editor). The tool knows its own
workflow by its n8n id and never updates, deactivates or deletes another one, so nothing was
changed in n8n or in the registry. Give the tool's workflow another name (`workflow NAME` in
its definition), or rename or delete the other workflow in n8n, then retry.

    workflow order_total          # error: n8n already has a workflow `order_total`
    workflow order_total_tool     # fixed
""",
)
