"""The system prompts of the factory, generated from the registries the compiler itself uses
(and `script_prompt()`, from the script tools' own settings).

`compute_prompt()` lists every step kind (`STEP_FIELDS` of the JSON front end), every builtin
with its signature (`BUILTINS`), every operator (the AST's operator types), the parameter types
and the `Limits`; `workflow_prompt(description)` gives the grammar rules of the workflow DSL
(from grammar/workflow.lark) and the n8n node types the description seems to need, picked
from the node catalog. A builtin or step added to toolkiln is in the prompts at once; nothing
is copied by hand, but for the short words on each step kind and the worked examples, which
the tests compile.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from typing import Any, get_args

from toolkiln.ast.compute import BinaryOp, UnaryOp
from toolkiln.ast.types import DECLARABLE
from toolkiln.backends.n8n.catalog import Catalog, NodeType, load_catalog
from toolkiln.executables.policy import MAX_TIMEOUT_SECONDS
from toolkiln.executables.program_tools import DEFAULT_TIMEOUT_SECS, RUNTIMES
from toolkiln.registry.examples import MAX_EXAMPLES
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.limits import Limits
from toolkiln.syntax.grammar import grammar_text
from toolkiln.syntax.json_front import DEFINITION_FIELDS, STEP_FIELDS
from toolkiln.syntax.words import RISK_LEVELS
from toolkiln.templates import Template

MIN_EXAMPLES = 3
# What each step kind does, in a few words (its fields come from STEP_FIELDS).
STEP_MEANINGS = {
    "math": "`output` = the value of `expression`",
    "lookup": "`output` = the value at `key` in the table `table` (`default` when the key is missing)",
    "format": "`output` = the text of `template`, its {{expression}} holes filled ({{x:,.2f}} formats a number)",
    "call": "`output` = the result of the registered tool `tool` run with `args` (an object of expressions)",
    "condition": "runs the steps of `then` when the boolean `if` holds, else those of `else`",
    "return": "ends the run with the value of `value`",
}
# A worked example; tests/unit/llm/test_prompts.py saves it through a registry, examples run.
COMPUTE_EXAMPLE: dict[str, Any] = {
    "name": "shipping_cost",
    "description": "Shipping cost of a parcel: 5 plus 2.50 per kg, free from 100 of order value",
    "parameters": {
        "weight_kg": {"type": "number", "description": "Parcel weight in kilograms"},
        "order_value": {"type": "number", "default": 0, "description": "Order value"},
    },
    "logic": {
        "steps": [
            {
                "op": "condition",
                "if": "order_value >= 100",
                "then": [{"op": "return", "value": "0"}],
            },
            {"op": "math", "expression": "round(5 + weight_kg * 2.5, 2)", "output": "cost"},
            {"op": "return", "value": "cost"},
        ]
    },
    "examples": [
        {"args": {"weight_kg": 2}, "expect": 10},
        {"args": {"weight_kg": 0.5, "order_value": 20}, "expect": 6.25},
        {"args": {"weight_kg": 30, "order_value": 150}, "expect": 0},
    ],
}
WORKFLOW_EXAMPLE: dict[str, Any] = {
    "kind": "workflow",
    "name": "notify_new_lead",
    "description": "Posts a new lead to the CRM and answers with its id",
    "parameters": {"email": {"type": "string", "description": "The lead's email address"}},
    "workflow": (
        "workflow notify_new_lead\n"
        'description "Posts a new lead to the CRM"\n'
        'on webhook POST "/new-lead" respond with node\n'
        'http crm POST "https://crm.example.com/api/leads" body { email = lower(body.email) }\n'
        "respond done crm\n"
    ),
}


def _rows(pairs: list[tuple[str, str]]) -> str:
    return "\n".join(f"- {head}: {text}" if text else f"- {head}" for head, text in pairs)


def _step_shape(op: str, needed: frozenset[str], extra: frozenset[str]) -> str:
    fields = ", ".join([f'"op": "{op}"', *(f'"{name}": ...' for name in sorted(needed))])
    optional = ", ".join(f"`{name}`" for name in sorted(extra))
    return f"`{{{fields}}}`" + (f" (optional: {optional})" if extra else "")


def compute_prompt(limits: Limits | None = None) -> str:
    """The system prompt for writing a compute tool (the JSON format, with examples)."""
    limits = limits or Limits()
    required, optional = DEFINITION_FIELDS
    steps = [(_step_shape(op, needed, extra), STEP_MEANINGS[op]) for op, (needed, extra) in STEP_FIELDS.items()]
    builtins = [(f"`{b.signature}`", b.doc) for b in BUILTINS.values()]
    limit_rows = [(f"{f.name} = {getattr(limits, f.name)}", "") for f in dataclasses.fields(limits)]
    binary = ", ".join(f"`{op}`" for op in get_args(BinaryOp))
    unary = ", ".join(f"`{op}`" for op in get_args(UnaryOp))
    return f"""You write tools for toolkiln: small typed programs that are checked, tested on their examples and saved.
