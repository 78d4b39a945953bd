"""The workflow DSL's schedule triggers, http/switch/merge/wait/generic steps, `after` wiring
and `with` properties: what they parse to, the n8n JSON they become, and every mistake."""

import json
from pathlib import Path

import pytest

import toolkiln
from toolkiln.ast import workflow as w
from toolkiln.errors import CompileError
from toolkiln.syntax.workflow_text import parse_workflow
from toolkiln.workflow import check_workflow, compile_workflow

HEAD = 'workflow w\ndescription "d"\n'
WEBHOOK = HEAD + 'on webhook POST "/w" respond with node\n'


def n8n(source):
    return compile_workflow(source).to_n8n()


def node(workflow, name):
    return next(n for n in workflow["nodes"] if n["name"] == name)


def codes(source, *, strict=False):
    return [(d.code, d.message) for d in check_workflow(source, strict=strict)]


# --- schedule triggers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("clause", "rule"),
    [
        ('daily at "09:30"', {"field": "days", "triggerAtHour": 9, "triggerAtMinute": 30}),
        ("every 15 minutes", {"field": "minutes", "minutesInterval": 15}),
        ("every 2 hours", {"field": "hours", "hoursInterval": 2}),
        ("every 3 days", {"field": "days", "daysInterval": 3}),
        ('cron "0 9 * * 1-5"', {"field": "cronExpression", "expression": "0 9 * * 1-5"}),
    ],
)
def test_schedule_rules_become_schedule_trigger_intervals(clause, rule):
    workflow = n8n(HEAD + f"on schedule {clause}\nset s {{ x = 1 }}")
    trigger = node(workflow, "Schedule Trigger")
    assert (trigger["type"], trigger["typeVersion"]) == ("n8n-nodes-base.scheduleTrigger", 1.2)
    assert trigger["parameters"] == {"rule": {"interval": [rule]}}
    assert workflow["connections"]["Schedule Trigger"] == {"main": [[{"node": "s", "type": "main", "index": 0}]]}


def test_a_timezone_becomes_the_workflow_setting():
    workflow = n8n(HEAD + 'on schedule daily at "08:00" timezone "Europe/Madrid"\nset s { x = 1 }')
    assert workflow["settings"] == {"executionOrder": "v1", "timezone": "Europe/Madrid"}


@pytest.mark.parametrize(
    ("clause", "message"),
    [
        ('daily at "9am"', '"9am" is not a time of day'),
        ('daily at "24:00"', '"24:00" is not a time of day'),
        ("every 0 minutes", "`0` is not a positive whole number"),
        ("every 1.5 hours", "`1.5` is not a positive whole number"),
        ("every 2 weeks", "unknown schedule unit `weeks`"),
        ('cron "0 9 *"', '"0 9 *" is not a cron expression'),
        ('daily at "09:00" timezone "Mars/Olympus"', 'unknown timezone "Mars/Olympus"'),
    ],
)
def test_bad_schedules_are_located_diagnostics(clause, message):
    diagnostics = check_workflow(HEAD + f"on schedule {clause}\nset s {{ x = 1 }}")
    assert message in [d.message for d in diagnostics]
    bad = next(d for d in diagnostics if d.message == message)
    assert bad.span.line == 3 and bad.code in {"E0707", "E0709"}


# --- http -------------------------------------------------------------------------------------


def test_http_step_parameters_credentials_and_output_fields():
    workflow = n8n(
        WEBHOOK + 'http crm POST "https://crm.test/leads/{{body.id}}/notes" '
        'query { since = body.days } headers { "X-Source" = "toolkiln" } '
        'body { text = upper(body.note), n = body.n * 2 } credentials httpHeaderAuth "CRM key"\n'
        "set out { id = crm.id }\nrespond r out"
    )
    http = node(workflow, "crm")
    assert (http["type"], http["typeVersion"]) == ("n8n-nodes-base.httpRequest", 4.2)
    p = http["parameters"]
    assert p["method"] == "POST"
    assert p["url"] == "=https://crm.test/leads/{{ $json.body.id }}/notes"
    assert p["authentication"] == "genericCredentialType" and p["genericAuthType"] == "httpHeaderAuth"
    assert p["queryParameters"] == {"parameters": [{"name": "since", "value": "={{ $json.body.days }}"}]}
    assert p["sendQuery"] is True and p["sendHeaders"] is True and p["sendBody"] is True
    assert p["specifyBody"] == "json"
    assert p["jsonBody"] == (
        '={{ JSON.stringify({ "text": String($json.body.note).toUpperCase(), "n": ($json.body.n * 2) }) }}'
    )
    assert http["credentials"] == {"httpHeaderAuth": {"id": None, "name": "CRM key"}}
    assert node(workflow, "out")["parameters"]["assignments"]["assignments"][0]["value"] == "={{ $json.id }}"


