"""How long n8n serves the previous version of an active workflow after a redeploy.

    python benchmarks/n8n_redeploy.py [--redeploys 8]      # starts the n8n the tests run (2.41.1)

Starts the n8n of tests/integration/n8n_server.py (installed in ~/.cache/toolkiln), deploys a
webhook workflow whose answer is its version number, then redeploys it `--redeploys` times
with `deploy(..., activate=True)` and calls the webhook every 0.05 s after each until the new
version answers. Prints, per redeploy, the seconds the deploy took, the seconds until the new
version answered and the versions the calls saw (docs/decisions.md has the 2.41.1 numbers).
Everything runs on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from n8n_server import N8nServer, install  # the tests' server, beside them

from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.deploy import deploy


def workflow(path: str, version: int) -> dict[str, Any]:
    parameters = {"httpMethod": "POST", "path": path, "responseMode": "lastNode", "options": {}}
    hook = {"name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": [0, 0]}
    assignment = {"id": "v", "name": "v", "value": str(version), "type": "string"}
    answer = {"name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [200, 0]}
    return {
        "name": f"redeploy {path}",
        "nodes": [
            {**hook, "webhookId": str(uuid.uuid5(uuid.NAMESPACE_URL, path)), "parameters": parameters},
            {**answer, "parameters": {"assignments": {"assignments": [assignment]}, "options": {}}},
        ],
        "connections": {"Webhook": {"main": [[{"node": "Set", "type": "main", "index": 0}]]}},
        "settings": {"executionOrder": "v1"},
    }


def answers(client: N8nClient, path: str, version: int, limit: float = 20.0) -> list[str]:
    """What the webhook answers, call after call, until it answers `version` (or `limit` s)."""
    seen: list[str] = []
    started = time.monotonic()
    while time.monotonic() - started < limit:
        answer = client.trigger_webhook(path, {}, raise_for_status=False)
        seen.append(str(answer.data.get("v")) if isinstance(answer.data, dict) else str(answer.status))
        if seen[-1] == str(version):
            break
        time.sleep(0.05)
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redeploys", type=int, default=8)
    args = parser.parse_args()
    server = N8nServer(install())
    server.start()
    try:
        client = N8nClient(server.url, server.create_api_key(), timeout=30.0)
        path = f"redeploy-{uuid.uuid4().hex[:6]}"
        deploy(client, workflow(path, 0), activate=True)
        answers(client, path, 0)
        print("| redeploy | deploy s | new version after s | answers seen |\n|---:|---:|---:|---|")
        old_first = 0
        for version in range(1, args.redeploys + 1):
            started = time.monotonic()
            deploy(client, workflow(path, version), activate=True)
            deployed = time.monotonic()
            seen = answers(client, path, version)
            old_first += seen[0] != str(version)
            print(
                f"| {version} | {deployed - started:.2f} | {time.monotonic() - deployed:.2f} | {' '.join(seen[:8])} |"
            )
        print(f"\nthe first call after {old_first} of {args.redeploys} redeploys ran the previous version")
    finally:
        server.stop()
        server.cleanup()


if __name__ == "__main__":
    main()
