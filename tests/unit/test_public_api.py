"""Every name the issues promise at the top of the package resolves, lazily."""

import subprocess
import sys

import pytest

import toolkiln

PROMISED = [
    "compile",
    "check",
    "to_text",
    "to_json",
    "Tool",
    "Limits",
    "Diagnostic",
    "CompileError",
    "RunError",
    "Error",
    "Registry",
    "ToolRecord",
    "PermissionDenied",
    "compile_workflow",
    "check_workflow",
    "import_n8n",
    "templates",
]


@pytest.mark.parametrize("name", PROMISED)
def test_public_name_resolves(name):
    assert getattr(toolkiln, name) is not None
    assert name in dir(toolkiln)


def test_listed_names_all_resolve():
    assert [name for name in toolkiln.__all__ if not hasattr(toolkiln, name)] == []


def test_workflow_names_do_not_load_networkx_until_used():
    code = "import sys, toolkiln; assert 'networkx' not in sys.modules; toolkiln.compile_workflow; print('ok')"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "ok"
