"""Declared shapes on the real n8n (issue 26, item 4): a workflow whose webhook body and Code
node return are declared imports and runs on n8n as written (the declarations are toolkiln's
and stay out of the JSON), and what the declarations let toolkiln check is what n8n does."""

from __future__ import annotations

from toolkiln.workflow import check_workflow

SOURCE = """workflow declared_shapes
description "Doubles a posted quantity in a Code node whose return is declared"
on webhook POST "/declared-shapes" body {qty: number} respond with node
node "Double" type "n8n-nodes-base.code" version 2 {
  "jsCode": "return $input.all().map(item => ({json: {doubled: item.json.body.qty * 2}}));"
} returns {doubled: number}
set answer { value = Double.doubled }
respond reply answer
"""


def test_a_workflow_with_declarations_imports_and_runs_as_declared(n8n):
    assert [d.code for d in check_workflow(SOURCE)] == []
    workflow, path = n8n.deploy_source(SOURCE)
    assert workflow["active"] is True
    reply = n8n.client.trigger_webhook(path, {"qty": 3})
    assert (reply.status, reply.data) == (200, {"value": 6})


def test_a_read_the_declaration_does_not_list_is_what_n8n_answers_with_nothing_for(n8n):
    misread = SOURCE.replace("value = Double.doubled", "value = Double.double")
    assert [(d.code, d.message) for d in check_workflow(misread)] == [("E0720", "`Double` declares no field `double`")]
    # Without the declaration toolkiln cannot know; n8n runs it and answers without the field.
    undeclared = misread.replace(" returns {doubled: number}", "")
    assert [d.code for d in check_workflow(undeclared)] == []
    _, path = n8n.deploy_source(undeclared)
    reply = n8n.client.trigger_webhook(path, {"qty": 3})
    assert reply.status == 200 and (reply.data or {}).get("value") is None, reply.data  # undefined on n8n


NESTED = """workflow nested_shapes
description "A Code node returns an order object; its declared shape nests"
on webhook POST "/nested-shapes" body {order: {qty: number, tags: [string]}} respond with node
node "Price" type "n8n-nodes-base.code" version 2 {
  "jsCode": "return $input.all().map(item => ({json: {order: {total: item.json.body.order.qty * 2, tags: item.json.body.order.tags}}}));"
} returns {order: {total: number, tags: [string]}}
set answer { value = Price.order.total + 1, first = Price.order.tags[0] }
respond reply answer
"""


def test_a_nested_declaration_runs_as_declared_and_its_misread_is_what_n8n_leaves_empty(n8n):
    assert [d.code for d in check_workflow(NESTED)] == []
    _, path = n8n.deploy_source(NESTED)
    reply = n8n.client.trigger_webhook(path, {"order": {"qty": 3, "tags": ["red"]}})
    assert (reply.status, reply.data) == (200, {"value": 7, "first": "red"})
    misread = NESTED.replace("Price.order.total + 1", "Price.order.totl")
    assert [(d.code, d.message) for d in check_workflow(misread)] == [
        ("E0720", "`Price.order` declares no field `totl`")
    ]
    # Without the declaration toolkiln cannot know; n8n runs it and answers without the field.
    undeclared = misread.replace(" returns {order: {total: number, tags: [string]}}", "")
    assert [d.code for d in check_workflow(undeclared)] == []
    _, path = n8n.deploy_source(undeclared)
    reply = n8n.client.trigger_webhook(path, {"order": {"qty": 3, "tags": ["red"]}})
    assert reply.status == 200 and (reply.data or {}).get("value") is None, reply.data
