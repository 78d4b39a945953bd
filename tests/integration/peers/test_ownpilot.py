"""OwnPilot's custom tools ported by hand: the name, description, parameters (a JSON Schema) and
`network` permission of the 4 documented examples (../shared/corpus/peers/ownpilot/doc-examples/)
make a script tool's, and the first, ported to Python, runs in the real sandbox. Their own
JavaScript, imported with `tools import --from ownpilot`: test_ownpilot_javascript.py."""

from __future__ import annotations

import pytest
from peers_corpus import peer, read_json

from toolkiln import Registry

EXAMPLES = peer("ownpilot") / "doc-examples"
NAMES = ["word_frequency", "fetch_weather", "summarize_url", "csv_analyzer"]
# word_frequency's JavaScript, as the Python a script tool runs (docs/migrating.md#ownpilot).
WORD_FREQUENCY = """import json, re, sys
from collections import Counter
words = re.findall(r"\\b\\w+\\b", json.load(sys.stdin)["text"].lower())
counts = Counter(words)
print(json.dumps({"totalWords": len(words), "uniqueWords": len(counts),
                  "top20": [[w, n] for w, n in sorted(counts.items(), key=lambda p: -p[1])[:20]]}))
"""


def as_script(example: dict, body: str) -> dict:
    return {
        "kind": "script",
        "name": example["name"],
        "description": example["description"],
        "parameters": example["parameters"],
        "runtime": "python",
        "body": body,
        "network": "network" in example["permissions"],
    }


@pytest.fixture
def registry(tmp_path):
    with Registry(tmp_path / "registry", durable=False) as reg:
        yield reg


@pytest.mark.parametrize("name", NAMES)
def test_a_documented_examples_name_description_and_parameters_make_a_script_tool(registry, name):
    example = read_json(EXAMPLES / f"{name}.json")
    compiled = registry.check_definition(as_script(example, "print('{}')"))
    assert compiled.name == name
    assert compiled.parameters["properties"].keys() == example["parameters"]["properties"].keys()


@pytest.mark.usefixtures("bwrap_installed")
def test_word_frequency_ported_to_python_runs_in_the_sandbox(registry):
    example = read_json(EXAMPLES / "word_frequency.json")
    registry.create(as_script(example, WORD_FREQUENCY))
    result = registry.run("word_frequency", {"text": "The cat and the hat. THE end!"})
    assert result["sandbox"] == "bubblewrap"
    assert result["output"]["totalWords"] == 7 and result["output"]["uniqueWords"] == 5
    assert result["output"]["top20"][0] == ["the", 3]
