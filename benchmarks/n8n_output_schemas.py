"""Could n8n's own output schemas type the data-flow check (issue 26, item 4)? n8n-nodes-base
ships a JSON Schema of the output of some nodes' operations
(`dist/nodes/<Node>/__schema__/v<version>/<resource>/<operation>.json`: 1,230 in 2.41.1), which
the editor shows before a node has run. This counts, on public exports, the reads of such a
node's output fields (`$('Node').item.json.x`, `.first().json.x`, `$json.x` in the node it
feeds alone) and how many name a top-level field its schema lacks: each of those would be a
W0733 if the data-flow check trusted the schemas.

    python benchmarks/n8n_output_schemas.py ../shared/corpus/n8n/public-4549.tar.xz \
        [--n8n ~/.cache/toolkiln/n8n-2.41.1] [--sample 10] [--seed 26]

A node is matched to its schemas by its `.node.js` file's name (`Github.node.js`:
`n8n-nodes-base.github`), its typeVersion (2.1: `v2.1.0`) and its `resource` and `operation`
parameters as written (a node that leaves either to its default is not counted). Expressions
that allow for a missing field (`||`, `??`, `?.`, ...) and nodes set to continue on error are
left out, as the check leaves them.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from n8n_corpus import json_files, workflows_in

from toolkiln.backends.n8n.dataflow import FIELD_AFTER, GUARDED, JSON_FIELD, NODE_REFERENCE, TEMPLATE_PART

PACKAGE = "n8n-nodes-base."
SchemaKey = tuple[str, str, str, str]  # node type, version folder, resource, operation


def schemas(nodes_folder: Path) -> dict[SchemaKey, frozenset[str]]:
    """The top-level output fields each schema lists, by node type, version, resource, operation."""
    found: dict[SchemaKey, frozenset[str]] = {}
    for schema in nodes_folder.rglob("__schema__/v*/*/*.json"):
        version, resource, operation = schema.parent.parent.name, schema.parent.name, schema.stem
        folder = schema.parent.parent.parent.parent
        properties = json.loads(schema.read_text(encoding="utf-8")).get("properties") or {}
        for node_file in folder.glob("*.node.js"):
            type_ = PACKAGE + node_file.name.removesuffix(".node.js").lower()
            found[(type_, version, resource, operation)] = frozenset(properties)
    return found


def version_folder(version: Any) -> str | None:
    if not isinstance(version, int | float) or isinstance(version, bool):
        return None
    major, _, minor = f"{float(version):.1f}".partition(".")
    return f"v{major}.{minor}.0"


def schema_of(node: dict[str, Any], known: dict[SchemaKey, frozenset[str]]) -> frozenset[str] | None:
    parameters = node.get("parameters") if isinstance(node.get("parameters"), dict) else {}
    type_, folder = str(node.get("type", "")).lower(), version_folder(node.get("typeVersion"))
    resource, operation = parameters.get("resource"), parameters.get("operation")
    if folder is None or not isinstance(resource, str) or not isinstance(operation, str):
        return None
    if node.get("onError", "stopWorkflow") != "stopWorkflow" or node.get("continueOnFail") is True:
        return None  # failed items carry `error`: the check treats such a node as unknown
    return known.get((type_, folder, resource, operation))


def expressions(value: Any) -> list[str]:
    """The `{{ }}` parts of the expression values in a node's parameters (not its code)."""
    if isinstance(value, dict):
        return [part for key, child in value.items() if key not in ("jsCode", "code") for part in expressions(child)]
    if isinstance(value, list):
        return [part for child in value for part in expressions(child)]
    if isinstance(value, str) and value.startswith("=") and "$" in value:
        return [" ".join(match.group(1) for match in TEMPLATE_PART.finditer(value))]
    return []


class Count:
    def __init__(self) -> None:
        self.reads = 0
        self.outside: list[tuple[str, str, str, str]] = []  # file, node type, field, schema fields
        self.nodes_with_schema = 0
        self.types: collections.Counter[str] = collections.Counter()

    def read(self, file: str, type_: str, field: str, fields: frozenset[str]) -> None:
        self.reads += 1
        if field not in fields:
            listed = ", ".join(sorted(fields)[:8]) + (", ..." if len(fields) > 8 else "")
            self.outside.append((file, type_, field, listed))


def one_workflow(file: str, data: dict[str, Any], known: dict[SchemaKey, frozenset[str]], count: Count) -> None:
    nodes = [node for node in data.get("nodes", []) if isinstance(node, dict) and isinstance(node.get("name"), str)]
    by_name = {node["name"]: node for node in nodes}
    fields = {name: schema_of(node, known) for name, node in by_name.items()}
    feeds = collections.defaultdict(list)  # target -> its main sources
    for source, kinds in (data.get("connections") or {}).items():
        for targets in (kinds.get("main") or []) if isinstance(kinds, dict) else []:
            for target in targets or []:
                if isinstance(target, dict) and source in by_name:
                    feeds[target.get("node")].append(source)
    for name, schema in fields.items():
        if schema is not None:
            count.nodes_with_schema += 1
            count.types[by_name[name]["type"]] += 1
    for node in nodes:
        sources = set(feeds.get(node["name"], []))
        given = fields.get(next(iter(sources))) if len(sources) == 1 else None
        for text in expressions(node.get("parameters")):
            if GUARDED.search(text):
                continue
            for match in JSON_FIELD.finditer(text) if given is not None else ():
                field = match.group(1) or match.group(2) or match.group(3)
                count.read(file, by_name[next(iter(sources))]["type"], field, given)
            for match in NODE_REFERENCE.finditer(text):
                referenced = next(g for g in (match.group(1), match.group(2), match.group(4), match.group(5)) if g)
                after = FIELD_AFTER.match(text, match.end())
                schema = fields.get(referenced)
                if after and schema is not None:
                    field = after.group(1) or after.group(2) or after.group(3)
                    count.read(file, by_name[referenced]["type"], field, schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--n8n", type=Path, default=Path.home() / ".cache" / "toolkiln" / "n8n-2.41.1")
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    known = schemas(args.n8n / "node_modules" / "n8n-nodes-base" / "dist" / "nodes")
    count = Count()
    workflows = 0
    with tempfile.TemporaryDirectory(prefix="toolkiln-schemas-") as scratch:
        for path in json_files(args.inputs, Path(scratch)):
            for name, document in workflows_in(path):
                workflows += 1
                one_workflow(Path(name).name, document, known, count)
    outside = len(count.outside)
    share = outside / count.reads if count.reads else 0.0
    print(f"{len(known):,} output schemas (node type, version, resource, operation); {workflows:,} workflows\n")
    print("| nodes with a schema | reads of their fields | fields the schema lacks | share |\n|---:|---:|---:|---:|")
    print(f"| {count.nodes_with_schema:,} | {count.reads:,} | {outside:,} | {share:.0%} |\n")
    print("Node types with a schema, most used:", ", ".join(f"{t} {n}" for t, n in count.types.most_common(8)))
    chooser = random.Random(args.seed)
    print(f"\n{min(args.sample, outside)} of the {outside:,} reads of a field the schema lacks:\n")
    for file, type_, field, listed in chooser.sample(count.outside, min(args.sample, outside)):
        print(f"- {file}: `{field}` of {type_} (schema: {listed})")


if __name__ == "__main__":
    main()
