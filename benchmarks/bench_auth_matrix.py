"""The REST auth matrix: every route of a real `toolkiln serve` x who calls it, as a table.

    python benchmarks/bench_auth_matrix.py [--allow WORD ...]

Starts `toolkiln serve` on a fresh registry holding a compute tool (and a model's high-risk one
waiting for approval, which approve and reject name; both are made again before each request
when a delete removed them), makes a token for each
scope held by a person and an admin token held by a model and by a service, then sends every
route of the server's OpenAPI document (and the web page's sign-in) once per caller, from the
narrowest to the widest, with a harmless body. Each cell says what stopped the request, or
that it got through: `401` (no or bad token), `scope` (403 R0503), `policy` (403 R0201, R0701,
R0702, or 422 R0612: the caller's kind), `grant` (403 R0700: a capability the server did not grant), `ok`
(anything else: the request reached the route; 404 or 422 then are the route's own answers).
A script, not a test: docs/security.md quotes its table.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' server process helper

from test_server_support import ServerProcess, answer, compute_tool  # noqa: E402

from toolkiln import Registry  # noqa: E402
from toolkiln.server.state import state_folder  # noqa: E402
from toolkiln.server.tokens import TokenStore  # noqa: E402

CALLERS = (
    ("none", None, None),
    ("read", "person", "read"),
    ("run", "person", "run"),
    ("write", "person", "write"),
    ("admin", "person", "admin"),
    ("model admin", "model", "admin"),
    ("service admin", "service", "admin"),
)
PATH_VALUES = {"name": "double", "slug": "lead-followup", "version": "1", "format": "openai", "call_id": "c" + "0" * 24}
SCRIPT = {"kind": "script", "name": "loose", "description": "d", "runtime": "bash", "body": "cat", "sandbox": "none"}
BODIES: dict[str, Any] = {  # harmless bodies that reach the route; the rest get {}
    "/api/v1/tools": {"definition": SCRIPT},
    "/api/tools": SCRIPT,
    "/api/v1/tokens": {"name": "made", "kind": "person", "scope": "read"},
    "/api/v1/tools/{name}/call-approval": {"required": False},
}
VERDICTS = {"R0503": "scope", "R0201": "policy", "R0701": "policy", "R0702": "policy", "R0700": "grant"}
PENDING = 'tool pending_one(x: number) description "A model\'s risky tool" risk high {\n  return x + 1\n}'


def verdict(answer: httpx.Response) -> str:
    if answer.status_code == 401:
        return "401"
    if answer.status_code not in (403, 422):
        return "ok"
    try:
        code = answer.json().get("code")
    except ValueError:
        return str(answer.status_code)
    if answer.status_code == 422:
        return "policy" if code == "R0612" else "ok"
    return VERDICTS.get(code, "403")


def restock(reg: Registry) -> None:
    """The tools the routes name, as they were at the start (a delete may have removed one)."""
    if "double" not in reg:
        reg.create(compute_tool("double"))
    if "pending_one" not in reg:
        reg.create(PENDING, created_by="llm")
    elif reg.get("pending_one").status != "pending_approval":
        reg.delete("pending_one")
        reg.create(PENDING, created_by="llm")


def routes(server: ServerProcess, admin: str) -> list[tuple[str, str]]:
    with server.client(admin) as http:
        paths = http.get("/openapi.json").json()["paths"]
    found = []
    for path, methods in sorted(paths.items()):
        for method in sorted(methods):
            if method in ("get", "post", "put", "patch", "delete"):
                found.append((method.upper(), path))
    return found


def concrete(path: str) -> str:
    if path.endswith(("/approve", "/reject")):
        path = path.replace("{name}", "pending_one")
    for key, value in PATH_VALUES.items():
        path = path.replace("{" + key + "}", value)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--allow", action="append", default=[], help="start the server with this --allow")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        registry = Path(folder) / "registry"
        reg = Registry(registry)
        store = TokenStore(state_folder(registry))
        tokens = {label: store.create(label.replace(" ", "-"), scope, kind)[0] for label, kind, scope in CALLERS[1:]}
        server = ServerProcess(registry, "--rate-limit", "", *[f"--allow={word}" for word in options.allow])
        try:
            table = []
            for method, path in routes(server, tokens["admin"]):
                row = []
                for label, _, _ in CALLERS:
                    restock(reg)
                    with server.client(tokens.get(label)) as http:
                        body = BODIES.get(path, {}) if method in ("POST", "PUT", "PATCH") else None
                        row.append(verdict(answer(http, method, concrete(path), json=body)))
                table.append((method, path, row))
        finally:
            server.stop()
            reg.close()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    granted = ", ".join(options.allow) or "none"
    print(f"REST auth matrix, {when}, {platform.system()} {platform.machine()}, capabilities granted: {granted}\n")
    print("| route | " + " | ".join(label for label, _, _ in CALLERS) + " |")
    print("|---|" + "---|" * len(CALLERS))
    for method, path, row in table:
        print(f"| `{method} {path}` | " + " | ".join(row) + " |")
    counts = {v: sum(row.count(v) for _, _, row in table) for v in ("401", "scope", "policy", "grant", "ok", "403")}
    print(f"\n{len(table)} routes x {len(CALLERS)} callers: " + ", ".join(f"{v} {n}" for v, n in counts.items() if n))


if __name__ == "__main__":
    main()
