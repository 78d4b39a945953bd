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

# What a pure compute tool is, in MCP's terms: it reads nothing outside its arguments and
# tables, changes nothing, and gives the same answer to the same call. (Here, not in exports.py,
# so that the compute kind, which every compute run loads, needs nothing of the exports.)
COMPUTE_ANNOTATIONS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