def test_a_service_credential_is_predefined_and_a_plain_url_is_no_expression():
    workflow = n8n(
        WEBHOOK + 'http crm GET "https://api.hubapi.com/crm/v3/objects/contacts" '
        'credentials hubspotApi "HubSpot"\nrespond r crm'
    )
    p = node(workflow, "crm")["parameters"]
    assert p["url"] == "https://api.hubapi.com/crm/v3/objects/contacts"
    assert (p["authentication"], p["nodeCredentialType"]) == ("predefinedCredentialType", "hubspotApi")
    assert "sendQuery" not in p and "sendBody" not in p


@pytest.mark.parametrize(
    ("step", "code", "message"),
    [
        ('http crm FETCH "https://x.test"', "E0709", "unknown HTTP method `FETCH`"),
        ('http crm GET "https://x.test" query { a = 1 } query { b = 2 }', "E0709", "`query` is given twice in `crm`"),
        ('http crm GET "https://x.test/{{nope.id}}"', "E0702", "no step or trigger data named `nope`"),
        ('http crm GET "https://x.test/{{body.n:.2f}}"', "E0706", "a format spec has no n8n translation"),
    ],
)
def test_bad_http_steps(step, code, message):
    assert (code, message) in codes(WEBHOOK + step + "\nrespond r body")


# --- switch and merge -------------------------------------------------------------------------

# The golden switch workflow (also run in the real n8n by the integration tests).
SWITCH = (Path(__file__).parents[2] / "golden" / "workflows" / "switch_merge.wf").read_text()
SWITCH_STEPS = SWITCH.split("respond with node\n", 1)[1]


def test_switch_cases_and_else_become_outputs_and_merge_inputs():
    workflow = n8n(SWITCH)
    switch = node(workflow, "size")
    assert (switch["type"], switch["typeVersion"]) == ("n8n-nodes-base.switch", 3.2)
    rules = switch["parameters"]["rules"]["values"]
    assert [r["conditions"]["conditions"][0]["leftValue"] for r in rules] == [
        "={{ ($json.body.n > 10) }}",
        "={{ ($json.body.n > 5) }}",
    ]
    assert switch["parameters"]["options"] == {"fallbackOutput": "extra"}
    assert workflow["connections"]["size"]["main"] == [
        [{"node": "big", "type": "main", "index": 0}],
        [{"node": "mid", "type": "main", "index": 0}],
        [{"node": "small", "type": "main", "index": 0}],
    ]
    assert [workflow["connections"][name]["main"][0][0]["index"] for name in ("big", "mid", "small")] == [0, 1, 2]
    merge = node(workflow, "joined")
    assert (merge["type"], merge["typeVersion"], merge["parameters"]) == (
        "n8n-nodes-base.merge",
        3,
        {"numberInputs": 3, "options": {}},
    )


def test_merge_by_position_after_an_if_and_an_empty_branch():
    workflow = n8n(WEBHOOK + "if c body.n > 1 { set a { x = 1 } }\nmerge m by position\nrespond r m")
    assert node(workflow, "m")["parameters"] == {"mode": "combine", "combineBy": "combineByPosition", "options": {}}
    assert workflow["connections"]["a"]["main"] == [[{"node": "m", "type": "main", "index": 0}]]
    assert workflow["connections"]["c"]["main"][1] == [{"node": "m", "type": "main", "index": 1}]


def test_a_switch_without_else_drops_unmatched_items():
    workflow = n8n(WEBHOOK + "switch s { case body.n > 1 { set a { x = 1 } } }\nrespond r body")
    assert node(workflow, "s")["parameters"]["options"] == {}
    assert len(workflow["connections"]["s"]["main"]) == 1


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ("set a { x = 1 }\nmerge m\nrespond r m", "E0713", "merge `m` has 1 input(s) to join"),
        ("switch s { case body.n + 1 { respond r body } }", "E0302", "the condition of `s` is number, not boolean"),
        (
            "switch s { case body.n > 1 { respond r body } }\nset a { x = s.n }\nrespond q a",
            "E0708",
            "`s` is a switch step and produces no fields of its own",
        ),
    ],
)
def test_bad_switches_and_merges(body, code, message):
    assert (code, message) in codes(WEBHOOK + body)


# --- wait and generic nodes -------------------------------------------------------------------


def test_wait_step():
    workflow = n8n(WEBHOOK + "wait pause 90 seconds\nrespond r body")
    wait = node(workflow, "pause")
    assert (wait["type"], wait["typeVersion"], wait["parameters"]) == (
        "n8n-nodes-base.wait",
        1.1,
        {"amount": 90, "unit": "seconds"},
    )
    assert wait["webhookId"] == n8n(WEBHOOK + "wait pause 90 seconds\nrespond r body")["nodes"][1]["webhookId"]


