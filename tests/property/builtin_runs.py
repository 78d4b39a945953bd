"""Running builtin expressions many times over generated arguments, for the
test_builtins_* properties: each expression is compiled once, on its first example."""

from hypothesis import settings

import toolkiln

_TOOLS: dict[str, toolkiln.Tool] = {}
# The first example of each expression compiles it: no deadline for that one.
relaxed = settings(deadline=None)


def run(expression: str, **args: object) -> object:
    tool = _TOOLS.get(expression)
    if tool is None:
        tool = _TOOLS[expression] = toolkiln.compile(f"return {expression}")
    return tool.run(args)
