"""Deploying's former import path, kept for users: it lives in `toolkiln.n8n.deploy`."""

from toolkiln.n8n.deploy import (
    FAILED_STATUSES,
    WEBHOOK_TYPE,
    Deployed,
    Webhook,
    call_webhook,
    deploy,
    deploy_owned,
    find_workflow,
    first_webhook,
    run_webhook,
    run_workflow,
    webhooks_of,
)

__all__ = [
    "FAILED_STATUSES",
    "WEBHOOK_TYPE",
    "Deployed",
    "Webhook",
    "call_webhook",
    "deploy",
    "deploy_owned",
    "find_workflow",
    "first_webhook",
    "run_webhook",
    "run_workflow",
    "webhooks_of",
]
