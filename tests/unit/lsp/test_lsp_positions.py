"""Offsets and the protocol's positions: lines ended by \\r\\n, \\n or \\r; columns in UTF-16
units (or the encoding agreed); toolkiln's 1-based spans mapped through the text."""

from lsprotocol import types

from toolkiln import check
from toolkiln.lsp.positions import TextLines


def position(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def test_a_character_beyond_the_bmp_is_two_utf16_units_and_four_utf8_ones() -> None:
    text = 'a = "😀x"\nb = 1'
    x = text.index("x")
    assert TextLines(text).position(x) == position(0, x + 1)
    assert TextLines(text, "utf-8").position(x) == position(0, x + 3)
    assert TextLines(text, "utf-32").position(x) == position(0, x)
    assert TextLines(text).offset(position(0, x + 1)) == x
    assert TextLines(text, "utf-8").offset(position(0, x + 3)) == x


def test_lines_end_at_crlf_lf_and_cr_and_positions_past_the_end_clamp() -> None:
    lines = TextLines("ab\r\ncd\ref\ngh")
    assert [lines.position(i) for i in (4, 7, 10)] == [position(1, 0), position(2, 0), position(3, 0)]
    assert lines.offset(position(0, 99)) == 2  # past a line's end: its end, before \r\n
    assert lines.offset(position(99, 0)) == len(lines.text)
    assert lines.end() == position(3, 2)


def test_a_diagnostics_span_maps_to_the_range_of_its_text() -> None:
    text = 'tool t(n: number)\ndescription "😀"\n{\n  return n &&\n}\n'
    [diagnostic] = [d for d in check(text, name="t.tk") if d.code == "E0101"]
    lines = TextLines(text)
    found = lines.span_range(diagnostic.span)
    start = lines.offset(found.start)
    assert text[start : lines.offset(found.end)] == "&&"
    assert lines.span_range(None) == types.Range(start=position(0, 0), end=position(0, 0))


def test_columns_count_units_on_the_line_beyond_ascii_and_characters_on_the_others() -> None:
    text = 'b = 1\na = "😀x"\nc = 2'
    lines = TextLines(text)
    x = text.index("x")
    for _ in range(2):  # (what a line is, ASCII or not, is found once and kept)
        assert lines.position(text.index("1")) == position(0, 4)
        assert lines.position(x) == position(1, x - 6 + 1)  # the emoji is one character, two units
        assert lines.position(text.index("2")) == position(2, 4)
