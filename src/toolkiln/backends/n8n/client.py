"""The n8n client's former import path, kept for users: it lives in `toolkiln.n8n.client`."""

from toolkiln.n8n.client import (
    API_KEY_ENV,
    API_KEY_HEADER,
    DEFAULT_SETTINGS,
    REGISTER_INTERVAL,
    REGISTER_POLLS,
    REGISTER_WINDOW,
    URL_ENV,
    WORKFLOW_FIELDS,
    N8nClient,
    WebhookResponse,
    check_url,
    workflow_body,
)

__all__ = [
    "API_KEY_ENV",
    "API_KEY_HEADER",
    "DEFAULT_SETTINGS",
    "REGISTER_INTERVAL",
    "REGISTER_POLLS",
    "REGISTER_WINDOW",
    "URL_ENV",
    "WORKFLOW_FIELDS",
    "N8nClient",
    "WebhookResponse",
    "check_url",
    "workflow_body",
]