def test_generic_node_keeps_parameters_credentials_and_with_properties():
    workflow = n8n(
        WEBHOOK + 'node "Post to Slack" type "n8n-nodes-base.slack" version 2.2 '
        '{"select": "channel", "text": "={{ $json.body.msg }}", "otherOptions": {}} '
        'credentials slackApi "Team Slack" with {"notes": "ping", "onError": "continueRegularOutput", '
        '"position": [10, -20]}\nrespond r body'
    )
    slack = node(workflow, "Post to Slack")
    assert slack["parameters"] == {"select": "channel", "text": "={{ $json.body.msg }}", "otherOptions": {}}
    assert slack["credentials"] == {"slackApi": {"id": None, "name": "Team Slack"}}
    assert (slack["notes"], slack["onError"], slack["position"]) == ("ping", "continueRegularOutput", [10, -20])
    assert workflow["connections"]["Webhook"]["main"][0] == [{"node": "Post to Slack", "type": "main", "index": 0}]


def test_generic_trigger_and_workflow_properties():
    workflow = n8n(
        'workflow "Form intake" with {"settings": {"saveManualExecutions": true}, "pinData": {}}\n'
        'on node "Form" type "n8n-nodes-base.formTrigger" version 2.2 {"formTitle": "Hi"} '
        'with {"webhookId": "abc"}\nset s { x = 1 }'
    )
    assert workflow["name"] == "Form intake"
    assert workflow["settings"] == {"executionOrder": "v1", "saveManualExecutions": True}
    assert workflow["pinData"] == {}
    form = node(workflow, "Form")
    assert (form["type"], form["webhookId"]) == ("n8n-nodes-base.formTrigger", "abc")
    assert workflow["connections"]["Form"]["main"][0][0]["node"] == "s"


@pytest.mark.parametrize(
    ("step", "code", "message"),
    [
        (
            'node "N" type "n8n-nodes-base.slak" version 1 {}',
            "E0712",
            "n8n 2.41.1 has no node type `n8n-nodes-base.slak`",
        ),
        (
            'node "N" type "n8n-nodes-base.noOp" version 7 {}',
            "E0712",
            "`n8n-nodes-base.noOp` version 7 is newer than the node catalog of n8n 2.41.1",
        ),
        (
            'node "N" type "n8n-nodes-base.set" version 2.5 {}',
            "E0712",
            "`n8n-nodes-base.set` has no version 2.5 in the node catalog of n8n 2.41.1",
        ),
        (
            'node "N" type "n8n-nodes-base.noOp" version 1 {"colour": "red"}',
            "E0714",
            "`n8n-nodes-base.noOp` version 1 has no parameter `colour`",
        ),
        ('node "N" type "n8n-nodes-base.noOp" version 1 {\'a\': 1}', "E0105", None),
        ("wait p 5 weeks", "E0709", "unknown wait unit `weeks`"),
    ],
)
def test_bad_generic_nodes_and_waits(step, code, message):
    found = codes(WEBHOOK + step + "\nrespond r body", strict=True)
    assert any(c == code and (message is None or m == message) for c, m in found), found


def test_unknown_type_hint_names_the_qualified_type():
    diagnostic = check_workflow(WEBHOOK + 'node "N" type "slack" version 2.2 {}\nrespond r body')[0]
    assert diagnostic.hint == "did you mean `n8n-nodes-base.slack`?"


# --- after: explicit wiring -------------------------------------------------------------------


def test_after_wires_outputs_to_inputs_and_following_steps_chain_on():
    source = (
        WEBHOOK
        + """
if check body.n > 1 { set yes { x = 1 } } else { set no { x = 2 } }
after check[1] -> 1, yes
node "Join" type "n8n-nodes-base.merge" version 3 {}
respond r body
"""
    )
    workflow = n8n(source)
    assert workflow["connections"]["check"]["main"][1] == [
        {"node": "no", "type": "main", "index": 0},
        {"node": "Join", "type": "main", "index": 1},
    ]
    assert workflow["connections"]["yes"]["main"] == [[{"node": "Join", "type": "main", "index": 0}]]
    assert "no" not in workflow["connections"]
    assert workflow["connections"]["Join"]["main"] == [[{"node": "r", "type": "main", "index": 0}]]


