import copy

import pytest

from toolkiln import Registry


def _definition(name="double", expression="x * 2", *, description="Doubles x", risk=None, params=None):
    definition = {
        "name": name,
        "description": description,
        "parameters": params if params is not None else {"x": {"type": "number", "description": "The number"}},
        "logic": {
            "steps": [{"op": "math", "expression": expression, "output": "result"}, {"op": "return", "value": "result"}]
        },
    }
    if risk is not None:
        definition["riskLevel"] = risk
    return copy.deepcopy(definition)


@pytest.fixture
def make_def():
    """make_def(name, expression, description=..., risk=..., params=...) -> a JSON DSL tool definition."""
    return _definition


@pytest.fixture
def reg(tmp_path):
    with Registry(tmp_path / "reg") as registry:
        yield registry
