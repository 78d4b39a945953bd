"""Shared by the executables' unit tests: a toolkiln home of the test's own, its trust store, and
a folder every user may write (as root, programs run as an unprivileged user)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.executables import TrustStore


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("TOOLKILN_HOME", str(folder))
    return folder


@pytest.fixture
def store(home: Path) -> TrustStore:
    return TrustStore(home)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder under /tmp that any user may enter and write (pytest's own is root's alone)."""
    with tempfile.TemporaryDirectory(prefix="toolkiln-test-") as name:
        os.chmod(name, 0o777)
        yield Path(name)
