"""The factory, driven through the real HTTP clients against the fake provider (both wire
formats) and through ScriptedClient: repairs with the model until the tool checks and its
examples pass, re-asks with only the last attempt and its JSON diagnostics, saves as "llm"
under the registry's policy, and ends with a clear error on provider failures."""

import copy
import json

import pytest
from unit.llm.fake_llm_server import KEY, Calls, Fail, Huge, Text

from toolkiln import Registry
from toolkiln.cli.app import main
from toolkiln.errors import CompileError, UsageError
from toolkiln.llm import LLMConfigError, LLMReplyTooLarge, LLMServerError, ScriptedClient
from toolkiln.llm.extraction import MAX_REPLY_CHARS
from toolkiln.llm.factory import MAX_ECHO_CHARS, Factory
from toolkiln.llm.prompts import COMPUTE_EXAMPLE, SCRIPT_EXAMPLE, WORKFLOW_EXAMPLE
from toolkiln.registry.errors import DuplicateTool

DESCRIPTION = "Shipping cost of a parcel: 5 plus 2.50 per kg, free from 100 of order value"


def fenced(definition, prose="Here is the tool:"):
    return f"{prose}\n```json\n{json.dumps(definition, indent=2)}\n```\n"


def wrong_example():
    definition = copy.deepcopy(COMPUTE_EXAMPLE)
    definition["examples"][0]["expect"] = 11
    return definition


GOOD = fenced(COMPUTE_EXAMPLE)
WRONG = fenced(wrong_example())


@pytest.fixture
def registry(tmp_path):
    with Registry(tmp_path / "reg", durable=False) as reg:
        yield reg


def texts(messages):
    """The text of each message a provider received, whatever its wire format."""
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in messages]


def test_repaired_with_the_model_over_http(make, server, registry):
    server.script(Text("I'd be glad to help! What currency?"), Text(WRONG), Text(GOOD))
    seen = []
    result = Factory(make(max_retries=0), registry, on_attempt=seen.append).create_compute(DESCRIPTION)

    assert result.ok and result.error is None
    assert [[d.code for d in a.diagnostics] for a in result.attempts] == [["E0601"], ["E0611"], []]
    assert seen == list(result.attempts)
    assert result.attempts[1].reply == WRONG and result.attempts[1].source.startswith('{\n  "name"')
    assert result.usage.requests == 3 and result.usage.input_tokens == 36 and result.usage.output_tokens == 21
    record = result.record
    assert (record.name, record.created_by, record.status) == ("shipping_cost", "llm", "active")
    assert registry.run("shipping_cost", {"weight_kg": 2}) == 10
    (entry,) = registry.audit_log()
    assert entry.by == "llm" and DESCRIPTION in entry.note and "3 attempt(s)" in entry.note


def test_the_reask_sends_only_the_last_attempt_and_its_json_diagnostics(make, server, registry):
    server.script(Text("Sorry, I need more details."), Text(WRONG), Text(GOOD))
    Factory(make(max_retries=0), registry).create_compute(DESCRIPTION)
    bodies = [seen.body for seen in server.seen]
    first, third = texts(bodies[0]["messages"]), texts(bodies[2]["messages"])
    assert len(first) == len(third) - 2  # request, then one earlier answer and its problems
    assert DESCRIPTION in first[-1] and third[:-2] == first
    answer, problems = third[-2:]
    assert answer.startswith("```\n{") and "Sorry" not in answer  # attempt 2's definition only
    sent = json.loads(problems[problems.index("[") :])
    assert sent == [
        {
            "code": "E0611",
            "name": "example-failed",
            "severity": "error",
            "message": 'example 1: with args {"weight_kg": 2} expected 11, got 10',
            "file": "definition",
            "path": "examples[0].expect",
            "line": sent[0]["line"],
            "column": 17,
            "end_line": sent[0]["line"],
            "end_column": 18,
            "in_file": True,
            "hint": "fix the logic, or the example if its expected value is wrong",
            "source": '      "expect": 11',
        }
    ]


def test_nothing_is_saved_when_every_attempt_fails(make, server, registry):
    server.script(Text(WRONG), Text(WRONG))
    result = Factory(make(max_retries=0), registry, max_attempts=2).create_compute(DESCRIPTION)
    assert not result.ok and result.record is None and result.error is None
    assert len(result.attempts) == 2 and [d.code for d in result.diagnostics] == ["E0611"]
    assert len(registry) == 0 and registry.audit_log() == []


def test_a_provider_failing_ends_the_run_with_its_error(make, server, registry):
    server.script(Text(WRONG), Fail(500, "overloaded"))
    result = Factory(make(max_retries=0), registry).create_compute(DESCRIPTION)
    assert not result.ok and isinstance(result.error, LLMServerError)
    assert "overloaded" in str(result.error)
    assert len(result.attempts) == 1 and len(registry) == 0


def test_a_reply_bigger_than_the_client_takes_is_an_error(make, server, registry):
    server.script(Huge(size=200_000, declared=False))
    result = Factory(make(max_retries=0, max_reply_bytes=100_000), registry).create_compute(DESCRIPTION)
    assert isinstance(result.error, LLMReplyTooLarge) and result.attempts == ()


