"""The data-flow check (W0733, E0734, E0735) on workflows written in the DSL (issue 26, item 4):
`$json` and `$('Node')` reads in a `node` step's raw n8n parameters are checked against what
the compiled workflow feeds that node, and located in the `.wf` text."""

import toolkiln
from toolkiln.workflow import check_workflow

FLOW = {"W0733", "E0734", "E0735"}
HEAD = 'workflow orders\ndescription "d"\non webhook POST "/orders"\n'


def flow(text):
    return [(d.code, d.span.line, d.span.column, d.message, d.hint) for d in check_workflow(text) if d.code in FLOW]


def noop(name, parameters, after=""):
    return f'{after}node "{name}" type "n8n-nodes-base.noOp" version 1 {parameters}\n'


def test_a_misspelt_field_of_a_set_step_is_a_warning_at_the_value_in_the_wf_text():
    text = (
        HEAD
        + "set priced { total = body.qty, currency = 'EUR' }\n"
        + noop("Notify", '{\n  "text": "={{ $json.totl }}"\n}')
    )
    [(code, line, column, message, hint)] = flow(text)
    assert (code, line, column) == ("W0733", 6, 11)
    assert message == "no field `totl` in the input of `Notify`: it has `currency`, `total`"
    assert hint == "did you mean `total`?"
    assert flow(text.replace("totl", "total")) == []


def test_a_field_the_webhook_does_not_give_is_found_in_a_nested_parameter():
    text = HEAD + noop("Notify", '{"options": {"list": ["a", "={{ $json.email }}"]}}')
    [(code, line, column, message, _)] = flow(text)
    assert (code, line, column) == ("W0733", 4, text.splitlines()[3].index('"={{') + 1)
    assert message.startswith("no field `email` in the input of `Notify`: it has `body`")


def test_a_node_that_does_not_exist_is_an_error_with_the_closest_name():
    text = (
        HEAD + "set priced { total = body.qty }\n" + noop("Notify", '{"text": "={{ $(\'Priced\').item.json.total }}"}')
    )
    [(code, line, _, message, hint)] = flow(text)
    assert (code, line, message, hint) == (
        "E0734",
        5,
        "`Notify` reads node `Priced`, which is no node",
        "did you mean `priced`?",
    )


def test_following_items_back_to_a_node_on_another_branch_is_an_error():
    text = HEAD + (
        "if big body.qty > 1 {\n  set many { n = body.qty }\n} else {\n"
        + noop("Few", '{"text": "={{ $(\'many\').item.json.n }}"}', after="  ")
        + "}\n"
    )
    [(code, line, _, message, _)] = flow(text)
    assert (code, line) == ("E0735", 7)
    assert "no connection leads from `many` to `Few`" in message
    assert flow(text.replace(".item.", ".first().")) == []


def test_the_dsl_steps_own_reads_and_unknown_shapes_stay_silent():
    # `priced.total` is the DSL's own read (E0720 checks it); after an http step the input is unknown
    text = HEAD + (
        "set priced { total = body.qty }\nset again { t = priced.total }\n"
        'http fetch GET "https://example.invalid/x"\n'
        + noop("Notify", '{"text": "={{ $json.anything }} {{ $(\'again\').item.json.t }}"}')
    )
    assert flow(text) == []


def test_compiling_keeps_working_since_n8n_accepts_the_workflow_and_fails_only_when_the_node_runs():
    text = HEAD + noop("Notify", '{"text": "={{ $(\'Gone\').item.json.x }}"}')
    assert [code for code, *_ in flow(text)] == ["E0734"]
    compiled = toolkiln.compile_workflow(text)
    assert compiled.to_n8n()["nodes"][1]["parameters"] == {"text": "={{ $('Gone').item.json.x }}"}
