"""Fields that flow between the nodes of an n8n workflow (issue 26, item 4): what reaches an
expression is inferred where n8n fixes it, and only certain mistakes are reported."""

import pytest

from toolkiln.workflow import check_workflow

FLOW = {"W0733", "E0734", "E0735"}


def node(name, type_, version=1, **parameters):
    return {"name": name, "type": type_, "typeVersion": version, "position": [0, 0], "parameters": parameters}


def webhook():
    return node("Webhook", "n8n-nodes-base.webhook", 2, httpMethod="POST", path="p", options={})


def set_node(name, *fields, version=3.4, value="x", **parameters):
    assignments = [{"id": f, "name": f, "value": value, "type": "string"} for f in fields]
    return node(name, "n8n-nodes-base.set", version, assignments={"assignments": assignments}, options={}, **parameters)


def chain(*nodes, extra=()):
    """The nodes connected in a row, and the (source, target) pairs of `extra` too."""
    pairs = list(zip(nodes, nodes[1:])) + [(a, b) for a, b in extra]
    connections = {}
    for a, b in pairs:
        source, target = (a if isinstance(a, str) else a["name"]), (b if isinstance(b, str) else b["name"])
        connections.setdefault(source, {"main": [[]]})["main"][0].append({"node": target, "type": "main", "index": 0})
    return {"name": "w", "nodes": list(nodes), "connections": connections}


def flow(data):
    return [(d.code, d.span.path, d.message, d.hint) for d in check_workflow(data) if d.code in FLOW]


def test_a_field_the_webhook_does_not_give_is_a_warning_listing_what_it_gives():
    [(code, path, message, hint)] = flow(chain(webhook(), set_node("Use", "email", value="={{ $json.email }}")))
    assert (code, path) == ("W0733", "nodes[1].parameters.assignments.assignments[0].value")
    assert message == (
        "no field `email` in the input of `Use`: it has `body`, `executionMode`, `headers`, `params`, `query`, "
        "`webhookUrl`"
    )
    assert hint == "read one of its fields"
    assert flow(chain(webhook(), set_node("Use", "email", value="={{ $json.body.email }}"))) == []


def test_a_misspelt_field_of_a_set_node_is_found_through_an_if_with_a_did_you_mean():
    condition = node("Check", "n8n-nodes-base.if", 2.2, conditions={})
    reader = set_node("Use", "y", value="={{ $json.totl * 2 }}")
    [(code, _, message, hint)] = flow(chain(webhook(), set_node("Price", "total", "currency"), condition, reader))
    assert code == "W0733"
    assert message == "no field `totl` in the input of `Use`: it has `currency`, `total`"
    assert hint == "did you mean `total`?"


def test_a_field_read_from_a_named_node_is_checked_against_that_nodes_output():
    reader = set_node("Use", "y", value="={{ $('Price').item.json['totl'] }}")
    [(code, _, message, _)] = flow(chain(webhook(), set_node("Price", "total"), reader))
    assert (code, message) == ("W0733", "no field `totl` in `Price`'s output: it has `total`")


@pytest.mark.parametrize(
    "before",
    [
        node("Fetch", "n8n-nodes-base.httpRequest", 4.2, url="https://example.invalid"),  # unknown output
        set_node("Keep", "a", includeOtherFields=True),  # keeps the webhook's fields: union
        {**set_node("Fails", "a"), "onError": "continueErrorOutput"},  # a failed item has `error`
        {**set_node("Off", "a"), "disabled": True},  # passes the webhook's item on
    ],
    ids=["unknown", "include-other-fields", "on-error", "disabled"],
)
def test_what_is_not_certain_stays_silent(before):
    reader = set_node("Use", "y", value="={{ $json.body }} {{ $json.a }}")
    findings = flow(chain(webhook(), before, reader))
    if before["name"] == "Off":  # the webhook's item: `a` is not in it
        assert [f[2] for f in findings] == [
            "no field `a` in the input of `Use`: it has `body`, `executionMode`, `headers`, `params`, `query`, `webhookUrl`"
        ]
    else:
        assert findings == []


@pytest.mark.parametrize(
    "value",
    [
        "={{ $json.body?.email || $json.email }}",  # a fallback: the missing field is expected
        "=$('title').text() {{ $json.body }}",  # outside {{ }}: text n8n does not evaluate
        "={{ $json.isEmpty() }}",  # a method, not a field
    ],
)
def test_expressions_that_allow_for_a_missing_field_stay_silent(value):
    assert flow(chain(webhook(), set_node("Use", "y", value=value))) == []


def test_a_node_that_does_not_exist_is_an_error_with_the_closest_name():
    reader = set_node("Use", "y", value='={{ $node["Prices"].json.total }}')
    [(code, path, message, hint)] = flow(chain(webhook(), set_node("Price", "total"), reader))
    assert (code, path) == ("E0734", "nodes[2].parameters.assignments.assignments[0].value")
    assert message == "`Use` reads node `Prices`, which is no node"
    assert hint == "did you mean `Price`?"


def test_a_name_written_with_javascript_escapes_is_the_node_it_names():
    reader = set_node("Use", "y", value="={{ $('\\ud83d\\udd27 Fix \\'it\\'').first().json.a }}")
    assert flow(chain(webhook(), set_node("🔧 Fix 'it'", "a"), reader)) == []


def test_following_an_item_back_to_a_node_no_path_connects_is_an_error():
    side = set_node("Side", "x")
    reader = set_node("Use", "y", value="={{ $('Side').item.json.x }}")
    [(code, _, message, hint)] = flow(
        chain(webhook(), reader, extra=[("Webhook", side)]) | {"nodes": [webhook(), side, reader]}
    )
    assert code == "E0735"
    assert message == (
        "`Use` reads `$('Side').item`, but no connection leads from `Side` to `Use`: n8n cannot find the item it came from"
    )
    assert hint == "connect `Side` before `Use`, or read `$('Side').first()`"
    first = set_node("Use", "y", value="={{ $('Side').first().json.x }}")
    assert flow(chain(webhook(), first, extra=[("Webhook", side)]) | {"nodes": [webhook(), side, first]}) == []


def test_two_nodes_of_one_name_get_no_data_flow_findings():
    reader = set_node("Use", "y", value="={{ $json.nothing }}")
    data = chain(webhook(), reader)
    data["nodes"].append(set_node("Use", "z"))
    assert flow(data) == []