def test_a_huge_text_reply_is_a_diagnostic_and_is_not_sent_back(make, server, registry):
    server.script(Text("x" * (MAX_REPLY_CHARS + 1)), Text(GOOD))
    result = Factory(make(max_retries=0), registry).create_compute(DESCRIPTION)
    assert result.ok and [d.code for d in result.attempts[0].diagnostics] == ["E0605"]
    echoed = texts(server.seen[1].body["messages"])[-2]
    assert len(echoed) < MAX_ECHO_CHARS + 100


def test_a_tool_call_instead_of_a_definition_is_fed_back(make, server, registry):
    server.script(Calls([("create_compute_tool", {"definition": COMPUTE_EXAMPLE})]), Text(GOOD))
    result = Factory(make(max_retries=0), registry).create_compute(DESCRIPTION)
    assert result.ok
    (diagnostic,) = result.attempts[0].diagnostics
    assert diagnostic.code == "E0601" and "tool call" in diagnostic.message


def test_a_workflow_waits_for_approval(make, server, registry):
    server.script(Text(fenced(WORKFLOW_EXAMPLE)))
    result = Factory(make(max_retries=0), registry).create_workflow("post new leads to our CRM over HTTP")
    assert result.ok and result.record.kind == "workflow"
    assert (result.record.status, result.record.created_by) == ("pending_approval", "llm")
    system = server.seen[0].body.get("system") or server.seen[0].body["messages"][0]["content"]
    assert "http_step" in system


def test_an_invented_node_type_is_an_error_not_a_warning(registry):
    invented = copy.deepcopy(WORKFLOW_EXAMPLE)
    invented["workflow"] = invented["workflow"].replace(
        "respond done crm", 'node "Tell" type "n8n-nodes-base.slackMessenger" version 1 {}\nrespond done crm'
    )
    client = ScriptedClient([fenced(invented), fenced(WORKFLOW_EXAMPLE)])
    result = Factory(client, registry).create_workflow("leads")
    assert result.ok and [d.code for d in result.attempts[0].diagnostics] == ["E0712"]
    assert result.attempts[0].diagnostics[0].span.path == "workflow"
    assert "E0712" in client.requests[1].messages[-1].text


def test_the_name_given_wins_and_is_asked_for(registry):
    client = ScriptedClient([GOOD])
    result = Factory(client, registry).create_compute(DESCRIPTION, name="parcel_fee")
    assert result.record.name == "parcel_fee"
    assert "Name it `parcel_fee`." in client.requests[0].messages[1].text


def test_a_taken_name_chosen_by_the_model_is_fed_back(registry):
    registry.create(COMPUTE_EXAMPLE)
    other = {**COMPUTE_EXAMPLE, "name": "parcel_shipping"}
    result = Factory(ScriptedClient([GOOD, fenced(other)]), registry).create_compute(DESCRIPTION)
    assert result.ok and result.record.name == "parcel_shipping"
    (diagnostic,) = result.attempts[0].diagnostics
    assert diagnostic.code == DuplicateTool.code and diagnostic.span.path == "name"


def test_a_taken_name_given_by_the_user_ends_the_run(registry):
    registry.create(COMPUTE_EXAMPLE)
    result = Factory(ScriptedClient([GOOD, GOOD]), registry).create_compute(DESCRIPTION, name="shipping_cost")
    assert not result.ok and isinstance(result.error, DuplicateTool)
    assert [d.code for d in result.diagnostics] == [DuplicateTool.code]  # one attempt: no model can fix it


def test_a_template_tool_made_twice_ends_with_the_registry_error(registry):
    factory = Factory(ScriptedClient([]), registry)
    assert factory.create_from_template("new-lead-welcome", {}).ok
    again = factory.create_from_template("new-lead-welcome", {})
    assert not again.ok and isinstance(again.error, DuplicateTool)


def test_from_a_template_with_values(registry):
    result = Factory(ScriptedClient([]), registry).create_from_template(
        "order-status-notify", {"crm_url": "https://crm.acme.test/api"}
    )
    assert result.ok and result.usage.requests == 0
    record = result.record
    assert (record.name, record.kind, record.status) == ("order_status_notify", "workflow", "pending_approval")
    assert "https://crm.acme.test/api" in record.definition["workflow"]
    assert "template order-status-notify" in registry.audit_log()[0].note


def test_from_a_template_with_words(registry):
    client = ScriptedClient(
        ['```json\n{"crm_url": "crm.acme.test"}\n```', '```json\n{"crm_url": "https://crm.acme.test"}\n```']
    )
    result = Factory(client, registry).create_from_template("order-status-notify", "our CRM is at crm.acme.test")
    assert result.ok and len(result.attempts) == 2
    assert result.attempts[0].diagnostics[0].code.startswith("E08")
    assert "`crm_url` (url" in client.requests[0].messages[0].text


