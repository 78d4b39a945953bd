"""Where the five peers' real files lie: ../shared/corpus/peers/ beside the checkout (issue 27).
They are read where they lie, never copied into the repository; without them the tests that
need them are skipped with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# CI checks the project out beside shared/: the corpus is found from the repo root's parent.
PEERS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "peers"


def peer(name: str) -> Path:
    """The folder of one peer; the calling module is skipped when it is absent."""
    folder = PEERS / name
    if not folder.is_dir():
        pytest.skip(f"the peers' corpus is not at {folder} (shared/ beside the checkout)", allow_module_level=True)
    return folder


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
