"""A workflow compiled from the DSL, deployed to a real n8n (conftest.py), activated and run.

Uses the session's n8n server (conftest.py).
"""

from __future__ import annotations

from pathlib import Path

ORDER_TOTAL = Path(__file__).parents[1] / "golden" / "workflows" / "order_total.wf"


def test_order_total_runs_both_branches_in_n8n(n8n):
    workflow, path = n8n.deploy_source(ORDER_TOTAL.read_text())
    assert workflow["active"] is True

    free = n8n.client.trigger_webhook(path, {"qty": 4, "price": 25, "customer": "ada", "express": False})
    assert (free.status, free.data) == (200, {"customer": "ADA", "total": 100, "shipping": 0, "note": "free shipping"})

    standard = n8n.client.trigger_webhook(path, {"qty": 3, "price": 12.5, "customer": "bo", "express": False})
    assert (standard.status, standard.data) == (
        200,
        {"customer": "BO", "total": 45, "shipping": 7.5, "note": "standard"},
    )

    express = n8n.client.trigger_webhook(path, {"qty": 10, "price": 20, "customer": "cy", "express": True})
    assert express.data["note"] == "standard" and express.data["total"] == 207.5


def test_javascript_numbers_are_doubles_in_n8n(n8n):
    """The documented difference: toolkiln computes 0.1 + 0.2 exactly; n8n (JavaScript) does not."""
    source = """
workflow float_probe
description "Adds two posted numbers in n8n"
on webhook POST "/float-probe" respond with node
set sum { value = body.a + body.b }
respond reply sum
"""
    _, path = n8n.deploy_source(source)
    reply = n8n.client.trigger_webhook(path, {"a": 0.1, "b": 0.2})
    assert reply.data == {"value": 0.30000000000000004}
