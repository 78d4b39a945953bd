"""What `import toolkiln` loads: the heavy and optional dependencies only with the features
that need them (each probe runs in a fresh interpreter, so nothing is loaded beforehand)."""

import json
import os
import subprocess
import sys
from pathlib import Path

SHIPPING = Path(__file__).resolve().parents[2] / "examples" / "shipping_cost.json"
OPTIONAL = ("jsonschema", "httpx", "networkx")


def loaded_after(statements: str, modules: tuple[str, ...], env: dict[str, str] | None = None) -> list[str]:
    probe = f"{statements}\nimport json, sys\nprint(json.dumps([m for m in {modules!r} if m in sys.modules]))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_import_toolkiln_loads_no_dependency_yet():
    assert loaded_after("import toolkiln", ("lark", "pydantic", *OPTIONAL)) == []


def test_compiling_and_running_a_json_tool_needs_neither_lark_pydantic_nor_the_optional_dependencies():
    statements = (
        f"import toolkiln\ntool = toolkiln.compile(open({str(SHIPPING)!r}).read())\n"
        "assert str(tool.run({'weight_kg': 12})) == '31.500'"
    )
    assert loaded_after(statements, ("lark", "pydantic", *OPTIONAL)) == []


def test_the_text_dsl_loads_lark_only_to_explain_what_the_hand_written_parsers_decline(tmp_path):
    statements = "import toolkiln\nassert toolkiln.compile('return 1 + 2').run({}) == 3"
    assert loaded_after(statements, ("lark", *OPTIONAL)) == []
    # A state home of its own: once Lark has kept its tables there, the error finder explains
    # a syntax error without it (whether an earlier test of this session did is not known).
    fresh = {**os.environ, "TOOLKILN_STATE_DIR": str(tmp_path)}
    statements = "import toolkiln\nassert [d.code for d in toolkiln.check('return 1 +')] == ['E0101']"
    assert loaded_after(statements, ("lark", *OPTIONAL), fresh) == ["lark"]
    assert loaded_after(statements, ("lark", *OPTIONAL), fresh) == []


def test_check_stays_the_function_whatever_loads_first():
    """`toolkiln.check` is a function and `toolkiln/check/` a subpackage: loading the
    subpackage first must not hide the function."""
    statements = (
        "import toolkiln.check.scope\nimport toolkiln\nfrom toolkiln import check\n"
        "assert toolkiln.check is check and callable(check)\nassert check('return 1') == []"
    )
    assert loaded_after(statements, ()) == []


def test_every_public_name_resolves():
    import toolkiln

    for name in toolkiln.__all__:
        assert getattr(toolkiln, name) is not None, name
    assert set(toolkiln.__all__) <= set(dir(toolkiln))
