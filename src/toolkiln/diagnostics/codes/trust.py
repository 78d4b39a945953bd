"""Who acts and what the server grants: principals and capabilities (R07xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

CAPABILITY_NOT_GRANTED = register(
    "R0700",
    "capability-not-granted",
    "The server was not started with this capability",
    """
Running a program without the sandbox, giving it the network, running an executable outside
the allowed folders and deploying a workflow to an n8n are powers the operator grants when the
server starts; a definition cannot ask for them. A tool that needs one is refused when it is
created or changed, and when it runs, unless the registry was opened with it:

    toolkiln serve --allow network --allow executables=/opt/tools      # grant two
    toolkiln serve --allow unsandboxed                                   # trusted hosts only

The CLI and the Python API act as the local user, who has every capability
(`Capabilities.LOCAL`); `toolkiln serve` and `toolkiln mcp --http` start with none
(docs/security.md).
""",
)

NEEDS_ADMIN_PERSON = register(
    "R0701",
    "needs-admin-person",
    "Only a person with the admin scope may use this capability",
    """
Even when the server grants a capability (an unsandboxed run, the network, an executable
folder), only a person whose token has the `admin` scope may create, change or approve a tool
that uses it. A model may propose a network tool (it waits for approval); it may never ask for
`"sandbox": "none"`. Use an admin person's token, or leave the capability out.
""",
)

CANNOT_ACT_AS = register(
    "R0702",
    "cannot-act-as",
    "A request cannot act as more than its token",
    """
Who acts comes from the token, never from the request: a token made with `--kind model` acts
as a model everywhere. A request may narrow who it acts as (a person's token may act as a
model, `"created_by": "llm"`), never widen it (a model's token asking for `"created_by": "user"`).
Leave the field out to act as the token says.
""",
)

RECORD_NOT_TRUSTED = register(
    "R0710",
    "record-not-trusted",
    "The tool's record was not written by this registry here",
    """
A registry signs every record it writes (an HMAC under a key of this user's, kept outside the
folder, over the folder's identity, the tool's name, version and the file's bytes). A record
that does not verify (the folder was cloned, copied or moved, the file was edited by hand, or
it came from another machine) is listed, but what it claims (status, creator, approval,
sandbox, network, paths) is not believed: its script, executable or workflow tool does not run,
deploy, or get approved or enabled until a local person has read it and trusts it. Compute
tools, which cannot reach past their budgets, still run. Checking needs no trust.

    toolkiln trust tools --list             # what does not verify, and what it claims
    toolkiln trust tools --tool fetch       # trust one tool (all its versions)
    toolkiln trust tools                    # trust every record of the folder
""",
)
