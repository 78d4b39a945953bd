"""Workflows and workflow templates (E07xx, E08xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- workflows ----------------------------------------------------------------------------

DUPLICATE_STEP = register(
    "E0701",
    "duplicate-step",
    "Duplicate step name",
    """
Every step of a workflow has its own name: it becomes the n8n node's name and is how later
steps read its output. The trigger's node name (`Webhook`, `Manual Trigger`) and the names of
the trigger's data (`body`, `query`, `headers`) are taken too.

    set total { x = 1 }
    set total { y = 2 }        # error: `total` is already a step
    set total2 { y = 2 }       # fixed
""",
)

UNKNOWN_STEP = register(
    "E0702",
    "unknown-step",
    "Unknown step",
    """
An expression reads a name that is neither a step of the workflow nor the trigger's data.
With a webhook trigger, the request is `body`, `query` and `headers`; an earlier step's output
fields are `step_name.field`.

    set priced { total = order.qty * 2 }   # error: no step `order`
    set priced { total = body.qty * 2 }    # fixed: the posted JSON body
""",
)

NOT_UPSTREAM = register(
    "E0703",
    "not-upstream",
    "Step is not upstream",
    """
An expression reads a step that does not run before it on every path from the trigger: a
later step, a step in the other branch of an `if`, or a step inside a branch read after the
branches join. Only steps that always ran before can be read.

    if big body.n > 10 { set a { x = 1 } } else { set b { x = 2 } }
    set after { x = a.x }      # error: `a` ran only when `big` was true
""",
)

RESPOND_WITHOUT_WEBHOOK = register(
    "E0704",
    "respond-without-webhook",
    "Respond step without a responding webhook",
    """
A `respond` step answers the webhook request, so the trigger must be a webhook in "respond
with node" mode; otherwise n8n has already answered (or there is no request at all).

    on webhook POST "/orders"                     # error at `respond`
    on webhook POST "/orders" respond with node   # fixed
""",
)

MISSING_RESPOND = register(
    "E0705",
    "missing-respond",
    "Webhook waits for a respond step that is missing",
    """
The webhook trigger is in "respond with node" mode but no `respond` step exists, so every
request would wait until it times out. Add a `respond` step, or drop `respond with node` to
have n8n answer as soon as the request is received.
""",
)

UNTRANSLATABLE = register(
    "E0706",
    "untranslatable",
    "Expression cannot be translated to n8n",
    """
The expression is valid compute DSL, but the n8n backend has no translation for it that keeps
its meaning: `round(x, digits)` (JavaScript doubles round 2.675 to 2.67), `number`, `text`,
`join` (numbers print differently in JavaScript) and format specs such as `{{x:.2f}}` in an
http URL. docs/workflows.md lists what translates. Compute it another way, or in a compute
tool.

    set a { total = round(body.amount, 2) }     # error
    set a { cents = round(body.amount * 100) }  # fixed: whole numbers translate
""",
)

INVALID_TRIGGER = register(
    "E0707",
    "invalid-trigger",
    "Invalid trigger",
    """
A webhook trigger needs an HTTP method (`GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`) and
a path of letters, digits, `-`, `_`, `/` and `:name` parameters. A schedule runs `daily at
"HH:MM"`, `every N minutes|hours|days` or on a five-field `cron` expression, in an IANA
timezone such as "Europe/Berlin".

    on webhook SEND "/orders"                 # error: unknown method
    on webhook POST "/orders"                 # fixed
    on schedule daily at "9am"                # error: not HH:MM
    on schedule daily at "09:00" timezone "Europe/Berlin"   # fixed
""",
)

NO_OUTPUT = register(
    "E0708",
    "no-output",
    "Step has no output of its own",
    """
Only a `set` step (and the trigger) produce fields; an `if` passes its input through and a
`respond` step answers the request. Read the step that produced the data instead.

    if big priced.total > 100 { ... }
    set label { text = big.total }      # error: `big` is an if
    set label { text = priced.total }   # fixed
""",
)

INVALID_STEP = register(
    "E0709",
    "invalid-step",
    "Invalid step",
    """
A step's fixed words are wrong: an HTTP method n8n does not send, a wait unit other than
`seconds`, `minutes`, `hours` or `days`, a count that is not a positive whole number, a node
version that is not a number, or a clause given twice.

    wait pause 5 weeks            # error: unknown unit
    wait pause 35 days            # fixed
""",
)

DISCONNECTED_STEP = register(
    "E0710",
    "disconnected-step",
    "Step is not connected to a trigger",
    """
No path leads from the trigger to this step, so n8n would never run it. This happens with
`after nothing` or with `after` naming only steps that are themselves unreachable. Wire the
step to something upstream, or delete it. Sticky notes and other trigger nodes are exempt.

    after nothing
    set orphan { x = 1 }          # error: nothing runs it
