"""Data flow between the nodes of a workflow (backends/n8n/dataflow.py), connections to ports
a node lacks, and declared shapes (E07xx, registered after workflows.py's)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- data flow between the nodes of an n8n workflow (backends/n8n/dataflow.py) ---------------

UNKNOWN_INPUT_FIELD = register(
    "W0733",
    "unknown-input-field",
    "Field no input of the node has",
    """
An expression reads a field (`$json.x`, `$('Node').item.json.x`) that the items reaching it do
not have, on every path: the nodes before it are all of a kind whose output toolkiln knows (a
Set node's fields, a Webhook's `headers`, `params`, `query` and `body`, nodes that pass their
input on) and none of them gives `x`. n8n evaluates it to
`undefined`. The message lists the fields that do arrive; nothing is reported where any input
is unknown.

    Webhook -> Set: "={{ $json.email }}"          # warning: the webhook gives body, headers, ...
    Webhook -> Set: "={{ $json.body.email }}"     # fixed
""",
)

UNKNOWN_NODE_REFERENCE = register(
    "E0734",
    "unknown-node-reference",
    "Expression reads a node that does not exist",
    """
An expression reads `$('Name')` or `$node["Name"]`, and the workflow has no node of that name
(it was renamed or deleted). n8n fails the node when it evaluates the expression ("Referenced
node doesn't exist"). Name an existing node; the hint suggests the closest name.

    "={{ $('Get Order').item.json.id }}"     # error: the node is called `Get order`
""",
)

UNCONNECTED_NODE_REFERENCE = register(
    "E0735",
    "unconnected-node-reference",
    "Expression follows items back to a node no path connects",
    """
An expression reads `$('Name').item` (or `.pairedItem()`), which asks n8n for the item of
`Name` that the current item came from, but no chain of connections leads from `Name` to this
node, so no item came from it and n8n fails the node. Connect `Name` before this node, or read
`$('Name').first()` if you mean its first item whatever path ran.

    Webhook -> A;  Webhook -> B;  B: "={{ $('A').item.json.id }}"     # error
""",
)

CONNECTION_PORT_MISSING = register(
    "W0736",
    "connection-port-missing",
    "Connection from an output or to an input the node does not have",
    """
A connection of an n8n workflow leaves an output or enters an input that the node, at its
typeVersion, does not have (an IF has outputs 0 and 1; a node set to continue on error gets
one more). n8n stores and activates such a workflow (seen on 2.41.1), and the connection never
carries data. Connect the output the node has, or delete the connection.

    "connections": {"IF": {"main": [[], [], [{"node": "Log", "type": "main", "index": 0}]]}}
    # warning: an IF has no output 2
""",
)

INVALID_SHAPE = register(
    "E0737",
    "invalid-shape",
    "Declared shape with an unknown type, a field given twice, or past its bounds",
    """
A declared shape (`returns {...}` of a `node` or `http` step, `body {...}` of a webhook) lists
each field once with one of n8n's field types: `string`, `number`, `boolean`, `array`,
`object`, `any`, an object of known fields (`{...}`) or a list (`[type]`). A syntax error
inside a shape is this code too, and so is a shape nested deeper than 8 levels or of more than
1,000 fields in all (declare the deep or large part `object`).

    http order GET "https://shop.example/order" returns {id: number, total: decimal}   # error
    http order GET "https://shop.example/order" returns {id: number, total: number}    # fixed
""",
)
