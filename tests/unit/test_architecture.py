"""The layering is a fact of the code, not only of ARCHITECTURE.md: import-linter's contracts
hold, and no two modules of src/ import each other, directly or through others."""

import re
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parents[2]


def import_graph() -> nx.DiGraph:
    graph = grimp.build_graph("toolkiln")
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return edges


def test_no_module_takes_part_in_an_import_cycle():
    cycles = [cycle for cycle in nx.simple_cycles(import_graph()) if len(cycle) > 1]
    assert cycles == []


def test_the_import_contracts_hold():
    probe = (
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename='.importlinter', no_cache=True, no_logo=True))"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_the_contracts_name_every_top_level_package():
    """A new package must be placed in the layers, or the layers contract does not see it."""
    contracts = (ROOT / ".importlinter").read_text(encoding="utf-8")
    packages = {path.name for path in (ROOT / "src" / "toolkiln").iterdir() if (path / "__init__.py").exists()}
    modules = {path.stem for path in (ROOT / "src" / "toolkiln").glob("*.py") if not path.stem.startswith("_")}
    for name in sorted(packages | modules):
        assert f"toolkiln.{name}" in contracts, f"toolkiln.{name} is in no layer of .importlinter"


# Modules over the 600-line limit of issue 32 when the limit came in, each with the lane that
# splits it: an entry goes when its module is under the limit; none are added.
OVER_THE_LINE_LIMIT: dict[str, str] = {}  # module -> why it is still over (empty: none is)
LINE_LIMIT = 600


def test_no_module_is_over_600_lines():
    """Small modules with one job (CONTRIBUTING.md): a module that grows past the limit is
    split along its seams, not added to the list above."""
    source = ROOT / "src" / "toolkiln"
    sizes = {path.relative_to(source).as_posix(): len(path.read_bytes().splitlines()) for path in source.rglob("*.py")}
    over = {name: lines for name, lines in sizes.items() if lines > LINE_LIMIT and name not in OVER_THE_LINE_LIMIT}
    assert over == {}
    assert all(sizes[name] > LINE_LIMIT for name in OVER_THE_LINE_LIMIT), "a module on the list is small now"


def test_no_two_test_files_share_a_name():
    # pytest imports test files by their base name (the test folders are not packages), so a
    # second file of one name stops the whole run at collection on a clean checkout.
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(ROOT)} and {path.relative_to(ROOT)}")
        seen.setdefault(path.name, path)
    assert not clashes, "test files that share a name: " + "; ".join(clashes)


def importlinter_layers() -> list[set[str]]:
    """The layers of .importlinter's layers contract, top first, each the set of its packages."""
    lines = (ROOT / ".importlinter").read_text(encoding="utf-8").splitlines()
    start = lines.index("type = layers") + 2  # the line after "layers ="
    layers = []
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        layers.append(set(re.findall(r"toolkiln\.\w+", line)))
    return layers


def test_architecture_md_draws_the_layers_of_importlinter():
    """ARCHITECTURE.md's layer table is the layers contract, row for row, with its numbers,
    so the page a newcomer reads first cannot drift from what lint-imports enforces."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| (.+?) \| .+ \|$", text, flags=re.MULTILINE)
    drawn = [(int(number), set(re.findall(r"toolkiln\.\w+", packages))) for number, packages in rows]
    layers = importlinter_layers()
    expected = [(len(layers) - 1 - index, layer) for index, layer in enumerate(layers)]
    assert drawn == expected
    assert (ROOT / "docs" / "ARCHITECTURE.md").resolve() == (ROOT / "ARCHITECTURE.md").resolve()
