"""A workflow compiled from the DSL, deployed to a real n8n 1.123.50, activated and run.

Reuses the module-scoped server fixture of test_n8n_real.py (install, start, API key, cleanup).
"""

from __future__ import annotations

import uuid
from pathlib import Path

from test_n8n_real import n8n  # noqa: F401 - the module-scoped n8n server fixture

from toolkiln.workflow import compile_workflow

ORDER_TOTAL = Path(__file__).parents[1] / "golden" / "workflows" / "order_total.wf"


def deploy(n8n, source: str) -> tuple[dict, str]:  # noqa: F811
    """Compile, give the copy a unique name and webhook path, create and activate it."""
    workflow = compile_workflow(source).to_n8n()
    tag = uuid.uuid4().hex[:8]
    workflow["name"] = f"{workflow['name']} {tag}"
    webhook = next(node for node in workflow["nodes"] if node["type"] == "n8n-nodes-base.webhook")
    path = f"{webhook['parameters']['path']}-{tag}"
    webhook["parameters"]["path"] = path
    webhook["webhookId"] = str(uuid.uuid4())
    created = n8n.client.create_workflow(workflow)
    n8n.created.append(created["id"])
    return n8n.client.activate_workflow(created["id"]), path


def test_order_total_runs_both_branches_in_n8n(n8n):  # noqa: F811
    workflow, path = deploy(n8n, ORDER_TOTAL.read_text())
    assert workflow["active"] is True

    free = n8n.client.trigger_webhook(path, {"qty": 4, "price": 25, "customer": "ada", "express": False})
    assert (free.status, free.data) == (200, {"customer": "ADA", "total": 100, "shipping": 0,
                                              "note": "free shipping"})

    standard = n8n.client.trigger_webhook(path, {"qty": 3, "price": 12.5, "customer": "bo", "express": False})
    assert (standard.status, standard.data) == (200, {"customer": "BO", "total": 45, "shipping": 7.5,
                                                      "note": "standard"})

    express = n8n.client.trigger_webhook(path, {"qty": 10, "price": 20, "customer": "cy", "express": True})
    assert express.data["note"] == "standard" and express.data["total"] == 207.5


def test_javascript_numbers_are_doubles_in_n8n(n8n):  # noqa: F811
    """The documented difference: toolkiln computes 0.1 + 0.2 exactly; n8n (JavaScript) does not."""
    source = """
workflow float_probe
description "Adds two posted numbers in n8n"
on webhook POST "/float-probe" respond with node
set sum { value = body.a + body.b }
respond reply sum
"""
    _, path = deploy(n8n, source)
    reply = n8n.client.trigger_webhook(path, {"a": 0.1, "b": 0.2})
    assert reply.data == {"value": 0.30000000000000004}
