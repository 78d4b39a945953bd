"""Registry tools as tools of the OpenAI Agents SDK, in a run whose model is a scripted stand-in
written to the SDK's own Model interface (no key, no network), tracing off. With a real model,
leave `model=` out (the SDK's default OpenAI model, OPENAI_API_KEY) and keep tracing off or on
as you decide: it sends every run's trace to OpenAI unless disabled.

    pip install 'toolkiln[openai-agents]'
    python examples/frameworks/openai_agents_agent.py
"""

import json
import tempfile
from pathlib import Path

from agents import Agent, ModelResponse, RunConfig, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from toolkiln import Registry
from toolkiln.integrations.openai_agents import LiveTools

SHIPPING = Path(__file__).resolve().parents[1] / "shipping_cost.json"
set_tracing_disabled(True)  # the SDK would send this run's trace to OpenAI


class Scripted(Model):
    """Call shipping_cost for 12 kg first, then answer: what a real model would do."""

    async def get_response(self, system_instructions, input, *args, **kwargs):  # noqa: A002 - the SDK's name
        answered = any(isinstance(item, dict) and item.get("type") == "function_call_output" for item in input)
        if answered:
            text = ResponseOutputText(type="output_text", text="It costs 31.50.", annotations=[])
            said = ResponseOutputMessage(id="m1", type="message", role="assistant", status="completed", content=[text])
        else:
            arguments = json.dumps({"weight_kg": 12})
            said = ResponseFunctionToolCall(
                type="function_call", call_id="call-1", name="shipping_cost", arguments=arguments
            )
        return ModelResponse(output=[said], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "registry") as registry:
    registry.create(json.loads(SHIPPING.read_text()))
    agent = Agent(name="clerk", model=Scripted(), hooks=LiveTools(registry))  # the tools kept current
    run = Runner.run_sync(agent, "What does shipping 12 kg cost?", run_config=RunConfig(tracing_disabled=True))
    for item in run.new_items:
        if item.type == "tool_call_output_item":  # the registry's reply as JSON
            print(f"shipping_cost -> {item.output}")
    print(run.final_output)