""",
)

WORKFLOW_CYCLE = register(
    "E0711",
    "workflow-cycle",
    "Workflow has a cycle",
    """
The `after` clauses form a loop. n8n runs a loop only through a node made for it (Loop Over
Items, `n8n-nodes-base.splitInBatches`); any other loop never finishes or never starts.
Break the loop, or route it through a Loop Over Items node.
""",
)

UNKNOWN_NODE_TYPE = register(
    "E0712",
    "unknown-node-type",
    "Unknown n8n node type or version",
    """
The node type (or that version of it) is not in the node catalog of the n8n version toolkiln
targets (docs/n8n-catalog.md). Check the spelling (`n8n-nodes-base.slack`, not `slack`) and
use a version the catalog lists.

    node "Notify" type "n8n-nodes-base.slak" version 2.2 {}    # error: unknown type
    node "Notify" type "n8n-nodes-base.slack" version 2.2 {}   # fixed
""",
)

INVALID_WIRING = register(
    "E0713",
    "invalid-wiring",
    "Invalid wiring",
    """
An `after` clause names a step that does not exist, an output the step does not have (an
`if` has output 0 for true and 1 for false; a `switch` one per case, then its `else`), or an
input the step does not have (only a `merge` has more than input 0). A `merge` must directly
follow the `if` or `switch` whose branches it joins, unless it says `after`.

    after check[2]                # error: an if has outputs 0 and 1
    after check[1]                # fixed
""",
)

UNKNOWN_PARAMETER = register(
    "E0714",
    "unknown-parameter",
    "Parameter the node does not accept",
    """
A generic `node` step sets a parameter that its node type, at that version, does not have
(per the node catalog). n8n would ignore it silently, which usually hides a typo or a
parameter from another version.

    node "Notify" type "n8n-nodes-base.noOp" version 1 {"colour": "red"}   # error
""",
)

NO_SUCH_FIELD = register(
    "E0720",
    "no-such-field",
    "Step does not set that field",
    """
An expression reads `step.field`, but the `set` step `step` sets no field of that name, so n8n
would read `undefined`. Read one of the fields the step sets (the hint lists them). The same
holds for the fields a declared shape lists: an `http` or `node` step's `returns {...}` and a
webhook's `body {...}` (`body.x`). Without a declaration, the trigger's data and `http` and
generic node answers are known only at run time and are not checked.

    set priced { total = body.qty * body.price }
    set label { text = priced.totl }        # error: no field `totl`
    set label { text = priced.total }       # fixed
    http order GET "https://shop.example/order" returns {id: number}
    set label2 { text = order.idd }         # error: `order` declares no field `idd`
""",
)

# --- workflow templates -------------------------------------------------------------------
# Raised by toolkiln.templates.render (and `toolkiln templates`) before anything is compiled.

UNKNOWN_TEMPLATE = register(
    "E0801",
    "unknown-template",
    "Unknown template",
    """
No template has this slug. `toolkiln templates list` (or `toolkiln.templates.list()`) shows
the templates shipped with toolkiln.

    toolkiln templates render lead-follow-up     # error: no such template
    toolkiln templates render lead-followup      # fixed
""",
)

MISSING_TEMPLATE_PARAMETER = register(
    "E0802",
    "missing-template-parameter",
    "Template parameter not given",
    """
The template declares a parameter without a default, so rendering needs a value for it.
`toolkiln templates show SLUG` lists the parameters, their types and defaults.

    toolkiln templates render order-status-notify                          # error: no crm_url
    toolkiln templates render order-status-notify --set crm_url=https://crm.example.com/api
""",
)

UNKNOWN_TEMPLATE_PARAMETER = register(
    "E0803",
    "unknown-template-parameter",
    "Unknown template parameter",
    """
The template has no parameter of this name; a value for it would be ignored, which usually
hides a typo.

    toolkiln templates render daily-summary --set send_time=07:30    # error
    toolkiln templates render daily-summary --set send_at=07:30      # fixed
""",
)

TEMPLATE_PARAMETER_TYPE = register(
    "E0804",
    "template-parameter-type",
    "Template parameter of the wrong type",
    """
The value does not fit the parameter's type: `string` (any text), `url` (an http or https
base URL without a query, fragment, spaces, quotes or braces), `time` ("HH:MM" on a 24-hour
clock), `timezone` (an IANA name such as "Europe/Madrid"), `integer` (whole number, as a
number or as digits), `credential` (the name of an n8n credential: one line, at most 128
characters), `path` (a webhook path such as "/orders").

    --set send_at=9am              # error: not HH:MM
    --set send_at=09:00            # fixed
