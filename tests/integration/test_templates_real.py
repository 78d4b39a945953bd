"""Every shipped template, rendered against a fake CRM/WhatsApp API on 127.0.0.1, deployed to a
real n8n and activated (the session's n8n server, conftest.py).

The webhook templates are called and both their answers and what the fake API received are
checked. The schedule templates are rendered to run at the first whole minute that leaves time
to deploy them, so they fire once during the test: each lead, invoice or briefing must arrive at
the fake API as a POST.
Nothing is sent anywhere but 127.0.0.1.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from harness import FakeApi, wait_for

from toolkiln import templates

LEADS = [{"id": "L1", "name": "Ada", "phone": "+34600000001"}, {"id": "L2", "name": "Bo", "phone": "+34600000002"}]
INVOICES = [{"number": "F-7", "customer": "Cy", "phone": "+34600000003", "amount": 120.5, "due_date": "2026-11-01"}]
STATS = {"orders": 12, "revenue": 1530.25, "new_leads": 4, "overdue_invoices": 1}
SECRET = "crm-s3cret"
# Seconds from the start of the test: the minute comes within 80 s, and n8n fires a daily schedule
# at a random second of it (the cron it registers has a random seconds field to spread load).
SCHEDULE_WAIT = 240.0
SCHEDULE_MARGIN = 20.0  # seconds left to deploy and activate the three schedules (1-5 s is usual)


ANSWERS = {"leads": LEADS, "invoices": INVOICES, "stats/daily": STATS}


class FakeCrm(FakeApi):
    """A CRM/WhatsApp API: lists for GET, an id for each POST. Paths start with the template's
    slug, so each template's traffic is told apart: every request gets its `slug` and `route`."""

    def __init__(self) -> None:
        super().__init__(self.reply)

    def reply(self, request: dict) -> object:
        slug, _, route = request["path"].strip("/").partition("/")
        request.update(slug=slug, route=route)
        if request["method"] == "GET":
            return ANSWERS.get(route)
        return {"ok": True, "id": f"{route.replace('/', '-')}-{len(self.received)}"}

    def posts(self, slug: str) -> list[dict]:
        return [r for r in self.received if r["slug"] == slug and r["method"] == "POST"]


@pytest.fixture(scope="module")
def crm() -> Iterator[FakeCrm]:
    fake = FakeCrm()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def credential(n8n) -> str:
    """An HTTP header credential in n8n, which the templates name; n8n adds X-Token to each call."""
    name = f"Fake CRM {uuid.uuid4().hex[:6]}"
    n8n.create_credential("httpHeaderAuth", name, {"name": "X-Token", "value": SECRET})
    return name


def deploy(n8n, slug: str, **values) -> dict:
    """Render with the values, create under a unique name and activate."""
    workflow = templates.render(slug, **values).to_n8n()
    workflow["name"] = f"{workflow['name']} {uuid.uuid4().hex[:8]}"
    created = n8n.client.create_workflow(workflow)
    n8n.created.append(created["id"])
    return n8n.client.activate_workflow(created["id"])


def test_order_status_notify_answers_and_messages_for_every_status(n8n, crm, credential):
    path = f"/order-status-{uuid.uuid4().hex[:8]}"
    activated = deploy(
        n8n,
        "order-status-notify",
        webhook_path=path,
        crm_url=f"{crm.url}/order-status-notify",
        crm_credential=credential,
        shipped_text='your order "#1" is on its way!',
    )
    assert activated["active"] is True
    texts = {}
    for number, status in enumerate(["shipped", "delivered", "cancelled", "returned"]):
        order = {"order_id": f"A-{number}", "status": status, "customer": "Ada", "phone": "+34600000001"}
        reply = n8n.client.trigger_webhook(path.lstrip("/"), order)
        sent = crm.posts("order-status-notify")[-1]
        assert reply.status == 200
        assert reply.data == {
            "order_id": f"A-{number}",
            "status": status,
            "text": reply.data["text"],
            "message_id": f"whatsapp-messages-{len(crm.received)}",
        }
        assert (sent["route"], sent["token"]) == ("whatsapp/messages", SECRET)
        assert sent["body"] == {
            "to": "+34600000001",
            "order_id": f"A-{number}",
            "text": f"Hi Ada, {reply.data['text']}",
        }
        texts[status] = reply.data["text"]
    assert texts == {
        "shipped": 'your order "#1" is on its way!',
        "delivered": "your order has been delivered. Enjoy it, and thank you for your purchase!",
        "cancelled": "your order has been cancelled. If this is unexpected, just reply to this message.",
        "returned": "your order has a new status: returned",
    }


