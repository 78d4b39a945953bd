"""Adding a tool kind is one class plus its tests (CONTRIBUTING.md, "Adding a tool kind").

The kind here, `constant`, is defined in this file and nowhere in src/: put in the table of
kinds for each test, a tool of it is created, run, listed, exported, updated, shown and
served without any other file knowing of it. The last tests check that the four built-in
kinds are the table's, and that nothing outside registry/kinds/ compares a kind's name.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from toolkiln import CompileError, Registry, RunError
from toolkiln.ast.records import record, set_field
from toolkiln.diagnostics import codes
from toolkiln.registry import BrokenTool, kinds
from toolkiln.registry.kinds.base import Compiled, CompileOptions, RunContext, Runnable, ToolKind, at_path
from toolkiln.registry.models import ToolRecord

SRC = Path(__file__).resolve().parents[3] / "src" / "toolkiln"
NO_PARAMETERS = {"type": "object", "properties": {}, "additionalProperties": False}


@record(kw_only=True)
class ConstantCompiled(Compiled):
    value: Any

    def __init__(self, *args: Any, value: Any, **common: Any) -> None:
        super().__init__(*args, **common)
        set_field(self, "value", value)


class ConstantRun:
    def __init__(self, value: Any) -> None:
        self._value = value

    def run(self, args: Mapping[str, Any] | None = None, **options: Any) -> Any:
        if args:
            raise RunError(codes.INVALID_ARGUMENT.code, f"a constant takes no arguments, not {sorted(args)}")
        return self._value


class ConstantKind(ToolKind):
    """A tool that answers the same JSON value every time: `{"kind": "constant", "name": ...,
    "description": ..., "value": ...}`."""

    name = "constant"
    changeable = ("description", "value")
    annotations = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    side_effects = False
    signed = False
    not_tried = None
    runs_in = "the constant kind of test_tool_kinds.py"

    def compile(self, source: Any, tools: Mapping[str, Any] | None, options: CompileOptions) -> Compiled:
        fields = ("kind", "name", "description", "value")
        problems = [at_path(codes.MISSING_FIELD, f"a constant needs `{f}`", f) for f in fields if f not in source]
        problems += [at_path(codes.UNKNOWN_FIELD, f"unknown field `{f}`", f) for f in source if f not in fields]
        if problems:
            raise CompileError(problems)
        definition = {field: source[field] for field in fields}
        return ConstantCompiled(
            self, definition, source["name"], source["description"], "low", NO_PARAMETERS, value=source["value"]
        )

    def runnable(self, record: ToolRecord, compiled: Compiled, context: RunContext) -> Runnable:
        assert isinstance(compiled, ConstantCompiled)
        return ConstantRun(compiled.value)

    def try_run(self, compiled: Compiled, args: Mapping[str, Any], tables: Mapping[str, Any], clock: Any) -> Any:
        assert isinstance(compiled, ConstantCompiled)
        return ConstantRun(compiled.value).run(args)

    def text(self, record: ToolRecord) -> str:
        return f"  constant {json.dumps(record.definition['value'])}"


ANSWER = {"kind": "constant", "name": "answer", "description": "The answer.", "value": 42}


@pytest.fixture
def constant():
    with kinds.registered(ConstantKind()) as kind:
        yield kind


def test_a_kind_from_outside_the_package_is_created_run_listed_and_updated(reg, constant):
    record = reg.create(ANSWER, created_by="llm")
    assert (record.kind, record.status, record.parameters) == ("constant", "active", NO_PARAMETERS)
    assert [reg.run("answer") for _ in range(3)] == [42, 42, 42]
    assert reg.invoke("answer", {}, principal="llm").result == 42
    with pytest.raises(RunError, match="no arguments"):
        reg.run("answer", {"x": 1})
    assert [(r.name, r.kind) for r in reg.list()] == [("answer", "constant")]
    assert reg.get("answer").usage_count == 5  # (a failed run is a use too)

    updated = reg.update("answer", {"value": [4, 2]})
    assert (updated.version, reg.run("answer")) == (2, [4, 2])
    with pytest.raises(CompileError) as refused:
        reg.update("answer", {"logic": {}})  # the changeable fields are the kind's
    assert refused.value.diagnostics[0].code == codes.UNKNOWN_FIELD.code
    assert "changeable fields: description, value" in (refused.value.diagnostics[0].hint or "")


def test_a_kind_from_outside_is_exported_with_its_own_annotations(reg, constant):
    reg.create(ANSWER)
    (tool,) = reg.definitions("mcp")
    assert tool["name"] == "answer" and tool["annotations"]["idempotentHint"] is True
    assert tool["inputSchema"] == NO_PARAMETERS
    assert [t["function"]["name"] for t in reg.definitions("openai")] == ["answer"]


def test_a_kind_from_outside_survives_a_reopened_registry_and_leaves_with_the_table(registry_location):
    with kinds.registered(ConstantKind()), Registry(registry_location) as reg:
        reg.create(ANSWER)
    with kinds.registered(ConstantKind()), Registry(registry_location) as again:
        assert again.run("answer") == 42 and again.problems == []
    with Registry(registry_location) as without:
        assert without.export("mcp").definitions == []  # not run, so not offered, even before a check
        with pytest.raises(CompileError, match="unknown tool kind 'constant'"):
            without.create({**ANSWER, "name": "other"})
        with pytest.raises(BrokenTool, match="unknown tool kind 'constant'"):
            without.run("answer")
        assert [r.name for r in without.list()] == ["answer"]  # its file is listed; it does not run


def test_a_kind_from_outside_is_checked_shown_and_served(tmp_path, constant):
    from toolkiln.cli.tools import _definition_text
    from toolkiln.server.app import create_app
    from toolkiln.server.services import Settings
    from toolkiln.server.state import state_folder
    from toolkiln.server.tokens import TokenStore

    app = create_app(Settings(registry=tmp_path / "reg"))
    reg = app.state.services.registries.default
    reg.create(ANSWER)
    assert reg.call_meta("test_custom_tool", {"definition": {**ANSWER, "name": "b"}, "args": {}})["result"] == 42
    assert _definition_text(reg.get("answer")) == "  constant 42"
    token = TokenStore(state_folder(reg.path)).create("t", "run", "person")[0]
    client = TestClient(app, headers={"Authorization": f"Bearer {token}"})
    listed = client.get("/api/v1/tools", params={"kind": "constant"}).json()
    assert [t["name"] for t in listed["tools"]] == ["answer"]
    assert client.get("/api/v1/tools", params={"kind": "nope"}).json()["code"] == "R0104"
    assert client.post("/api/v1/tools/answer/execute", json={"args": {}}).json()["result"] == 42


def test_print_run_result_says_where_the_kind_ran(capsys, constant):
    from toolkiln.cli.programs import print_run_result

    print_run_result({"a": 1}, "constant")
    out, err = capsys.readouterr()
    assert out == '{"a": 1}\n' and err == "ran in the constant kind of test_tool_kinds.py\n"


def test_the_built_in_kinds_are_the_table():
    assert list(kinds.KINDS) == ["compute", "workflow", "script", "executable"]
    with pytest.raises(ValueError, match="exists already"), kinds.registered(kinds.KINDS["compute"]):
        pass


KIND_NAMES = {"compute", "workflow", "script", "executable"}
# Modules that may name kinds: the kinds themselves, and the factory and /check, which ask a
# model for (or read) a source in one language, the compute or the workflow DSL.
# The JSON front end's hint for a definition that looks like a program without its `kind`;
# importers of another system's tools, whose own `type` field says "compute" too (kitz.py).
MAY_NAME_KINDS = (
    "registry/kinds/",
    "llm/",
    "server/routes/check.py",
    "syntax/json_document.py",
    "registry/kitz.py",
)


def _kind_comparisons(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            constants = [c.value for c in (node.left, *node.comparators) if isinstance(c, ast.Constant)]
            tuples = [
                e.value
                for c in node.comparators
                if isinstance(c, ast.Tuple | ast.Set | ast.List)
                for e in c.elts
                if isinstance(e, ast.Constant)
            ]
            if any(value in KIND_NAMES for value in constants + tuples):
                lines.append(node.lineno)
    return lines


def test_nothing_outside_the_kinds_compares_a_kind_name():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative.startswith(MAY_NAME_KINDS):
            continue
        lines = _kind_comparisons(ast.parse(path.read_text()))
        if lines:
            found[relative] = lines
    assert found == {}
