"""BUILTINS knows every builtin's name without importing it, and imports a module of builtins
only when one of its names is looked up (start-up, issue 34): HOMES must say truly which
module registers each builtin."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

import toolkiln.semantics
from toolkiln.ast.types import NUMBER
from toolkiln.semantics.builtin_registry import BUILTINS, HOMES, Arg, builtin


def test_every_module_of_toolkiln_semantics_registers_only_builtins_homes_names():
    for module in pkgutil.iter_modules(toolkiln.semantics.__path__):
        importlib.import_module(f"toolkiln.semantics.{module.name}")  # a name not in HOMES: LookupError
    homes = {name: f"toolkiln.semantics.{module}" for module, names in HOMES.items() for name in names.split()}
    assert {name: BUILTINS[name].impl.__module__ for name in BUILTINS} == homes


def test_a_builtin_not_in_homes_is_refused_when_registered():
    with pytest.raises(LookupError, match="'frobnicate' is not in HOMES"):
        builtin("frobnicate", (Arg("x", (NUMBER,)),), NUMBER, "d", pure=True)(lambda limits, x: x)
    assert "frobnicate" not in BUILTINS and BUILTINS.get("frobnicate") is None


_PROBE = """
import json, sys
from toolkiln.semantics.builtins import BUILTINS
names = list(BUILTINS)
known = ("upper" in BUILTINS, "slugify" in BUILTINS, "weight_kg" in BUILTINS, len(BUILTINS) == len(names))
before = sorted(m for m in sys.modules if m.endswith(("_builtins", "js_float")))
found = BUILTINS["slugify"].name
after = sorted(m for m in sys.modules if m.endswith(("_builtins", "js_float")))
print(json.dumps([names, known, before, found, after]))
"""


def test_names_need_no_import_and_a_lookup_imports_only_its_module():
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    names, known, before, found, after = json.loads(done.stdout)
    assert names == [name for names in HOMES.values() for name in names.split()]
    assert known == [True, True, False, True]
    assert before == []
    assert (found, after) == ("slugify", ["toolkiln.semantics.word_builtins"])
