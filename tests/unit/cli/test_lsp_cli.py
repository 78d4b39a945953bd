"""`toolkiln lsp` without the `lsp` extra says which extra to install (R0801), exit 2, no traceback;
the other commands never load the language server."""

from __future__ import annotations

import subprocess
import sys

_WITHOUT_PYGLS = """
import sys
sys.modules["pygls"] = None  # as if the extra were not installed: importing it fails
from toolkiln.cli import main
sys.exit(main(["lsp"]))
"""


def test_without_the_extra_the_command_names_it_with_a_code_and_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PYGLS], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 2
    assert "error[R0801]" in done.stderr and "pip install 'toolkiln[lsp]'" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_help_lists_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolkiln", "lsp", "--help"], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0 and "--registry" in done.stdout and "--strict" in done.stdout
