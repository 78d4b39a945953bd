"""The tool-calling formats toolkiln writes tool definitions in: the one list every other
place (exports, the REST schemas, the CLI's --format, the chat clients) reads.

Importing it loads nothing else, so the CLI's parser can name the choices without the registry.
"""

from __future__ import annotations

from typing import Literal, get_args

Format = Literal["openai", "anthropic", "mcp", "gemini"]
FORMATS: tuple[Format, ...] = get_args(Format)

# The formats a chat client sends its tools in (the others are for MCP and Gemini callers).
ChatFormat = Literal["openai", "anthropic"]
CHAT_FORMATS: tuple[ChatFormat, ...] = get_args(ChatFormat)
