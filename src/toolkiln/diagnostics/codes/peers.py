"""Tools of the systems toolkiln grew from, imported as they are (E1101-E1199, issue 27): what
an import refuses, and where toolkiln reads a file differently from the system that wrote it."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

PEER_FILE_INVALID = register(
    "E1101",
    "peer-file-invalid",
    "A tool file of another system that cannot be read",
    """
The file is not what the system that writes it writes: not JSON, not an object, without a
field that system requires (a Kitz custom tool needs `name`, `type` and `description`), or
with a `type` that system does not have. The message names the field; nothing of the file is
imported, the other files of the folder are:

    {"name": "shipping", "type": "compute"}          # error: no `description`
    {"name": "shipping", "type": "compute", "description": "Shipping cost", "logic": {...}}
""",
)

PEER_WORKFLOW_ELSEWHERE = register(
    "E1102",
    "peer-workflow-elsewhere",
    "A workflow tool whose workflow is not in the folder, or cannot be called",
    """
A Kitz tool of type `n8n` names its workflow by its id in Kitz's n8n (`n8nWorkflowId`); the
workflow itself is in the folder only when the tool was made from a template
(`templateSource`, a file of `data/n8n-workflows/`). Without that file there is nothing to
import: export the workflow from n8n and import it with `toolkiln workflow import`. A
template that starts on a schedule (Schedule Trigger, Cron) is an automation, not a tool: a
toolkiln workflow tool is called through its webhook. Deploy it with `toolkiln n8n deploy`.

    {"type": "n8n", "n8nWorkflowId": "42"}                      # error: the workflow is only in n8n
    {"type": "n8n", "templateSource": "new-lead-notification"}  # fine: data/n8n-workflows/...json
""",
)

PEER_MEANING_DIFFERS = register(
    "W1103",
    "peer-meaning-differs",
    "A step the other system ran differently",
    """
The step is imported as written and toolkiln runs it as written, which is not what the system
that wrote it did. Kitz compares only `variable <op> number` in a condition's `if`: any other
condition (`a > b`, `10 < weight_kg`, `x > 1 and y < 2`) was false there, or the truth of a
variable named by the whole text. toolkiln computes the comparison. Check that the tool does
what its author meant:

    {"op": "condition", "if": "weight_kg > limit", ...}   # Kitz: always false; toolkiln: compares
""",
)

PEER_PERMISSION_UNMAPPED = register(
    "E1104",
    "peer-permission-unmapped",
    "A permission of another system that toolkiln's sandbox has no counterpart for",
    """
An OwnPilot custom tool asks for `permissions`; toolkiln maps `network` onto a script's
`network` (granted only once a person approves a model's tool). `filesystem`, `database`,
`shell`, `email` and `scheduling` have no counterpart: a script sees no user files, no
database, no host commands, no mail and no scheduler, and toolkiln does not pretend it does.
The tool is not imported; the other files are. Remove the permission when the code does not
need it, or build the tool as a workflow that has those nodes:

    {"name": "backup", "permissions": ["filesystem"], ...}   # error: no user files in the sandbox
    {"name": "fetch_weather", "permissions": ["network"], ...}   # fine: network: true
""",
)
