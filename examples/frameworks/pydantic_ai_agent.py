"""Registry tools as a pydantic-ai toolset, in a run driven by pydantic-ai's own FunctionModel
(no key, no network). With a real model: `Agent("openai:gpt-4o", toolsets=[RegistryToolset(registry)])`.

    pip install 'toolkiln[pydantic-ai]'
    python examples/frameworks/pydantic_ai_agent.py
"""

import json
import tempfile
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

from toolkiln import Registry
from toolkiln.integrations.pydantic_ai import RegistryToolset

SHIPPING = Path(__file__).resolve().parents[1] / "shipping_cost.json"


def model(messages, info):
    """Call shipping_cost for 12 kg first, then answer: what a real model would do."""
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("shipping_cost", {"weight_kg": 12})])
    return ModelResponse(parts=[TextPart("It costs 31.50.")])


with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "registry") as registry:
    registry.create(json.loads(SHIPPING.read_text()))
    agent = Agent(FunctionModel(model), toolsets=[RegistryToolset(registry)])  # read at every step
    run = agent.run_sync("What does shipping 12 kg cost?")
    for message in run.all_messages():
        for part in message.parts:
            if isinstance(part, ToolReturnPart):  # the registry's reply as JSON
                print(f"{part.tool_name} -> {part.content}")
    print(run.output)
