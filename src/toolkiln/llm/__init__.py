"""Model clients: OpenAI-compatible chat completions and Anthropic messages over httpx, with
native tool calling, behind one provider-neutral conversation and reply. See docs/llm-clients.md.

    from toolkiln.llm import client_from_env, User
    with client_from_env() as model:   # TOOLKILN_LLM_PROVIDER, _BASE_URL, _API_KEY, _MODEL
        reply = model.chat([User("What is 2 + 3?")], tools=registry.definitions(model.tool_format))
        reply.text, reply.tool_calls, reply.usage

Layers, from the bottom: `errors`, `messages` (the neutral types), `transport` (JSON over
`toolkiln.http`: timeouts, retries, size cap), `client` (what every client shares), one module per provider, `scripted`,
`config`.
"""

import importlib
from typing import Any

from toolkiln.llm.anthropic_messages import AnthropicMessages
from toolkiln.llm.client import ChatClient, HTTPChatClient
from toolkiln.llm.config import client_from_env
from toolkiln.llm.errors import (
    LLMAuthenticationError,
    LLMBadResponse,
    LLMConfigError,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMReplyTooLarge,
    LLMRequestError,
    LLMServerError,
    LLMTimeout,
    ScriptExhausted,
)
from toolkiln.llm.loops import LoopLimitReached, LoopResult
from toolkiln.llm.messages import Assistant, Message, Reply, System, ToolCall, ToolResult, Usage, User
from toolkiln.llm.openai_chat import OpenAIChat
from toolkiln.llm.scripted import ScriptedClient, ScriptedRequest

# Loaded on first use: they bring in the compiler and the registry, which a program that only
# talks to a model does not need.
_LAZY = {
    "Attempt": "factory",
    "Extraction": "extraction",
    "Factory": "factory",
    "FactoryResult": "factory",
    "agent_loop": "agent",
    "compute_prompt": "prompts",
    "extract": "extraction",
    "workflow_prompt": "prompts",
}

__all__ = [
    "AnthropicMessages",
    "Assistant",
    "Attempt",
    "ChatClient",
    "Extraction",
    "Factory",
    "FactoryResult",
    "HTTPChatClient",
    "LLMAuthenticationError",
    "LLMBadResponse",
    "LLMConfigError",
    "LLMConnectionError",
    "LLMError",
    "LLMRateLimited",
    "LLMReplyTooLarge",
    "LLMRequestError",
    "LLMServerError",
    "LLMTimeout",
    "LoopLimitReached",
    "LoopResult",
    "Message",
    "OpenAIChat",
    "Reply",
    "ScriptExhausted",
    "ScriptedClient",
    "ScriptedRequest",
    "System",
    "ToolCall",
    "ToolResult",
    "Usage",
    "User",
    "agent_loop",
    "client_from_env",
    "compute_prompt",
    "extract",
    "workflow_prompt",
]


def __getattr__(name: str) -> Any:
    if name == "prompted":  # the subpackage, as an attribute too: toolkiln.llm.prompted.run_prompted_loop
        return importlib.import_module("toolkiln.llm.prompted")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkiln.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"toolkiln.llm.{module}"), name)
    globals()[name] = value
    return value