Answer with exactly one tool definition in the JSON format below, in one ```json fenced block.
Write plain JSON: double-quoted strings and keys, no comments, no undefined, no code.

# The definition

An object with the fields {", ".join(f"`{f}`" for f in sorted(required))} (required), \
{", ".join(f"`{f}`" for f in sorted(optional))} (optional) and `examples` (required here).
- `name`: lower case letters, digits and _, starting with a letter.
- `parameters`: name -> {{"type": T, "description": "...", "default": value}}; T is one of \
{", ".join(DECLARABLE)}; an `array` may say its `items` type. A parameter without a default is required.
- `riskLevel`: one of {", ".join(RISK_LEVELS)}.
- `logic`: {{"steps": [...]}}, run in order; the run ends at a `return` step, and every path must reach one.
- `examples`: at least {MIN_EXAMPLES} (at most {MAX_EXAMPLES}) objects {{"args": {{...}}, "expect": value}}: \
arguments and the exact result the tool must return for them. They are run before the tool is saved; \
choose cases that show the rule (edges and thresholds), and compute the expected values carefully. \
A tool that reads today() or now() gives each example the time it runs at: "now": "2026-01-31T09:00:00Z".

# Steps

{_rows(steps)}

Expressions (`expression`, `if`, `value`, `key`, `default`, the values of `args`) are JSON strings: \
"price * qty". A string is always an expression: to return the text total, write "'total'".

# Expressions

Literals: numbers (exact decimals), 'text' or "text", true, false, null, lists [1, 2], records \
{{'net': net, 'vat': vat}} (quoted keys; read a field as r.net or r['net']). A JSON object where an \
expression goes is a record whose values are expressions: "value": {{"net": "net", "currency": "'EUR'"}}.
Binary operators: {binary}. Unary operators: {unary}. `a if condition else b`. \
Field access `order.total`, indexing `items[0]`, comprehensions `[i.price * i.qty for i in items if i.qty > 0]`.
Only these functions exist (no methods, no imports):
{_rows(builtins)}

# Limits of one run

{_rows(limit_rows)}

# A complete answer

```json
{json.dumps(COMPUTE_EXAMPLE, indent=2)}
```
"""


def workflow_prompt(description: str, *, catalog: Catalog | None = None, max_nodes: int = 12) -> str:
    """The system prompt for writing a workflow tool, with the n8n nodes `description` seems to
    need (at most `max_nodes`, the best matches of its words in the catalog)."""
    catalog = catalog or load_catalog()
    nodes = relevant_nodes(description, catalog, max_nodes)
    listed = _rows([(f"`{node.name}` version {node.default_version}", _node_summary(node)) for node in nodes])
    return f"""You write n8n workflows as toolkiln workflow tools: checked, then saved for a person to approve.
Answer with exactly one workflow tool definition, a JSON object in one ```json fenced block:
{{"kind": "workflow", "name": ..., "description": ..., "parameters": {{...}}, "workflow": "<the workflow DSL text>"}}
- `parameters`: what a caller posts, name -> {{"type": T, "description": "..."}}; T is one of {", ".join(DECLARABLE)}.
- `workflow`: the workflow in the DSL below, as one JSON string (newlines written \\n). It must start
  with a webhook trigger (`on webhook POST "/path"`): a run of the tool posts its arguments there,
  and the workflow reads them as `body.NAME`.
Write plain JSON: double-quoted strings and keys, no comments.

# The workflow DSL

A header (`workflow NAME`, `description "text"`), one trigger, then named steps that run in order.
Expressions are toolkiln expressions (`body.qty * body.price`, `upper(body.name)`); a step's output
is read by its name (`crm.id`). Built-in steps: set, if, switch, merge, http, wait, respond; any other
n8n node is a `node` step: node "Label" type "n8n-nodes-base.x" version V {{JSON parameters}}.
Its grammar (Lark):

{_grammar_rules()}

# n8n nodes that may fit this task

{listed or "- (none matched: use the built-in steps)"}
Use only node types from n8n; never invent one. Credentials are named, never written: credentials TYPE "name".

# A complete answer