def test_new_lead_welcome_messages_adds_to_the_pipeline_and_answers(n8n, crm, credential):
    path = f"/new-contact-{uuid.uuid4().hex[:8]}"
    deploy(
        n8n,
        "new-lead-welcome",
        webhook_path=path,
        crm_url=f"{crm.url}/new-lead-welcome",
        crm_credential=credential,
        pipeline="wholesale",
    )
    reply = n8n.client.trigger_webhook(path.lstrip("/"), {"name": "Bo", "phone": "+34600000002", "email": "bo@x.test"})
    welcome, lead = crm.posts("new-lead-welcome")[-2:]
    assert (welcome["route"], lead["route"]) == ("whatsapp/messages", "pipeline/leads")
    assert welcome["body"] == {
        "to": "+34600000002",
        "text": "Hi Bo, thanks for getting in touch! We will get back to you shortly. Reply here any time.",
    }
    assert lead["body"] == {
        "pipeline": "wholesale",
        "stage": "new",
        "name": "Bo",
        "phone": "+34600000002",
        "email": "bo@x.test",
    }
    assert {welcome["token"], lead["token"]} == {SECRET}
    assert (reply.status, reply.data) == (
        200,
        {
            "contact": "Bo",
            "pipeline": "wholesale",
            "welcome_message_id": f"whatsapp-messages-{len(crm.received) - 1}",
            "lead_id": f"pipeline-leads-{len(crm.received)}",
        },
    )


def next_run_minute(margin: float = SCHEDULE_MARGIN) -> datetime:
    """The first whole minute (send_at has minute resolution) at least `margin` seconds away."""
    now = datetime.now(UTC)
    minute = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return minute if (minute - now).total_seconds() >= margin else minute + timedelta(minutes=1)


@pytest.mark.slow
def test_schedule_templates_activate_and_run_at_their_time(n8n, crm, credential):
    run_at = next_run_minute()
    common = {"send_at": run_at.strftime("%H:%M"), "timezone": "UTC", "crm_credential": credential}
    for slug in ("lead-followup", "payment-reminder", "daily-summary"):
        extra = {"owner_phone": "+34600000009"} if slug == "daily-summary" else {}
        activated = deploy(n8n, slug, crm_url=f"{crm.url}/{slug}", **common, **extra)
        assert activated["active"] is True
        assert n8n.client.get_workflow(activated["id"])["settings"]["timezone"] == "UTC"
    # Active before their time, or they would wait for tomorrow (a clear failure, not a timeout).
    assert datetime.now(UTC) < run_at, f"deploying took past {run_at:%H:%M:%S}; raise SCHEDULE_MARGIN"

    wait_for(
        "the three schedules to post",
        lambda: len(crm.posts("lead-followup")) >= 2 and crm.posts("payment-reminder") and crm.posts("daily-summary"),
        timeout=SCHEDULE_WAIT,
    )

    gets = {r["slug"]: r for r in crm.received if r["method"] == "GET"}
    assert gets["lead-followup"]["query"] == {"inactive_days": "3"}
    assert gets["payment-reminder"]["query"] == {"status": "overdue", "min_days_overdue": "1"}
    assert gets["daily-summary"]["query"] == {"day": "yesterday"}
    assert {r["token"] for r in crm.received if r["slug"] in gets} == {SECRET}

    drafts = [r["body"] for r in crm.posts("lead-followup")]
    assert [d["lead_id"] for d in drafts] == ["L1", "L2"]
    assert drafts[0] == {
        "lead_id": "L1",
        "to": "+34600000001",
        "channel": "whatsapp",
        "text": "Hi Ada, just checking in: do you have any questions about our offer? "
        "Reply here and we will help right away.",
    }
    [reminder] = [r["body"] for r in crm.posts("payment-reminder")]
    assert reminder["invoice"] == "F-7" and reminder["to"] == "+34600000003"
    assert reminder["text"].startswith("Hi Cy, invoice F-7 (120.5 EUR, due 2026-11-01): a friendly reminder")
    [briefing] = [r["body"] for r in crm.posts("daily-summary")]
    assert briefing == {
        "to": "+34600000009",
        "text": "Good morning! Here is yesterday at a glance:\n12 orders, "
        "1530.25 EUR revenue\n4 new leads\n1 invoices overdue",
    }