def test_a_script_is_repaired_then_waits_for_approval_and_never_runs_before(registry):
    unsafe = {**SCRIPT_EXAMPLE, "runtime": "ruby", "sandbox": "none"}
    client = ScriptedClient([fenced(unsafe), fenced(SCRIPT_EXAMPLE)])
    result = Factory(client, registry).create_script("count the words of a text", name="word_stats")
    assert result.ok
    assert [[(d.code, d.span.path) for d in a.diagnostics] for a in result.attempts] == [[("R0608", "runtime")], []]
    assert (result.record.kind, result.record.status, result.record.created_by) == ("script", "pending_approval", "llm")
    assert "TK_ARG_<NAME>" in client.requests[0].messages[0].text  # the prompt says how arguments arrive
    retry = client.requests[1].messages[-1].text
    assert "R0608" in retry and "runtime" in retry
    unsandboxed = Factory(
        ScriptedClient([fenced({**SCRIPT_EXAMPLE, "name": "loose", "sandbox": "none"})] * 2), registry
    )
    refused = unsandboxed.create_script("count words", name="loose")
    assert not refused.ok and {d.code for d in refused.diagnostics} == {"R0612"}  # a model's script stays boxed


def test_a_schedule_template_is_not_a_workflow_tool(registry):
    result = Factory(ScriptedClient([]), registry).create_from_template("lead-followup", {})
    assert not result.ok and [d.code for d in result.diagnostics] == ["E0707"]  # runs post to a webhook


def test_bad_arguments(registry):
    with pytest.raises(LLMConfigError):
        Factory(ScriptedClient([]), registry, max_attempts=0)
    with pytest.raises(UsageError):
        Factory(ScriptedClient([]), registry).create_compute(None)
    with pytest.raises(CompileError):
        Factory(ScriptedClient([]), registry).create_from_template("no-such-template", {})


# --- toolkiln create ----------------------------------------------------------------------------


@pytest.fixture
def model_env(monkeypatch, server):
    monkeypatch.setenv("TOOLKILN_LLM_PROVIDER", "openai")
    monkeypatch.setenv("TOOLKILN_LLM_BASE_URL", server.openai_url)
    monkeypatch.setenv("TOOLKILN_LLM_API_KEY", KEY)
    monkeypatch.setenv("TOOLKILN_LLM_MODEL", "test-model")
    return server


def test_create_saves_with_progress_on_stderr(model_env, tmp_path, capsys):
    model_env.script(Text(WRONG), Text(GOOD))
    folder = str(tmp_path / "r")
    assert main(["create", "--from-description", DESCRIPTION, "--registry", folder, "--name", "parcel_fee"]) == 0
    out, err = capsys.readouterr()
    assert out == "created `parcel_fee` (compute, version 1, active) in 2 attempt(s)\n"
    assert err == (
        "asking the model test-model (attempt 1 of 3) ...\n"
        "attempt 1: 1 problem(s)\n"
        '  E0611 at examples[0].expect: example 1: with args {"weight_kg": 2} expected 11, got 10\n'
        "asking the model test-model (attempt 2 of 3) ...\n"
        "attempt 2: checked, examples passed\n"
    )
    with Registry(folder) as registry:
        assert registry.get("parcel_fee").created_by == "llm"


def test_create_a_workflow_waits_for_approval(model_env, tmp_path, capsys):
    model_env.script(Text(fenced(WORKFLOW_EXAMPLE)))
    argv = ["create", "--from-description", "leads to the CRM", "--kind", "workflow", "--registry", str(tmp_path)]
    assert main(argv) == 0
    assert "(workflow, version 1, pending approval)" in capsys.readouterr().out


def test_create_that_never_passes_exits_1_with_the_last_diagnostics(model_env, tmp_path, capsys):
    model_env.script(Text("no"), Text(WRONG))
    argv = ["create", "--from-description", DESCRIPTION, "--registry", str(tmp_path), "--max-attempts", "2"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "error[E0611]" in err and "no tool saved after 2 attempt(s)" in err and "Traceback" not in err


def test_create_reports_a_failing_provider_with_exit_1(model_env, tmp_path, capsys):
    model_env.script(Fail(401, "invalid key"))
    assert main(["create", "--from-description", DESCRIPTION, "--registry", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    waiting, failure = err.split("\n", 1)
    assert waiting == "asking the model test-model (attempt 1 of 3) ..."
    assert failure.startswith("toolkiln: error:") and "invalid key" in err and "Traceback" not in err


def test_create_without_a_model_is_a_usage_error(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("TOOLKILN_LLM_MODEL", raising=False)
    assert main(["create", "--from-description", "x", "--registry", str(tmp_path)]) == 2
    assert "the model is not configured" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["create", "--from-description", "  "],
        ["create", "--from-description", "x", "--name", "Bad Name"],
        ["create", "--from-description", "x", "--kind", "executable"],
        ["create", "--from-description", "x", "--max-attempts", "0"],
        ["create"],
    ],
)
def test_create_usage_errors(model_env, argv, capsys):
    with pytest.raises(SystemExit) as exited:
        raise SystemExit(main(argv))
    assert exited.value.code == 2
    assert model_env.hits == 0 and "Traceback" not in capsys.readouterr().err
