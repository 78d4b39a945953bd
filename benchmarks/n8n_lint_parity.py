"""Lint parity with the real n8n (issue 26, item 5): for a sample of public exports that
toolkiln lints as errors, what n8n does when the workflow is created and activated.

    python benchmarks/n8n_lint_parity.py ../shared/corpus/n8n/public-4549.tar.xz [--per-kind 8]

Lints every export with the catalog of the n8n the tests run (2.41.1), takes up to
`--per-kind` exports for each kind of error (the first by file name, so the sample is stable),
starts that n8n (tests/integration/n8n_server.py, on 127.0.0.1), creates each sampled workflow
through the public API (webhook paths made unique), activates it, and deletes it again. Prints
one row per export (its error codes, n8n's answer to create and to activate) and, per code,
how often n8n also refused (docs/workflow-import.md#lint-parity has the numbers).
Only errors said to be refused by n8n count towards agreement: E0718, E0722 and E0728 claim a
refused create; E0721 (a secret in clear text), E0734 and E0735 (expressions that fail when
they run) claim nothing about activation and are listed apart.
"""

from __future__ import annotations

import argparse
import collections
import copy
import re
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from n8n_corpus import json_files, workflows_in
from n8n_server import N8nServer, install  # the tests' server, beside them

from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.errors import N8nError, N8nHTTPError
from toolkiln.workflow import check_workflow

REFUSED_AT_CREATE = {"E0718", "E0722", "E0728"}


def answer(call: Any) -> tuple[str, Any]:
    """ "ok" and the result, or n8n's status and the first line of its message."""
    try:
        return "ok", call()
    except N8nHTTPError as error:
        return str(error.status), str(error.message).splitlines()[0][:120]
    except N8nError as error:
        return "error", str(error).splitlines()[0][:120]


def sample(inputs: list[Path], per_kind: int, scratch: Path) -> list[tuple[str, dict[str, Any], list[str]]]:
    """Up to `per_kind` exports per kind of error: its code and its message without names and
    numbers (E0718 "connects to `X`, which is no node" and "`X` has no input 2" are two kinds)."""
    chosen: list[tuple[str, dict[str, Any], list[str]]] = []
    taken: collections.Counter[tuple[str, str]] = collections.Counter()
    for path in json_files(inputs, scratch):
        for name, document in workflows_in(path):
            errors = [d for d in check_workflow(document) if d.is_error]
            kinds = {(d.code, re.sub(r"`[^`]*`|\d+", "", d.message)) for d in errors}
            wanted = [kind for kind in kinds if taken[kind] < per_kind]
            if wanted:
                taken.update(wanted)
                chosen.append((Path(name).name, document, sorted({d.code for d in errors})))
    return chosen


def unique_paths(document: dict[str, Any]) -> dict[str, Any]:
    """The workflow with its own webhook paths (workflows on one server must not share one)."""
    workflow = copy.deepcopy(document)
    for node in workflow["nodes"]:
        parameters = node.get("parameters") if isinstance(node, dict) else None
        if isinstance(parameters, dict) and "path" in parameters and "webhook" in str(node.get("type", "")).lower():
            parameters["path"] = f"parity-{uuid.uuid4().hex[:10]}"
    workflow["name"] = f"parity {uuid.uuid4().hex[:8]}"
    return workflow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--per-kind", type=int, default=8, help="exports per kind of error")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolkiln-parity-") as scratch:
        chosen = sample(args.inputs, args.per_kind, Path(scratch))
    server = N8nServer(install())
    server.start()
    rows = []
    try:
        client = N8nClient(server.url, server.create_api_key(), timeout=60.0)
        for name, document, errors in chosen:
            created, result = answer(lambda d=document: client.create_workflow(unique_paths(d)))
            activated = "-"
            if created == "ok":
                activated, said = answer(lambda i=result["id"]: client.activate_workflow(i))
                activated = activated if activated == "ok" else f"{activated} {said}"
                answer(lambda i=result["id"]: client.deactivate_workflow(i))
                answer(lambda i=result["id"]: client.delete_workflow(i))
            else:
                created = f"{created} {result}"
            rows.append((name, errors, created, activated))
    finally:
        server.stop()
        server.cleanup()
    print(f"n8n {server.home.name}: {len(rows)} exports with lint errors\n")
    print("| export | errors | create | activate |\n|---|---|---|---|")
    for name, errors, created, activated in rows:
        print(f"| {name[:70]} | {' '.join(errors)} | {created} | {activated} |")
    print("\n| code | sampled | n8n refused create | refused activation | accepted both |\n|---|---:|---:|---:|---:|")
    for code in sorted({code for _, errors, _, _ in rows for code in errors}):
        mine = [(c, a) for _, errors, c, a in rows if code in errors]
        refused_create = sum(1 for c, _ in mine if c != "ok")
        refused_activation = sum(1 for c, a in mine if c == "ok" and a != "ok")
        accepted = len(mine) - refused_create - refused_activation
        print(f"| {code} | {len(mine)} | {refused_create} | {refused_activation} | {accepted} |")
    claims = [(c, a) for _, errors, c, a in rows if REFUSED_AT_CREATE & set(errors)]
    agreed = sum(1 for c, _ in claims if c != "ok")
    claimed = ", ".join(sorted(REFUSED_AT_CREATE))
    print(f"\nexports with an error that claims a refused create ({claimed}): n8n refused {agreed} of {len(claims)}")


if __name__ == "__main__":
    main()
