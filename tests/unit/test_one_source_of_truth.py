"""Issue 32, item 6: the tool formats, the foreign names models use for builtins and the
language summary models read are each written once, and what reads them cannot drift."""

import ast
from pathlib import Path

import pytest

import toolkiln
from toolkiln.registry.formats import CHAT_FORMATS, FORMATS
from toolkiln.registry.meta import meta_definitions
from toolkiln.semantics.builtins import BUILTINS, authored_builtins
from toolkiln.semantics.foreign_names import SAME_AS_BUILTIN, WRITE_INSTEAD
from toolkiln.semantics.js_builtins import JSONLOGIC_BUILTINS

SRC = Path(toolkiln.__file__).parent


def _nodes():
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            yield str(path.relative_to(SRC)), node


def _strings(nodes) -> list[str]:
    return [e.value for e in nodes if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _format_lists() -> set[str]:
    """The files where two or more format names stand side by side in a tuple, list, set or Literal."""
    return {path for path, node in _nodes() if len(set(_strings(getattr(node, "elts", []))) & set(FORMATS)) >= 2}


def _alias_tables() -> set[str]:
    """The files with a dict that maps two or more foreign names onto builtins."""
    foreign = {name for name, builtin in SAME_AS_BUILTIN.items() if name != builtin}
    found = set()
    for path, node in _nodes():
        if isinstance(node, ast.Dict):
            pairs = zip(_strings(node.keys), _strings(node.values))
            if sum(key in foreign and value in BUILTINS for key, value in pairs) >= 2:
                found.add(path)
    return found


def test_the_tool_formats_are_listed_once():
    assert set(CHAT_FORMATS) <= set(FORMATS)
    assert _format_lists() == {"registry/formats.py"}


def test_foreign_names_are_one_table_of_real_builtins():
    assert not set(SAME_AS_BUILTIN) & set(WRITE_INSTEAD)
    assert set(SAME_AS_BUILTIN.values()) <= set(BUILTINS)
    assert _alias_tables() == {"semantics/foreign_names.py"}


def test_the_checker_and_the_parser_hint_the_same_builtin():
    from toolkiln.check.advice import RENAMED_FUNCTIONS
    from toolkiln.check.expressions import FUNCTION_ALIASES
    from toolkiln.syntax.foreign import OTHER_METHODS, RECEIVER_FIRST

    assert RECEIVER_FIRST == RENAMED_FUNCTIONS == SAME_AS_BUILTIN
    assert FUNCTION_ALIASES == {**SAME_AS_BUILTIN, **WRITE_INSTEAD} and OTHER_METHODS == WRITE_INSTEAD


@pytest.mark.parametrize("format_", FORMATS)
def test_the_language_summary_names_every_builtin_an_author_writes(format_):
    (create,) = [d for d in meta_definitions(format_) if "create_compute_tool" in str(d)[:200]]
    summary = str(create)
    words = set(summary.replace(".", " ").replace(",", " ").split())
    missing = [name for name in authored_builtins() if name not in words]
    assert not missing, f"the meta-tools' summary does not name {missing}"
    assert not JSONLOGIC_BUILTINS & words  # the JsonLogic import's own are not the language's
    assert len(authored_builtins()) == len(BUILTINS) - len(JSONLOGIC_BUILTINS) >= 61
