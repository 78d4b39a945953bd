"""Registry tools as LlamaIndex tools, in a FunctionAgent run driven by llama-index-core's own
MockFunctionCallingLLM (no key, no network). With a real model, pass its LLM instead
(`llama-index-llms-openai`'s `OpenAI(model=...)`).

    pip install 'toolkiln[llamaindex]'
    python examples/frameworks/llamaindex_agent.py
"""

import asyncio
import json
import tempfile
from pathlib import Path

from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLM

from toolkiln import Registry
from toolkiln.integrations.llamaindex import retriever

SHIPPING = Path(__file__).resolve().parents[1] / "shipping_cost.json"


def model(messages, **kwargs):
    """Call shipping_cost for 12 kg first, then answer: what a real model would do."""
    if any(message.role == "tool" for message in messages):
        return ChatMessage(role="assistant", content="It costs 31.50.")
    call = ToolCallBlock(tool_call_id="call-1", tool_name="shipping_cost", tool_kwargs={"weight_kg": 12})
    return ChatMessage(role="assistant", blocks=[call])


async def main(registry: Registry) -> None:
    llm = MockFunctionCallingLLM(response_generator=model)
    agent = FunctionAgent(tool_retriever=retriever(registry), llm=llm)  # the tools read at every step
    handler = agent.run("What does shipping 12 kg cost?")
    async for event in handler.stream_events():
        if isinstance(event, ToolCallResult):  # the registry's reply as JSON
            print(f"{event.tool_name} -> {event.tool_output.content}")
    print(await handler)


with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "registry") as registry:
    registry.create(json.loads(SHIPPING.read_text()))
    asyncio.run(main(registry))
