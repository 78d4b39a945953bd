"""`toolkiln secrets`: a value from stdin, never argv; list shows names only; coded errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

VALUE = "hunter2-weather-0123"


def _toolkiln(registry: Path, state: Path, *words: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLKILN_STATE_DIR": str(state)}
    env.pop("TOOLKILN_SECRET_KEY", None)
    command = [sys.executable, "-m", "toolkiln", "secrets", *words, "--registry", str(registry)]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=60)


def test_set_list_delete_through_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry, state = tmp_path / "reg", tmp_path / "state"
    registry.mkdir()
    assert _toolkiln(registry, state, "set", "WEATHER_API_KEY", stdin=VALUE + "\n").returncode == 0
    listed = _toolkiln(registry, state, "list")
    assert listed.returncode == 0 and "WEATHER_API_KEY" in listed.stdout and VALUE not in listed.stdout
    assert VALUE not in (registry / "secrets.json").read_text()
    from toolkiln.registry.secrets import SecretStore

    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(state))
    assert SecretStore(registry).get("WEATHER_API_KEY") == VALUE  # the newline of echo is not kept
    assert _toolkiln(registry, state, "delete", "WEATHER_API_KEY").returncode == 0
    missing = _toolkiln(registry, state, "delete", "WEATHER_API_KEY")
    assert missing.returncode == 1 and missing.stderr.startswith("error[R0743]: no secret WEATHER_API_KEY is set")


def test_a_bad_name_is_one_coded_line_and_exit_1(tmp_path: Path) -> None:
    done = _toolkiln(tmp_path / "reg", tmp_path / "state", "set", "lower", stdin=VALUE)
    assert done.returncode == 1 and done.stderr.startswith("error[R0740]") and "Traceback" not in done.stderr
