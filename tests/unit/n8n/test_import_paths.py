"""The n8n client moved to `toolkiln.n8n`; the paths the docs gave before still import the same
objects, so a user's `except N8nError` catches what the client raises, whichever path it used."""

import importlib

import pytest


@pytest.mark.parametrize("module", ["client", "deploy", "errors"])
def test_the_former_backends_path_gives_the_same_objects(module):
    new = importlib.import_module(f"toolkiln.n8n.{module}")
    old = importlib.import_module(f"toolkiln.backends.n8n.{module}")
    assert old.__all__, module
    for name in old.__all__:
        assert getattr(old, name) is getattr(new, name), name
    public = {name for name, value in vars(new).items() if not name.startswith("_") and _defined_in(value, new)}
    assert public <= set(old.__all__)


def _defined_in(value, module) -> bool:
    return getattr(value, "__module__", None) == module.__name__