""",
)

INVALID_TEMPLATE_FILE = register(
    "E0805",
    "invalid-template-file",
    "Invalid template file",
    """
A template file is a header (`template "Title"`, `description "..."`, one
`param NAME: TYPE [= DEFAULT] "what it is"` line per parameter), a line `---`, then workflow
DSL in which `${NAME}` stands for a parameter's value (`$$` is a literal `$`). Every
placeholder names a declared parameter, every parameter is used, and every default fits its
type.

    param days: integer = "three" "Days"     # error: the default is not an integer
    param days: integer = 3 "Days"           # fixed
""",
)

UNCHECKED_NODE_TYPE = register(
    "W0715",
    "unchecked-node-type",
    "Node type the catalog cannot check",
    """
The node comes from a package the node catalog does not describe (a community node such as
`n8n-nodes-evolution-api.evolutionApi`, or a LangChain node `@n8n/n8n-nodes-langchain.agent`),
so its version and parameters are not checked. Make sure the package is installed on the n8n
server that runs the workflow.

    node "Send" type "n8n-nodes-evolution-api.evolutionApi" version 1 {}   # warning
""",
)

NODE_NOT_IN_CATALOG = register(
    "W0716",
    "node-not-in-catalog",
    "Node type or version unknown to the catalog",
    """
