"""Prompted tools: tool calling for models that have none, through the system prompt.

    from toolkiln.llm.prompted import registry_tools, run_prompted_loop, wget_tool
    result = run_prompted_loop(client, "You help with shipping.", "What does 3 kg to Spain cost?",
                               [*registry_tools(registry), wget_tool()])
    result.answer        # {"answer": "..."}: JSON, checked against the response format

The tools are shown as TypeScript-like signatures with JSDoc and examples (`tool_prompt`,
generated from their JSON Schemas); the model calls them in ```tool blocks, read by
`parse_tool_calls` (toolkiln.syntax.tool_calls), and finishes through the built-in
`finalResponse()`. See docs/prompted-tools.md.
"""

from toolkiln.llm.prompted.loop import run_prompted_loop
from toolkiln.llm.prompted.signatures import signature, tool_prompt
from toolkiln.llm.prompted.tools import (
    DEFAULT_RESPONSE_FORMAT,
    FINAL_RESPONSE,
    PromptedTool,
    final_response_tool,
    registry_tools,
    wget_tool,
)
from toolkiln.syntax.tool_calls import ParsedCall, ParsedCalls, format_literal, parse_tool_calls

__all__ = [
    "DEFAULT_RESPONSE_FORMAT",
    "FINAL_RESPONSE",
    "ParsedCall",
    "ParsedCalls",
    "PromptedTool",
    "final_response_tool",
    "format_literal",
    "parse_tool_calls",
    "registry_tools",
    "run_prompted_loop",
    "signature",
    "tool_prompt",
    "wget_tool",
]
