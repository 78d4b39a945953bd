"""`client_from_env`: a client from arguments, else from the TOOLKILN_LLM_* environment variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from toolkiln.llm.anthropic_messages import AnthropicMessages
from toolkiln.llm.client import HTTPChatClient
from toolkiln.llm.errors import LLMConfigError
from toolkiln.llm.openai_chat import OpenAIChat

BASE_URL_ENV = "TOOLKILN_LLM_BASE_URL"
API_KEY_ENV = "TOOLKILN_LLM_API_KEY"
MODEL_ENV = "TOOLKILN_LLM_MODEL"
PROVIDER_ENV = "TOOLKILN_LLM_PROVIDER"

PROVIDERS: dict[str, type[HTTPChatClient]] = {"openai": OpenAIChat, "anthropic": AnthropicMessages}
# The providers' own endpoints, used when no base URL is given.
DEFAULT_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


def client_from_env(
    *,
    provider: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> HTTPChatClient:
    """An `OpenAIChat` or `AnthropicMessages` (TOOLKILN_LLM_PROVIDER, default "openai"), with
    each setting taken from the argument if given, else from its variable; `options` go to the
    client (timeout, max_retries, ...)."""
    env = os.environ if environ is None else environ
    name = (provider or env.get(PROVIDER_ENV) or "openai").strip().lower()
    cls = PROVIDERS.get(name)
    if cls is None:
        raise LLMConfigError(
            f"unknown provider {name!r}",
            hint=f"{PROVIDER_ENV} is one of {', '.join(PROVIDERS)} (OpenRouter, vLLM, Ollama, LiteLLM...: openai)",
        )
    chosen_model = model or env.get(MODEL_ENV)
    if not chosen_model:
        raise LLMConfigError("no model", hint=f"pass model= or set {MODEL_ENV}")
    url = base_url or env.get(BASE_URL_ENV) or DEFAULT_BASE_URLS[name]
    return cls(url, api_key or env.get(API_KEY_ENV), chosen_model, **options)