An imported n8n workflow uses a node type, or a typeVersion of it, that the node catalog of the
n8n version toolkiln targets does not have: it may come from a newer n8n, or the type may be
misspelt. The workflow still imports and exports unchanged; the n8n server it is deployed to
must know the node.

    {"name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 9}    # warning
""",
)

NODE_PARAMETER_UNKNOWN = register(
    "W0717",
    "node-parameter-unknown",
    "Parameter unknown to the catalog",
    """
A node of an imported n8n workflow sets a top-level parameter that its type, at that
typeVersion, does not have in the node catalog. n8n ignores such a parameter; it is usually
left over from another version of the node, or misspelt.

    {"type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {"colour": "red"}}   # warning
""",
)

DANGLING_CONNECTION = register(
    "E0718",
    "dangling-connection",
    "Connection to or from a missing node",
    """
A connection of an n8n workflow starts at or leads to a node name that is not in `nodes`, or
names no node at all. n8n 2.x refuses such a workflow (400 `unknown_connection_source` /
`unknown_connection_target`); n8n 1.x drops the connection, so the data never arrives where
the workflow says it goes. Rename the connection to the node's current name, or delete it.
(An output or input the node does not have is W0736.)

    "connections": {"Webhook": {"main": [[{"node": "Sett", "type": "main", "index": 0}]]}}
    # error: there is no node "Sett" (the node is called "Set")
""",
)

UNREACHABLE_NODE = register(
    "W0719",
    "unreachable-node",
    "Node no trigger reaches",
    """
No chain of connections leads from a trigger to this node, so n8n never runs it. Sticky notes,
triggers and nodes without a main input (the tools and models an AI agent uses) are exempt.
Connect the node or delete it.

    {"name": "Left over", "type": "n8n-nodes-base.set", ...}    # warning: nothing leads to it
""",
)

UNWRAPPED_EXPRESSION = register(
    "W0725",
    "unwrapped-expression",
    "Expression without the leading `=`",
    """
A parameter value contains `{{ ... }}` but does not start with `=`, so n8n treats it as plain
text and sends the braces literally. n8n evaluates a parameter only when its value starts
with `=`.

    "text": "Hello {{ $json.name }}"       # warning: sent as written
    "text": "=Hello {{ $json.name }}"      # fixed
""",
)

LITERAL_SECRET = register(
    "E0721",
    "literal-secret",
    "Secret written into the workflow",
    """
A parameter holds what looks like a credential in clear text: a bearer token, an API key such
as `sk-...`, or a literal value of a field named like a password, API key, token or secret.
Anyone who can read the workflow (or its export) can read the secret. Store it as an n8n
credential and select the credential on the node, or read it from an expression.

    "headerParameters": {"parameters": [{"name": "Authorization", "value": "Bearer eyJhbGciOi..."}]}
    # error: use an HTTP Header Auth credential instead
""",
)

DUPLICATE_NODE_NAME = register(
    "E0722",
    "duplicate-node-name",
    "Two nodes with one name",
    """
Two nodes of an n8n workflow have the same name, and the n8n release toolkiln targets
(`--n8n-version`, default the release the tests run) refuses it: n8n 2.x answers 400
`duplicate_node_name`. Connections name their nodes, so they cannot tell the two apart. Rename
one of them (and its connections). The file still imports and its JSON comes back unchanged;
it has no DSL text (E0732).

    {"name": "Set", ...}, {"name": "Set", ...}      # error for n8n 2.x
""",
)

NODE_CYCLE = register(
    "W0723",
    "node-cycle",
    "Nodes feed each other in a loop",
    """
The connections of an n8n workflow form a loop that does not pass through a Loop Over Items
node (`n8n-nodes-base.splitInBatches`). n8n runs it, but it stops only if a node on the loop
(an IF, say) eventually sends no items back; check that it does.

    A -> B -> A       # warning
""",
)

NOT_A_WORKFLOW = register(
    "E0724",
    "not-a-workflow",
    "Not an n8n workflow",
    """
The input is not an n8n workflow: not JSON, not a JSON object, without a `nodes` list, or with
a node that has no name or type, or a typeVersion that is not a number (a node without
one is W0730). Export the workflow from the n8n editor
(Download) or read it with the n8n API.

    [{"name": "Webhook"}]        # error: a list, not a workflow object
""",
)

# --- what one n8n release refuses: an error for that release, a warning for the ones before ---

NODE_TYPE_REMOVED = register(
    "E0726",
    "node-type-removed",
    "Node type the chosen n8n refuses",
    """
The node type is deprecated, and the n8n release toolkiln targets (`--n8n-version`, default
the release the tests run) refuses workflows that use it: n8n 2.42 and later refuse to create
workflows with the Function and Function Item nodes. The file still imports and exports
unchanged. Replace the node with the one the hint names (Code, `n8n-nodes-base.code`), or
target an older n8n.

    {"type": "n8n-nodes-base.function", "typeVersion": 1}     # error for n8n 2.42+
""",
)

NODE_TYPE_DEPRECATED = register(
    "W0727",
    "node-type-deprecated",
    "Deprecated node type",
    """
The node type is deprecated: the n8n release toolkiln targets still runs it, but a later
release refuses it (the message names which), or its editor no longer offers it (the Cron
node, replaced by the Schedule Trigger). Replace it with the node the hint names before
upgrading n8n.

    {"type": "n8n-nodes-base.functionItem", "typeVersion": 1}   # warning for n8n 2.41
""",
)

POSITION_REQUIRED = register(
    "E0728",
    "position-required",
    "Node without a position",
    """
A node of an n8n workflow has no `position` (or one that is not `[x, y]`). n8n 2.x refuses such
a workflow (`POST /api/v1/workflows` answers 400 "nodes[1].position: Required"). Give the node
a position, e.g. `"position": [0, 0]`; n8n's editor writes one for every node.

    {"name": "Pass on", "type": "n8n-nodes-base.noOp", "typeVersion": 1}   # error for n8n 2.x
""",
)

POSITION_MISSING = register(
    "W0729",
    "position-missing",
    "Node without a position (refused from n8n 2.0)",
    """
A node of an n8n workflow has no `position` (or one that is not `[x, y]`). The n8n 1.x release
toolkiln targets accepts it, but n8n 2.0 and later refuse the workflow. Give the node a
position, e.g. `"position": [0, 0]`.

    {"name": "Pass on", "type": "n8n-nodes-base.noOp", "typeVersion": 1}   # warning for n8n 1.x
""",
)

TYPE_VERSION_MISSING = register(
    "W0730",
    "type-version-missing",
    "Node without a typeVersion",
    """
A node of an n8n workflow has no `typeVersion`. n8n stores it as it is (n8n 2.x when the node
has a position) and runs the node type's default version, which changes when n8n adds a
version: the same file can run differently after an upgrade. The message names the version
the chosen n8n runs; write it into the node to keep it.

    {"name": "Set", "type": "n8n-nodes-base.set", "position": [0, 0]}    # warning
""",
)

DUPLICATE_NODE_NAME_ACCEPTED = register(
    "W0731",
    "duplicate-node-name-accepted",
    "Two nodes with one name (refused from n8n 2.0)",
    """
Two nodes of an n8n workflow have the same name. The n8n 1.x release toolkiln targets accepts
the workflow, but connections cannot tell the two nodes apart, and n8n 2.0 and later refuse
it (E0722). Rename one of them (and its connections).

    {"name": "Set", ...}, {"name": "Set", ...}      # warning for n8n 1.x
""",
)

NO_TEXT_FORM = register(
    "E0732",
    "no-text-form",
    "Workflow without a DSL text form",
    """
The imported n8n workflow has two nodes with one name. In the workflow language a step's name
is how other steps and `after` clauses reach it, so the text cannot say which of the two is
meant: toolkiln keeps the file as JSON (`to_n8n()` gives it back unchanged) and refuses to
write it as text. Rename one of the nodes (and its connections), then import again.

    toolkiln workflow import two_sets.json     # error: nodes 2 and 5 are both called `Set`
""",
)
