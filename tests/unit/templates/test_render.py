"""The shipped templates: each renders with its defaults, values land where they belong, and
every bad value is a diagnostic with a stable code."""

import json

import pytest

import toolkiln
from toolkiln import templates
from toolkiln.errors import CompileError
from toolkiln.workflow import compile_workflow
from toolkiln.workflow.compile import CompiledWorkflow

SLUGS = ["daily-summary", "lead-followup", "new-lead-welcome", "order-status-notify", "payment-reminder"]
REQUIRED = {"daily-summary": {"owner_phone": "+34600000000"}}


def node(workflow, name):
    return next(n for n in workflow["nodes"] if n["name"] == name)


def failure(slug, **values):
    with pytest.raises(CompileError) as error:
        templates.render(slug, **values)
    return [(d.code, d.span.path if d.span else None, d.message) for d in error.value.diagnostics]


def test_list_gives_the_five_summaries_with_typed_parameters():
    listed = toolkiln.templates.list()
    assert [t.slug for t in listed] == SLUGS
    assert all(t.title and t.description and t.parameters for t in listed)
    lead = listed[1]
    assert [(p.name, p.type.name, p.default) for p in lead.parameters][:5] == [
        ("send_at", "time", "09:00"),
        ("timezone", "timezone", "Europe/Madrid"),
        ("crm_url", "url", "https://crm.example.com/api"),
        ("crm_credential", "credential", "CRM API"),
        ("inactive_days", "integer", 3),
    ]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_template_renders_with_its_defaults(slug):
    compiled = templates.render(slug, **REQUIRED.get(slug, {}))
    assert isinstance(compiled, CompiledWorkflow)
    assert compiled.name == slug.replace("-", "_")
    workflow = compiled.to_n8n()
    https = [n for n in workflow["nodes"] if n["type"] == "n8n-nodes-base.httpRequest"]
    assert https and all(n["credentials"] == {"httpHeaderAuth": {"id": None, "name": "CRM API"}} for n in https)
    assert all(n["parameters"]["url"].startswith("https://crm.example.com/api/") for n in https)


def test_parameters_are_substituted_where_they_belong():
    workflow = templates.render(
        "lead-followup",
        send_at="07:45",
        timezone="America/Bogota",
        crm_url="http://127.0.0.1:9999/crm/",
        crm_credential="Acme CRM",
        inactive_days="5",
        message='¿Seguimos? "Sí"',
    ).to_n8n()
    assert node(workflow, "Schedule Trigger")["parameters"]["rule"]["interval"] == [
        {"field": "days", "triggerAtHour": 7, "triggerAtMinute": 45}
    ]
    assert workflow["settings"]["timezone"] == "America/Bogota"
    leads = node(workflow, "leads")
    assert leads["parameters"]["url"] == "http://127.0.0.1:9999/crm/leads"
    assert leads["parameters"]["queryParameters"]["parameters"] == [{"name": "inactive_days", "value": "={{ 5 }}"}]
    assert leads["credentials"] == {"httpHeaderAuth": {"id": None, "name": "Acme CRM"}}
    text = next(a for a in node(workflow, "draft")["parameters"]["assignments"]["assignments"] if a["name"] == "text")
    assert text["value"] == '={{ ("Hi " + $json.name + ", ¿Seguimos? \\"Sí\\"") }}'
    assert node(workflow, "save_draft")["parameters"]["url"] == "http://127.0.0.1:9999/crm/whatsapp/drafts"


def test_a_webhook_path_parameter_moves_the_webhook():
    workflow = templates.render("order-status-notify", webhook_path="/shop/orders").to_n8n()
    assert node(workflow, "Webhook")["parameters"]["path"] == "shop/orders"


def test_render_text_gives_the_dsl_and_render_compiles_exactly_it():
    text = templates.render_text("payment-reminder", min_days_overdue=7)
    assert 'query { status = "overdue", min_days_overdue = 7 }' in text
    assert templates.render("payment-reminder", min_days_overdue=7).to_n8n() == compile_workflow(text).to_n8n()


def test_missing_unknown_and_wrong_typed_values_are_all_reported():
    found = failure("daily-summary", send_at="8am", crm_url="crm.example.com", sent_at="08:00")
    assert found == [
        ("E0803", "sent_at", "`daily-summary` has no parameter `sent_at`"),
        ("E0804", "send_at", "`send_at` is a time parameter: '8am' is not a time of day"),
        ("E0804", "crm_url", "`crm_url` is a url parameter: 'crm.example.com' is not an http(s) base URL"),
        (
            "E0802",
            "owner_phone",
            "`daily-summary` needs a value for `owner_phone`: The owner's WhatsApp number, e.g. +34600000000",
        ),
    ]


@pytest.mark.parametrize(
    ("values", "path", "message"),
    [
        ({"timezone": "Mars/Olympus"}, "timezone", "'Mars/Olympus' is not an IANA timezone"),
        ({"inactive_days": "three"}, "inactive_days", "'three' is not a whole number"),
        ({"inactive_days": 2.5}, "inactive_days", "2.5 is not a whole number"),
        ({"crm_credential": "a\nb"}, "crm_credential", "'a\\nb' is not a credential name"),
        ({"message": 42}, "message", "expected text, got int"),
        ({"crm_url": "https://x.test/{{ $env.KEY }}"}, "crm_url", "is not an http(s) base URL"),
    ],
)
def test_each_wrong_type_is_e0804(values, path, message):
    [(code, where, text)] = failure("lead-followup", **values)
    assert (code, where) == ("E0804", path) and message in text


def test_unknown_parameter_hint_and_unknown_template():
    with pytest.raises(CompileError) as error:
        templates.render("lead-followup", inactive_day=4)
    assert error.value.diagnostics[0].hint == "did you mean `inactive_days`?"
    with pytest.raises(CompileError) as error:
        templates.render("lead-follow-up")
    [diagnostic] = error.value.diagnostics
    assert (diagnostic.code, diagnostic.hint) == ("E0801", "did you mean `lead-followup`?")
    json.dumps([d.to_dict() for d in error.value.diagnostics])


def test_templates_load_lazily_from_the_package():
    import subprocess
    import sys

    probe = (
        "import sys, toolkiln; assert 'toolkiln.templates' not in sys.modules; toolkiln.templates.list(); print('ok')"
    )
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "ok"
