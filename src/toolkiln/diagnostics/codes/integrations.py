"""Agent-framework adapters: registry tools as a framework's own tools (R076x)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

FRAMEWORK_NOT_INSTALLED = register(
    "R0760",
    "framework-not-installed",
    "An agent-framework adapter was used without its framework installed",
    """
`toolkiln.integrations.langchain`, `.openai_agents`, `.pydantic_ai` and `.llamaindex` make
registry tools into the tools of those frameworks; each needs its framework, which toolkiln
installs only when asked for, as an optional extra. Install the extra the message names:

    pip install 'toolkiln[langchain]'       # or openai-agents, pydantic-ai, llamaindex

Nothing else of toolkiln needs them.
""",
)
