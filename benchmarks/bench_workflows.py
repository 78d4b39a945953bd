"""Cost of the workflow tools: importing and linting n8n exports, compiling DSL workflows.

    python benchmarks/bench_workflows.py [--sizes 10,100,1000,10000] [--repeat 3]

Measures, for n8n exports of N nodes (a manual trigger, then Set, IF and HTTP Request nodes as
the n8n editor writes them: random ids, so they import as generic nodes, wired in a chain with
an IF every 10 nodes), the best of `--repeat` times of
  * import: `toolkiln.import_n8n(json_text)` (reading, linting, building and proving the DSL),
  * lint: `check_workflow(json_text)` (what `toolkiln check workflow.json` does),
and, for DSL workflows of N steps (set steps that read the step before, with an `if` every 10
steps), `compile_workflow(text)` (parse, validate, emit). The DSL compiler refuses sources over
1 MiB, so the largest DSL size is 1,000 steps. Then lint time against the number of findings
on one export of about 6 MB: locating findings costs one scan of the file, however many there
are. Prints markdown tables; a script, not a test.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time

import toolkiln
from toolkiln.workflow import check_workflow, compile_workflow


def n8n_export(count: int) -> str:
    nodes = [
        {
            "parameters": {},
            "id": "t0",
            "name": "Start",
            "type": "n8n-nodes-base.manualTrigger",
            "typeVersion": 1,
            "position": [0, 0],
        }
    ]
    connections: dict = {}
    for i in range(1, count):
        name = f"Node {i}"
        if i % 10 == 0:
            node = {
                "parameters": {
                    "conditions": {
                        "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2},
                        "conditions": [
                            {
                                "id": f"c{i}",
                                "leftValue": "={{ $json.n }}",
                                "rightValue": 5,
                                "operator": {"type": "number", "operation": "gt"},
                            }
                        ],
                        "combinator": "and",
                    },
                    "options": {},
                },
                "type": "n8n-nodes-base.if",
                "typeVersion": 2.2,
            }
        elif i % 10 == 5:
            node = {
                "parameters": {"url": f"=https://api.example.com/items/{{{{ $json.n }}}}/{i}", "options": {}},
                "type": "n8n-nodes-base.httpRequest",
                "typeVersion": 4.2,
            }
        else:
            node = {
                "parameters": {
                    "assignments": {
                        "assignments": [
                            {"id": f"a{i}", "name": "n", "value": f"={{{{ $json.n + {i} }}}}", "type": "number"}
                        ]
                    },
                    "options": {},
                },
                "type": "n8n-nodes-base.set",
                "typeVersion": 3.4,
            }
        nodes.append({**node, "id": f"id-{i}", "name": name, "position": [i * 220, 0]})
        connections[nodes[i - 1]["name"]] = {"main": [[{"node": name, "type": "main", "index": 0}]]}
    return json.dumps(
        {
            "name": f"export {count}",
            "nodes": nodes,
            "connections": connections,
            "settings": {"executionOrder": "v1"},
            "pinData": {},
        },
        indent=2,
    )


def dsl_workflow(count: int) -> str:
    lines = ["workflow bench", 'description "generated"', 'on webhook POST "/bench"', "set s0 { n = body.n }"]
    previous = "s0"
    for i in range(1, count):
        if i % 10 == 0:  # a branch; the steps after it read the step before it
            lines.append(f"if c{i} {previous}.n > 5 {{ set s{i} {{ n = {previous}.n + 1 }} }}")
        else:
            lines.append(f"set s{i} {{ n = {previous}.n + {i} }}")
            previous = f"s{i}"
    return "\n".join(lines) + "\n"


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(
        f"toolkiln {toolkiln.__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"{datetime.date.today()}"
    )
    print("\n| size | export (KiB) | import (ms) | lint (ms) | DSL compile (ms) |")
    print("|---:|---:|---:|---:|---:|")
    for size in sizes:
        export = n8n_export(size)
        imported = toolkiln.import_n8n(export)
        assert imported.diagnostics == (), imported.diagnostics[:3]
        import_ms = best(lambda export=export: toolkiln.import_n8n(export), args.repeat) * 1000
        lint_ms = best(lambda export=export: check_workflow(export), args.repeat) * 1000
        dsl = dsl_workflow(size)
        compiled = "—"
        if len(dsl) <= 1 << 20 and size <= 1000:
            compile_workflow(dsl)
            compiled = f"{best(lambda dsl=dsl: compile_workflow(dsl), args.repeat) * 1000:,.1f}"
        print(f"| {size:,} | {len(export) // 1024:,} | {import_ms:,.1f} | {lint_ms:,.1f} | {compiled} |")
        sys.stdout.flush()


def export_with_findings(findings: int, nodes: int = 3500) -> str:
    """About 6 MB of Set nodes in a chain; the first `findings` hold an expression without `=`."""
    listed = [
        {
            "id": "t",
            "name": "Go",
            "type": "n8n-nodes-base.manualTrigger",
            "typeVersion": 1,
            "position": [0, 0],
            "parameters": {},
        }
    ]
    connections: dict = {"Go": {"main": [[{"node": "N0", "type": "main", "index": 0}]]}}
    for i in range(nodes):
        value = "Hi {{ $json.x }}" if i < findings else "={{ $json.x }}"  # x: what the Set before sets
        assignment = {"id": "a", "name": "x", "value": value, "type": "string"}
        listed.append(
            {
                "id": f"id{i}",
                "name": f"N{i}",
                "type": "n8n-nodes-base.set",
                "typeVersion": 3.4,
                "position": [i, 0],
                "notes": "n" * 1200,
                "parameters": {"assignments": {"assignments": [assignment]}, "options": {}},
            }
        )
        if i + 1 < nodes:
            connections[f"N{i}"] = {"main": [[{"node": f"N{i + 1}", "type": "main", "index": 0}]]}
    return json.dumps({"name": "big", "nodes": listed, "connections": connections, "settings": {}}, indent=2)


def lint_by_findings(repeat: int) -> None:
    print("\n| findings | export (MB) | lint (s) |")
    print("|---:|---:|---:|")
    for findings in (0, 1, 100, 1000):
        export = export_with_findings(findings)
        assert len(check_workflow(export)) == findings
        seconds = best(lambda export=export: check_workflow(export, "big.json"), repeat)
        print(f"| {findings:,} | {len(export) / 1e6:.1f} | {seconds:.2f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
    lint_by_findings(3)
