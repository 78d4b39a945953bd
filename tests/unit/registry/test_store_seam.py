"""The seam between the registry and its store (issue 32 item 3): `Registry` reaches its tools
only through the `Store` protocol, and the protocol names no file system path, so a store that
is not a folder (a database) needs no change above it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from toolkiln.registry import store

REGISTRY = Path(store.__file__).parent
# Registry and its mixins, and the view a check has of it.
ABOVE_THE_STORE = ("registry.py", "changing.py", "checking.py", "trusting.py", "reads.py")
# What lies behind the protocol: the directory store's parts.
BEHIND_THE_STORE = {
    "mirror",
    "folder",
    "usage",
    "usage_file",
    "index",
    "signatures",
    "vouching",
    "past_versions",
    "loaded_tables",
    "check_cache",
    "problem_files",
    "compiled_forms",
    "codec",
}


def _registry_modules_imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolkiln.registry."):
            found.add(node.module.removeprefix("toolkiln.registry.").split(".")[0])
    return found


def test_the_registry_reaches_its_tools_only_through_the_store():
    for name in ABOVE_THE_STORE:
        imported = _registry_modules_imported(REGISTRY / name)
        assert imported & BEHIND_THE_STORE == set(), name
        assert "_mirror" not in (REGISTRY / name).read_text(), name
    # A location is mapped to its store in one place (locations.py), where `Registry(path)` opens it.
    assert "locations" in _registry_modules_imported(REGISTRY / "registry.py")
    assert "directory" in _registry_modules_imported(REGISTRY / "locations.py")
    assert not any("directory" in _registry_modules_imported(REGISTRY / n) for n in ABOVE_THE_STORE)


def test_the_store_protocol_names_no_path():
    members = [m for n, m in vars(store.Store).items() if not n.startswith("_")]
    annotations = []
    for member in members:
        function = member.fget if isinstance(member, property) else member
        if inspect.isfunction(function):
            annotations += [str(a) for a in function.__annotations__.values()]
    assert len(annotations) > 40  # (every member is annotated: the protocol is all there)
    assert not [a for a in annotations if "Path" in a or "PathLike" in a]
