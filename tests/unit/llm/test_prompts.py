"""The factory's prompts are generated from the registries the compiler uses: a builtin, step
kind, operator or limit missing from them fails here; their worked examples must save."""

import dataclasses
import re
from typing import get_args

import pytest

import toolkiln.templates
from toolkiln import Limits, Registry
from toolkiln.ast.compute import BinaryOp, UnaryOp
from toolkiln.ast.types import DECLARABLE
from toolkiln.backends.n8n.catalog import load_catalog
from toolkiln.llm.prompts import (
    COMPUTE_EXAMPLE,
    STEP_MEANINGS,
    WORKFLOW_EXAMPLE,
    compute_prompt,
    relevant_nodes,
    template_prompt,
    workflow_prompt,
)
from toolkiln.semantics.builtins import BUILTINS, Arg, Builtin
from toolkiln.syntax.json_front import STEP_FIELDS


def test_every_builtin_is_in_the_compute_prompt_with_its_signature_and_doc():
    prompt = compute_prompt()
    for builtin in BUILTINS.values():
        assert f"`{builtin.signature}`: {builtin.doc}" in prompt, builtin.name


def test_every_step_kind_is_in_the_compute_prompt_with_its_fields():
    prompt = compute_prompt()
    assert set(STEP_MEANINGS) == set(STEP_FIELDS)  # a new step kind needs its few words here
    for op, (required, optional) in STEP_FIELDS.items():
        line = next(line for line in prompt.splitlines() if line.startswith(f'- `{{"op": "{op}"'))
        for name in required | optional:
            assert f'"{name}"' in line or f"`{name}`" in line, (op, name)


def test_every_operator_type_and_limit_is_in_the_compute_prompt():
    prompt = compute_prompt(Limits(max_operations=5000))
    for op in get_args(BinaryOp) + get_args(UnaryOp):
        assert f"`{op}`" in prompt, op
    for type_name in DECLARABLE:
        assert type_name in prompt
    for field in dataclasses.fields(Limits):
        assert f"- {field.name} = " in prompt, field.name
    assert "- max_operations = 5000" in prompt


def test_a_new_builtin_reaches_the_prompt_without_touching_it(monkeypatch):
    fake = Builtin(
        "haversine_km", (Arg("a", ()), Arg("b", ())), lambda _: None, lambda *_: None, "Distance.", pure=True
    )
    monkeypatch.setitem(BUILTINS, "haversine_km", fake)
    assert "`haversine_km(a, b)`: Distance." in compute_prompt()


def test_the_worked_examples_save(tmp_path):
    registry = Registry(tmp_path / "reg", durable=False)
    assert registry.create(COMPUTE_EXAMPLE, created_by="llm").status == "active"  # its examples ran
    assert registry.create(WORKFLOW_EXAMPLE, created_by="llm").status == "pending_approval"


def test_the_workflow_prompt_has_the_grammar_and_a_few_matching_nodes():
    prompt = workflow_prompt("When a lead fills our form, post it to Slack and add a row in Google Sheets")
    for rule in ("set_step", "http_step", "node_spec", "webhook"):
        assert rule in prompt
    assert "//" not in prompt.split("Its grammar (Lark):")[1].split("# n8n nodes")[0]  # no grammar comments
    listed = re.findall(r"^- `(n8n-nodes-base\.\w+)` version", prompt, re.MULTILINE)
    assert "n8n-nodes-base.slack" in listed and "n8n-nodes-base.googleSheets" in listed
    assert 2 <= len(listed) <= 12
    catalog = load_catalog()
    assert all(name in catalog for name in listed)


def test_relevant_nodes_prefers_telling_words():
    catalog = load_catalog()
    names = [node.name for node in relevant_nodes("notify Slack", catalog, 3)]
    assert names[0] == "n8n-nodes-base.slack"
    assert len(relevant_nodes("email, Slack, Google Sheets, Airtable and Stripe", catalog, 4)) == 4
    assert relevant_nodes("the and of", catalog, 12) == []  # no telling word: no node


@pytest.mark.parametrize("template", toolkiln.templates.list(), ids=lambda t: t.slug)
def test_the_template_prompt_lists_every_parameter(template):
    prompt = template_prompt(template)
    for parameter in template.parameters:
        assert f"- `{parameter.name}` ({parameter.type.name}" in prompt
