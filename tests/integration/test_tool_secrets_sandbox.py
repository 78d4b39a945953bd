"""A script tool's declared secrets reach its bubblewrap sandbox as environment variables, and a
missing one refuses the tool before it runs (R0742)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.errors import RunError
from toolkiln.registry.registry import Registry
from toolkiln.registry.secrets import KEY_ENV, SecretStore

pytestmark = pytest.mark.usefixtures("bwrap_installed")
VALUE = "wx-0123456789-secret"
ECHO_ENV = (
    'import json, os\nprint(json.dumps({"key": os.environ.get("WEATHER_API_KEY"), "home": os.environ["HOME"]}))\n'
)


@pytest.fixture
def reg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writable_folder: Path) -> Iterator[Registry]:
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv(KEY_ENV, raising=False)
    with Registry(tmp_path / "registry", durable=False, usage_flush_seconds=0) as registry:
        registry.create(
            {
                "kind": "script",
                "name": "weather",
                "description": "Echoes its key.",
                "runtime": "python",
                "body": ECHO_ENV,
                "secrets": ["WEATHER_API_KEY"],
            }
        )
        yield registry


def test_a_declared_secret_is_an_environment_variable_in_the_sandbox(reg: Registry) -> None:
    SecretStore(reg.path).set("WEATHER_API_KEY", VALUE)
    result = reg.run("weather", {})
    assert result["sandbox"] == "bubblewrap"
    assert result["output"] == {"key": VALUE, "home": "/tmp"}
    assert reg.get("weather").definition["secrets"] == ["WEATHER_API_KEY"]


def test_a_missing_secret_refuses_the_tool_before_it_runs(reg: Registry) -> None:
    with pytest.raises(RunError) as refused:
        reg.run("weather", {})
    assert refused.value.code == "R0742" and "WEATHER_API_KEY" in refused.value.message
    outcome = reg.invoke("weather", {}, principal="llm")
    assert not outcome.ok and outcome.errors[0].code == "R0742"
