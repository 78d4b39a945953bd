"""Diagnostics in very long lines (a minified n8n export is one line) show a window of the
line around the problem, with the caret under it, in text and in JSON."""

import json

from toolkiln.diagnostics.model import SNIPPET_WIDTH
from toolkiln.diagnostics.render import render_text
from toolkiln.workflow import check_workflow


def minified_export(nodes: int) -> str:
    names = [f"node number {i}" for i in range(nodes)]
    return json.dumps(
        {
            "name": "Long",
            "nodes": [
                {"name": name, "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}, "position": [0, 0]}
                for name in names
            ]
            + [
                {
                    "name": "Odd",
                    "type": "n8n-nodes-base.noSuchThing",
                    "typeVersion": 1,
                    "parameters": {},
                    "position": [0, 0],
                }
            ],
            "connections": {},
        }
    )


def test_a_finding_deep_in_a_long_line_shows_a_window_with_the_caret_under_it():
    text = minified_export(2000)
    odd = next(d for d in check_workflow(text) if "noSuchThing" in d.message)
    assert len(odd.snippet) == SNIPPET_WIDTH and odd.snippet_start > 0
    rendered = render_text(odd).splitlines()
    source, caret = rendered[3], rendered[4]
    assert source.startswith(f"{odd.span.line} | ...")
    position = caret.index("^")
    assert text[odd.span.column - 1] == source[position]
    assert len(source) < 200 and odd.to_dict()["source"] == odd.snippet


def test_short_lines_are_shown_whole():
    (diagnostic,) = list(check_workflow('workflow w\ndescription "d"\non manual\nset a { x = b.c }\n'))
    assert (diagnostic.snippet, diagnostic.snippet_start) == ("set a { x = b.c }", 0)
    assert render_text(diagnostic).splitlines()[3] == "4 | set a { x = b.c }"
