"""Model clients: OpenAI-compatible chat completions and Anthropic messages over httpx, with
native tool calling, behind one provider-neutral conversation and reply. See docs/llm-clients.md.

    from toolkiln.llm import client_from_env, User
    with client_from_env() as model:   # TOOLKILN_LLM_PROVIDER, _BASE_URL, _API_KEY, _MODEL
        reply = model.chat([User("What is 2 + 3?")], tools=registry.definitions(model.tool_format))
        reply.text, reply.tool_calls, reply.usage

Layers, from the bottom: `errors`, `messages` (the neutral types), `transport` (HTTP: timeouts,
retries, size cap), `client` (what every client shares), one module per provider, `scripted`,
`config`.
"""

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
from toolkiln.llm.extract import Extraction, extract
from toolkiln.llm.messages import Assistant, Message, Reply, System, ToolCall, ToolResult, Usage, User
from toolkiln.llm.openai_chat import OpenAIChat
from toolkiln.llm.scripted import ScriptedClient, ScriptedRequest

__all__ = [
    "AnthropicMessages",
    "Assistant",
    "ChatClient",
    "Extraction",
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
    "client_from_env",
    "extract",
]
