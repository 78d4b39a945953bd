"""The language server's features without a client: the bound on published diagnostics, hover,
completion in scope, the files go to definition opens (and those it refuses)."""

from pathlib import Path

from toolkiln import check
from toolkiln.lsp.completion import completions
from toolkiln.lsp.definition import tool_file
from toolkiln.lsp.diagnostics import MAX_PUBLISHED, published
from toolkiln.lsp.hover import hover
from toolkiln.lsp.positions import TextLines
from toolkiln.lsp.program import understand

TOOL = 'tool t(n: number "how many")\ndescription "T"\n{\n  half = n / 2\n  return round(half)\n}\n'


def test_past_the_bound_one_line_counts_the_diagnostics_not_shown() -> None:
    text = "".join(f"x{i} = y{i}\n" for i in range(1500)) + "return 1\n"
    found = check(text, name="many.tk")
    assert len(found) > MAX_PUBLISHED + 100
    sent = published(found, TextLines(text))
    assert len(sent) == MAX_PUBLISHED + 1
    assert [d.code for d in sent[:MAX_PUBLISHED]] == [d.code for d in found[:MAX_PUBLISHED]]
    assert sent[-1].code is None and f"{len(found) - MAX_PUBLISHED:,} more diagnostics" in sent[-1].message


def test_hover_gives_a_parameters_declared_type_and_description_and_a_builtins_doc() -> None:
    understood = understand(TOOL, "t.tk")
    assert hover(TOOL, TOOL.index("n / 2"), understood) == "```\n(parameter) n: number\n```\n\nhow many"
    assert hover(TOOL, TOOL.index("half ="), understood) == "```\n(variable) half: number\n```"
    assert hover(TOOL, TOOL.index("round") + 1, None).startswith("```\nround(x, digits?)\n```\nRound half")
    assert hover(TOOL, TOOL.index("return"), understood) is None


def test_completion_names_only_what_is_assigned_before_the_cursor() -> None:
    understood = understand(TOOL, "t.tk")
    before = {item.label for item in completions(TOOL.index("half ="), understood)}
    after = {item.label for item in completions(TOOL.index("return"), understood)}
    assert "n" in before and "half" not in before and "half" in after
    assert {"round", "sum", "upper"} <= before


def test_definition_opens_only_a_regular_file_named_after_a_valid_tool_name(tmp_path: Path) -> None:
    document = tmp_path / "caller.tk"
    registry = tmp_path / "reg"
    (registry / "tools").mkdir(parents=True)
    (registry / "tools" / "price.json").write_text("{}")
    (tmp_path / "price.tk").mkdir()  # a folder of that name is no definition
    assert tool_file("price", document, registry) == (registry / "tools" / "price.json").resolve()
    (tmp_path / "price.json").write_text("{}")
    assert tool_file("price", document, registry) == (tmp_path / "price.json").resolve()
    assert tool_file("../reg/tools/price", document, registry) is None
    assert tool_file("missing", document, None) is None
