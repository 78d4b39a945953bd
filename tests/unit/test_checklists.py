"""What CONTRIBUTING.md's checklists ask of a new builtin, diagnostic code or backend, checked
over everything that exists, so that a step left out fails here."""

import re
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.semantics.builtins import BUILTINS

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "toolkiln"


def source_text(*, without: Path) -> str:
    """The text of every module of src/ outside `without` (a file or a folder)."""
    return "\n".join(
        p.read_text(encoding="utf-8") for p in SRC.rglob("*.py") if p != without and without not in p.parents
    )


def test_every_builtin_is_documented_and_says_whether_it_is_pure():
    for builtin in BUILTINS.values():
        assert builtin.doc.strip(), builtin.name
        assert isinstance(builtin.pure, bool), builtin.name


def test_every_builtin_is_called_by_some_test():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    untested = [name for name in BUILTINS if not re.search(rf"\b{name}\(", tests)]
    assert untested == []


def test_every_diagnostic_code_is_explained_and_used():
    """A code is registered once in diagnostics/codes/ with a title and an explanation (the
    docs page and `toolkiln explain` are made from them), and some module reports it."""
    text = source_text(without=SRC / "diagnostics" / "codes")
    constants = {value.code: name for name, value in vars(codes).items() if isinstance(value, codes.Code)}
    for code, entry in codes.CODES.items():
        assert entry.title and entry.explanation, code
        name = constants[code]
        assert re.search(rf"\b(codes\.)?{name}\b", text), f"{code} ({name}) is reported nowhere"


def test_every_backend_module_is_placed_in_the_contracts():
    """A backend is independent of its siblings: each one is listed in the siblings contract,
    or is one of the shared pieces the others build on."""
    shared = {"expressions", "workflow_printer", "workflow_result"}
    contracts = (ROOT / ".importlinter").read_text(encoding="utf-8")
    backends = {path.stem for path in (SRC / "backends").glob("*.py") if path.stem != "__init__"}
    backends |= {path.name for path in (SRC / "backends").iterdir() if (path / "__init__.py").exists()}
    for backend in sorted(backends - shared):
        assert f"toolkiln.backends.{backend}" in contracts, backend