```json
{json.dumps(WORKFLOW_EXAMPLE, indent=2)}
```
"""


# A worked script tool; tests/unit/llm/test_factory.py checks that the registry takes it.
SCRIPT_EXAMPLE: dict[str, Any] = {
    "kind": "script",
    "name": "word_stats",
    "description": "Counts the words and the distinct words of a text",
    "runtime": "python",
    "body": "import json, sys\n"
    "text = json.load(sys.stdin)['text']\n"
    "words = text.lower().split()\n"
    "print(json.dumps({'words': len(words), 'distinct': len(set(words))}))\n",
    "parameters": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text to count"}},
        "required": ["text"],
    },
    "timeout_secs": 5,
}


def script_prompt() -> str:
    """The system prompt for writing a script tool: a short program run in a sandbox."""
    return f"""You write small programs as toolkiln script tools: checked, then saved for a person to approve.
Answer with exactly one script tool definition, a JSON object in one ```json fenced block:
{{"kind": "script", "name": ..., "description": ..., "runtime": ..., "body": ..., "parameters": {{...}}}}
- `runtime`: one of {", ".join(RUNTIMES)}. `body`: the whole program, as one JSON string (newlines
  written \n); no #! line, toolkiln adds it.
- `parameters`: a JSON Schema with "type": "object" (properties, required). The arguments are
  checked against it, then given to the program ONLY as data: one JSON object on stdin, and
  environment variables TK_ARG_<NAME> holding each argument's JSON (a string keeps its quotes).
  Never build shell commands out of arguments; in bash read them with jq or as quoted variables.
- The program prints its result on stdout (JSON, or text) and exits 0; on failure it exits with
  another status and explains on stderr.
- It runs in a sandbox: no network (unless you set "network": true and a person approves it), no
  files but a private /tmp, the standard library only, killed after `timeout_secs` (default
  {DEFAULT_TIMEOUT_SECS}, at most {MAX_TIMEOUT_SECONDS:g}).
Write plain JSON: double-quoted strings and keys, no comments.

# A complete answer

```json
{json.dumps(SCRIPT_EXAMPLE, indent=2)}
```
"""


_LEXER_PART = "// --- the extent of an expression"


def _grammar_rules() -> str:
    """The rules of workflow.lark, without its comments and the lexer's internals."""
    text = grammar_text("workflow.lark")
    end = text.find(_LEXER_PART)  # what follows it is how expressions are delimited, not syntax
    rules = text[text.find("start:") : end if end >= 0 else len(text)]
    lines = [line for line in rules.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(line.split("  //")[0].rstrip() for line in lines).strip()


_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
_STOP_WORDS = frozenset(
    {"a", "an", "and", "any", "are", "as", "at", "be", "by", "every", "for", "from", "get", "in", "into", "is"}
    | {"it", "my", "new", "node", "of", "on", "or", "our", "send", "set", "that", "the", "their", "them", "then"}
    | {"this", "to", "tool", "trigger", "when", "with"}
)


def _words(text: str) -> set[str]:
    """Lower-case word stems: "SendEmails" -> {"send", "email"}."""
    return {word.lower().removesuffix("s") for word in _WORD.findall(text)} - _STOP_WORDS


def relevant_nodes(description: str, catalog: Catalog, limit: int) -> list[NodeType]:
    """The visible node types whose names share the most telling words with `description`: a
    word counts 1/(the number of nodes it names), so "slack" outweighs "google"."""
    wanted = _words(description)
    named = {}
    for name in catalog:
        node = catalog.node_type(name)
        if not node.hidden:
            named[name] = (node, _words(node.display_name + " " + name.rsplit(".", 1)[-1]))
    frequency = Counter(word for _, words in named.values() for word in words & wanted)
    scored = []
    for name, (node, words) in named.items():
        score = sum(1 / frequency[word] for word in words & wanted)
        if score:
            scored.append((-score, node.trigger, name, node))
    return [node for *_, node in sorted(scored)[:limit]]


def _node_summary(node: NodeType) -> str:
    version = node.version(node.default_version)
    parameters = sorted(version.parameter_names)
    shown = ", ".join(parameters[:15]) + (", ..." if len(parameters) > 15 else "")
    credentials = f"; credentials: {', '.join(version.credentials)}" if version.credentials else ""
    trigger = " (a trigger)" if node.trigger else ""
    return f"{node.display_name}{trigger}; parameters: {shown or 'none'}{credentials}"


def template_prompt(template: Template) -> str:
    """The system prompt for filling in a workflow template's parameters from a request."""
    rows = [
        (
            f"`{p.name}` ({p.type.name}: {p.type.shape})",
            p.description.rstrip(".") + "." + ("" if p.required else f" Default: {json.dumps(p.default)}."),
        )
        for p in template.parameters
    ]
    return f"""You configure the toolkiln workflow template `{template.slug}`: {template.title}.
{template.description}

Answer with one JSON object of parameter values, name -> value, in one ```json fenced block.
Give a value for every parameter the request says something about, and for each one without a
default; leave out the others (their defaults apply). Write plain JSON, no comments.

# Parameters

{_rows(rows)}
"""
