"""Registry tools as the native tools of agent frameworks, one module per framework, each
needing its framework (an optional extra) and nothing else of toolkiln's above the registry:

| module          | gives                                  | extra                       |
|-----------------|----------------------------------------|-----------------------------|
| `langchain`     | `tools(registry)`: StructuredTools     | `toolkiln[langchain]`       |
| `pydantic_ai`   | `RegistryToolset(registry)`: a toolset | `toolkiln[pydantic-ai]`     |
| `llamaindex`    | `tools(registry)`: FunctionTools;      | `toolkiln[llamaindex]`      |
|                 | `retriever(registry)`: live            |                             |
| `openai_agents` | `tools(registry)`: FunctionTools;      | `toolkiln[openai-agents]`   |
|                 | `LiveTools(registry)`: live hooks      |                             |

Every call goes through the registry's one door (`Registry.invoke`), so policy, budgets,
audit, approval of each call and errors as data are the same as everywhere else
(calls.py). See docs/frameworks.md.
"""
