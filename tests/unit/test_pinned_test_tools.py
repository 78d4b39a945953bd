"""The README's test command installs pinned versions: every requirement of the `test`, `dev`
and `docs` extras (and what they pull in) is pinned in constraints.txt, inside pyproject's range,
so a fresh machine runs the suite with the versions it last passed with."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def _extra(name: str) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = []
    for text in project["optional-dependencies"][name]:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) == "toolkiln":  # the extra naming another extra
            found += [r for extra in sorted(requirement.extras) for r in _extra(extra)]
        else:
            found.append(requirement)
    return found + [Requirement(text) for text in project["dependencies"]]


def test_every_test_dev_and_docs_requirement_is_pinned_inside_its_range():
    pins = _pins()
    for requirement in _extra("test") + _extra("dev") + _extra("docs"):
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{requirement.name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(pinned, prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pinned}, outside pyproject's {requirement.specifier}"
        )


def test_the_readme_test_command_installs_with_the_constraints():
    printed = subprocess.run(
        [sys.executable, "scripts/readme_commands.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    quick_start, tests = printed.splitlines()
    assert "toolkiln run examples/" in quick_start
    assert tests.startswith("pip install -c constraints.txt ") and tests.endswith("python -m pytest")
