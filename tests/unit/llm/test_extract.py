"""`toolkiln.llm.extract`: the definition in a model's reply, repaired only where the repair
cannot change its meaning, and a located diagnostic for anything else. The corpus in
replies/ (realistic replies and what each must give) is run through the factory too, so each
reply's compile and example diagnostics are pinned as well."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkiln import Registry
from toolkiln.errors import UsageError
from toolkiln.llm import ScriptedClient, extract
from toolkiln.llm.extraction import MAX_REPLY_CHARS
from toolkiln.llm.factory import Factory

REPLIES = Path(__file__).parent / "replies"
EXPECTED = json.loads((REPLIES / "expected.json").read_text(encoding="utf-8"))


def reply(name: str) -> str:
    return (REPLIES / f"{name}.txt").read_text(encoding="utf-8")


def test_the_corpus_is_complete():
    assert len(EXPECTED) >= 40
    assert {path.stem for path in REPLIES.glob("*.txt")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_reply(name, tmp_path):
    """One attempt of the factory on the reply: the repairs made, the diagnostics fed back,
    and whether the tool was saved."""
    expected = EXPECTED[name]
    registry = Registry(tmp_path / "reg", durable=False)
    factory = Factory(ScriptedClient([reply(name)]), registry, max_attempts=1)
    create = factory.create_workflow if expected["create"] == "workflow" else factory.create_compute
    result = create("a tool")
    (attempt,) = result.attempts
    assert [r.kind for r in attempt.repairs] == expected["repairs"]
    assert [d.code for d in attempt.diagnostics] == expected["codes"]
    assert result.ok is expected["saved"]
    assert (len(registry) == 1) is expected["saved"]  # nothing is saved that did not pass


def test_repairs_do_not_change_the_data():
    clean = extract(reply("fenced-json")).data
    for name in ("trailing-commas", "line-comments", "block-comment", "prose-wrapped-unfenced", "fence-never-closed"):
        found = extract(reply(name))
        assert found.ok and found.data == clean, name


def test_repairs_keep_offsets_so_diagnostics_point_into_the_reply():
    text = reply("line-comments")
    found = extract(text)
    comments = [i for i, line in enumerate(text.splitlines(), 1) if "//" in line]
    assert [(r.kind, r.line) for r in found.repairs] == [("fence", 1)] + [("comment", line) for line in comments]
    assert len(found.source) == len(text.removeprefix("```json\n").removesuffix("\n```\n"))


def test_a_refusal_is_located_with_the_offending_text():
    text = reply("undefined-value")
    (diagnostic,) = extract(text).diagnostics
    line = next(i for i, line in enumerate(text.splitlines(), 1) if "undefined" in line)
    assert (diagnostic.code, diagnostic.span.line, diagnostic.file) == ("E0603", line, "reply")
    assert "undefined" in diagnostic.snippet
    start = diagnostic.span.column - 1 - diagnostic.snippet_start
    assert diagnostic.snippet[start : start + len("undefined")] == "undefined"
    assert diagnostic.hint.startswith("JSON has no `undefined`")


def test_truncated_json_is_never_completed():
    found = extract(reply("truncated-at-token-limit"))
    assert not found.ok and found.data is None
    (diagnostic,) = found.diagnostics
    assert diagnostic.code == "E0602" and "cut off" in diagnostic.message


def test_text_dsl_and_workflows():
    tool = extract('Here:\n```\ntool double(x: number) description "d" {\n  return x * 2\n}\n```')
    assert (tool.ok, tool.format, tool.kind, tool.data) == (True, "text", "compute", None)
    assert tool.source.startswith("tool double")
    unfenced = extract('Sure.\ntool double(x: number) description "d" {\n  return x * 2 # {\n}\nDone.')
    assert unfenced.source.endswith("# {\n}")  # the comment's brace is not the body's
    workflow = extract(reply("workflow-dsl-text"))
    assert (workflow.format, workflow.kind) == ("text", "workflow")
    assert extract(reply("workflow-fenced-json")).kind == "workflow"


def test_a_reply_of_ten_megabytes_is_refused_unread():
    found = extract("{" + " " * (10 * 1024 * 1024) + "}")
    (diagnostic,) = found.diagnostics
    assert diagnostic.code == "E0605" and f"{MAX_REPLY_CHARS:,}" in diagnostic.message


def test_deep_nesting_is_a_diagnostic():
    found = extract('{"logic": ' + "[" * 10_000 + "]" * 10_000 + "}")
    assert [d.code for d in found.diagnostics] == ["E0402"]


def test_only_a_string_is_a_reply():
    with pytest.raises(UsageError):
        extract(None)


def test_to_dict_is_plain_json():
    data = extract(reply("trailing-commas")).to_dict()
    assert json.loads(json.dumps(data))["repairs"][1] == {
        "kind": "trailing-comma",
        "message": "removed a trailing comma before `}`",
        "line": 26,  # `"output": "cost",` before the step's closing brace
    }


def test_many_repairs_of_a_kind_are_counted_not_listed():
    found = extract('{"logic": [' + "[1,]," * 1000 + "1]}")
    assert found.ok and len(found.data["logic"]) == 1001
    assert [r.message for r in found.repairs[-2:]] == [
        "removed a trailing comma before `]`",
        "and 980 more of the same",
    ]


def test_a_reply_of_many_fences_is_not_searched_for_blocks():
    found = extract("```\n" * 10_000)
    assert [d.code for d in found.diagnostics] == ["E0601"]


@pytest.mark.parametrize(
    "hostile",
    [
        '{"logic": [' + "," * (MAX_REPLY_CHARS - 20) + "]}",
        "{'" * (MAX_REPLY_CHARS // 2 - 1),
        '{"logic": ' + "/*" * (MAX_REPLY_CHARS // 2 - 10),
        '{"logic": "' + "a" * (MAX_REPLY_CHARS - 20),
        '{"logic": ' + "[" * (MAX_REPLY_CHARS // 2 - 10),
        "{//" * (MAX_REPLY_CHARS // 3),
        '{"a": [1, ' + "/**/" * (MAX_REPLY_CHARS // 4 - 10) + "x]}",
        "```" + " " * (MAX_REPLY_CHARS - 10) + "x",
    ],
    ids=["commas", "quotes", "open-comments", "open-string", "open-brackets", "braces", "comments", "fence"],
)
def test_hostile_replies_at_the_size_limit_end_in_a_diagnostic(hostile):
    assert len(hostile) <= MAX_REPLY_CHARS
    found = extract(hostile)
    assert not found.ok and found.diagnostics


# --- properties -----------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000))
def test_any_text_gives_an_extraction(text):
    found = extract(text)
    assert found.ok or found.diagnostics


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6), st.sampled_from(["", "Here:\n", "x {{y}}\n"]))
def test_a_fenced_object_comes_back_exactly(data, prose):
    definition = {"logic": {"steps": []}, **data}
    found = extract(f"{prose}```json\n{json.dumps(definition, indent=1)}\n```\nDone.")
    assert found.ok and found.data == definition


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6))
def test_comments_and_trailing_commas_never_change_the_data(data):
    definition = {"logic": {"steps": [1, 2]}, **data}
    text = json.dumps(definition, indent=1)
    noisy = text.replace("\n}", ",\n}").replace("\n]", ", // end\n]").replace("{\n", "{ /* open */\n", 1)
    found = extract(noisy)
    assert found.ok and found.data == definition
    assert {r.kind for r in found.repairs} <= {"comment", "trailing-comma"}
