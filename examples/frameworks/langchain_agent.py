"""Registry tools as LangChain tools, in a run driven by langchain-core's own fake chat model
(no key, no network). With a real model, bind the same tools each turn:
`ChatOpenAI(model=...).bind_tools(tools(registry))`.

    pip install 'toolkiln[langchain]'
    python examples/frameworks/langchain_agent.py
"""

import json
import tempfile
from pathlib import Path

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from toolkiln import Registry
from toolkiln.integrations.langchain import tools

SHIPPING = Path(__file__).resolve().parents[1] / "shipping_cost.json"
CALL = {"name": "shipping_cost", "args": {"weight_kg": 12}, "id": "call-1", "type": "tool_call"}

with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "registry") as registry:
    registry.create(json.loads(SHIPPING.read_text()))
    model = GenericFakeChatModel(messages=iter([AIMessage("", tool_calls=[CALL]), AIMessage("It costs 31.50.")]))
    history = [HumanMessage("What does shipping 12 kg cost?")]
    while True:
        offered = {tool.name: tool for tool in tools(registry)}  # each turn: a new tool is in it
        reply = model.invoke(history)
        history.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            result = offered[call["name"]].invoke(call)  # a ToolMessage: the registry's reply as JSON
            print(f"{call['name']} -> {result.content}")
            history.append(result)
    print(reply.content)
