"""Regressions from a hostile-input sweep of the CLI and the public API: each input here once
escaped as a Python exception (an "internal error" from the CLI) instead of a diagnostic."""

import pytest

import toolkiln
from toolkiln.cli import main


def codes_of(source) -> list[str]:
    return [d.code for d in toolkiln.check(source)]


def run_cli(capsys, *argv) -> tuple[int, str]:
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("op", [[], {}, ["math"], {"op": "math"}])
def test_step_op_of_a_json_container_is_an_unknown_op(op):
    assert codes_of({"steps": [{"op": op}, {"op": "return", "value": "1"}]}) == ["E0107"]