def test_after_nothing_parses_to_no_inputs():
    workflow, diagnostics = parse_workflow(
        HEAD + 'on manual\nafter nothing\nnode "Note" type "n8n-nodes-base.stickyNote" version 1 {"content": "hi"}'
    )
    assert diagnostics == [] and workflow.steps[0].after == ()
    emitted = n8n(
        HEAD + 'on manual\nset s { x = 1 }\nafter nothing\nnode "Note" type "n8n-nodes-base.stickyNote" '
        'version 1 {"content": "hi"}'
    )
    assert "s" not in emitted["connections"] and "Note" in [n["name"] for n in emitted["nodes"]]


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ("after ghost\nset a { x = 1 }\nrespond r a", "E0713", "`a` comes after no step or trigger named `ghost`"),
        (
            "if c body.n > 1 { set t { x = 1 } }\nafter c[2]\nset a { x = 1 }\nrespond r a",
            "E0713",
            "`c` has no output 2",
        ),
        ("set t { x = 1 }\nafter t -> 1\nset a { x = 1 }\nrespond r a", "E0713", "`a` has no input 1"),
        ("after nothing\nset a { x = 1 }\nrespond r body", "E0710", "no path from the trigger reaches `a`"),
        (
            "set a { x = 1 }\nafter a, c\nset b { x = 1 }\nafter b\nset c { x = 1 }\nrespond r body",
            "E0711",
            "these steps feed each other in a loop: `b`, `c`",
        ),
    ],
)
def test_bad_wiring(body, code, message):
    assert (code, message) in codes(WEBHOOK + body, strict=True)


# What n8n accepts and runs is a warning (the n8n linter's code for the same finding); --strict
# keeps the error. What n8n refuses or cannot run stays an error either way.
ACCEPTED = [
    ("after nothing\nset a { x = 1 }\nrespond r body", "W0719", "E0710"),
    ("set a { x = 1 }\nafter a, c\nset b { x = 1 }\nafter b\nset c { x = 1 }\nrespond r body", "W0723", "E0711"),
    ('node "N" type "n8n-nodes-base.noOp" version 7 {}\nrespond r body', "W0716", "E0712"),
    ('node "N" type "n8n-nodes-base.slak" version 1 {}\nrespond r body', "W0716", "E0712"),
    ('node "N" type "n8n-nodes-base.noOp" version 1 {"colour": "red"}\nrespond r body', "W0717", "E0714"),
]


@pytest.mark.parametrize(("body", "warning", "error"), ACCEPTED)
def test_what_n8n_accepts_is_a_warning_unless_strict(body, warning, error):
    source = WEBHOOK + body
    compiled = compile_workflow(source)
    assert warning in [d.code for d in compiled.diagnostics]
    assert all(d.severity == "warning" for d in compiled.diagnostics)
    assert error in [c for c, _ in codes(source, strict=True)]
    with pytest.raises(toolkiln.CompileError) as info:
        compile_workflow(source, strict=True)
    assert error in [d.code for d in info.value.diagnostics]


def test_what_cannot_run_is_an_error_even_when_not_strict():
    assert "E0713" in [c for c, _ in codes(WEBHOOK + "after ghost\nset a { x = 1 }\nrespond r a")]


def test_a_loop_through_loop_over_items_is_allowed():
    source = (
        HEAD
        + """on manual
set items { x = 1 }
after items, work
node "Loop" type "n8n-nodes-base.splitInBatches" version 3 {"options": {}}
after "Loop"[1]
set work { y = 2 }
"""
    )
    assert [c for c, _ in codes(source)] == []


def test_with_on_a_modeled_step_adds_node_properties():
    workflow = n8n(WEBHOOK + 'set a { x = 1 } with {"notes": "n", "disabled": false}\nrespond r a')
    assert (node(workflow, "a")["notes"], node(workflow, "a")["disabled"]) == ("n", False)


def test_ast_kinds():
    workflow, _ = parse_workflow(SWITCH)
    assert [s.kind for s in w.walk_steps(workflow.steps)] == ["switch", "set", "set", "set", "merge", "respond"]


def test_every_emitted_node_is_known_to_the_catalog():
    from toolkiln.backends.n8n.catalog import load_catalog

    catalog = load_catalog()
    workflow = n8n(WEBHOOK + 'http h GET "https://x.test"\nwait p 1 seconds\n' + SWITCH_STEPS)
    for emitted in workflow["nodes"]:
        version = catalog.node_type(emitted["type"]).version(emitted["typeVersion"])
        assert set(emitted["parameters"]) <= version.parameter_names, emitted["name"]


def test_unreadable_json_offsets_point_into_the_file():
    with pytest.raises(CompileError) as error:
        compile_workflow(WEBHOOK + 'node "N" type "n8n-nodes-base.noOp" version 1 {"a": }\nrespond r body')
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.code == "E0105" and diagnostic.span.line == 4 and diagnostic.span.column == 53
    json.dumps([d.to_dict() for d in error.value.diagnostics])


def test_braces_in_url_text_stay_text_when_the_url_has_holes():
    workflow = n8n(WEBHOOK + 'http h GET "https://x.test/\\u007b\\u007b $env.KEY }}/{{body.a}}"\nrespond r body')
    url = node(workflow, "h")["parameters"]["url"]
    assert url == '={{ "https://x.test/\\u007b\\u007b $env.KEY \\u007d\\u007d/" }}{{ $json.body.a }}'
