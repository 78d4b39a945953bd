"""Reference sections generated from the code, so the docs never drift from it.

The tables are written into the Markdown files themselves, between a pair of markers, so that
the pages read complete on GitHub too:

    <!-- generated: builtins -->      the built-in functions   (toolkiln.semantics.builtins.BUILTINS)
    <!-- generated: error-codes -->   every diagnostic code    (toolkiln.diagnostics.codes.CODES)
    <!-- generated: limits -->        the fields of Limits     (toolkiln.Limits, with their defaults)
    <!-- generated: reserved -->      the reserved words       (toolkiln.syntax.json_front.RESERVED)
    <!-- generated: template-types --> template parameter types (toolkiln.templates.TYPES)
    <!-- generated: templates -->     the template gallery     (toolkiln.templates.list() and tests/golden/templates)

each region ending with `<!-- end generated -->`. After changing what a table shows (a new
builtin, code, limit or template), rewrite them:

    PYTHONPATH=src python docs/hooks.py

tests/unit/test_docs_generated.py fails while a region is stale, and so does
`mkdocs build --strict`, where this module is the hook (mkdocs.yml, `hooks:`): it logs a
warning for a stale region and serves the fresh one. A new Limits field without a
description below, or a code whose group is unknown, is also a warning: document it here.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.toolkiln")

# The groups of codes: the second and third characters of a code (E0201 -> "02").
CODE_GROUPS = {
    "01": "Input and syntax",
    "02": "Names and control flow",
    "03": "Types",
    "04": "Static limits",
    "05": "Run time",
    "06": "Model replies and examples",
    "07": "Workflows",
    "08": "Workflow templates",
    "09": "Prompted tool calls",
    "10": "JsonLogic import",
    "11": "Tools of other systems",
    "R01": "Registry: names and requests",
    "R02": "Registry: permissions and lifecycle",
    "R03": "Registry: storage",
    "R04": "Registry: workflow tools on n8n",
    "R05": "Server: requests and auth",
    "R06": "Executables and sandbox",
    "R07": "Trust: principals, capabilities, folders",
    "R08": "Editors: the language server",
}

LIMIT_DESCRIPTIONS = {
    "max_operations": "Operations one run may perform: every node of the program counts once, and each "
    "comprehension adds (size of its body) x (length of its list). Exceeding it is "
    "[E0503](errors.md#e0503-operation-budget).",
    "max_string_length": "Characters in a `string` argument (a longer one is "
    "[E0508](errors.md#e0508-invalid-argument)) and in a string built at run time by "
    "`+`, `format`, `join`, `replace`, `upper`, `lower` or `text` "
    "([E0504](errors.md#e0504-string-too-long)).",
    "max_list_length": "Items in an argument of an `array` type, declared or inferred (a longer one is "
    "[E0508](errors.md#e0508-invalid-argument)).",
    "max_number_digits": "Digits before the decimal point of a number argument "
    "([E0508](errors.md#e0508-invalid-argument)) and of any result computed at run time "
    "([E0506](errors.md#e0506-number-too-large)).",
    "max_seconds": "Wall-clock seconds of one run, checked each time a comprehension starts "
    "([E0507](errors.md#e0507-time-limit)).",
}

_MARKDOWN_SPECIAL = re.compile(r"([\\*_|<>\[\]])")


def _escape(text: str) -> str:
    """Escape Markdown outside `code spans`, so prose from docstrings renders as written."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # even parts are outside backticks
        parts[i] = _MARKDOWN_SPECIAL.sub(r"\\\1", parts[i])
    return "`".join(parts)


def anchor(code) -> str:
    """The anchor of a code's heading, as MkDocs' toc extension makes it from the heading."""
    return f"{code.code.lower()}-{code.name}"


# --- built-in functions -------------------------------------------------------------------


def builtins_table() -> str:
    from toolkiln.semantics.builtins import BUILTINS

    rows = ["| Function | Arguments | Description |", "| --- | --- | --- |"]
    for name in sorted(BUILTINS):
        builtin = BUILTINS[name]
        args = []
        for arg in builtin.args:
            types = " or ".join(str(t) for t in arg.accepts)
            label = f"{arg.name}: {types}"
            if arg.optional:
                label += " (optional)"
            args.append(f"`{label}`")
        if builtin.variadic:
            args[-1] += " (one or more)"
        rows.append(f"| `{builtin.signature}` | {'<br>'.join(args) or '-'} | {_escape(builtin.doc)} |")
    return "\n".join(rows)


# --- diagnostic codes ---------------------------------------------------------------------


def _explanation(text: str) -> str:
    """An explanation: prose (escaped), and its 4-space indented examples as code blocks."""
    out: list[str] = []
    prose: list[str] = []
    code: list[str] = []

    def flush_prose() -> None:
        if prose:
            out.extend(["", _escape("\n".join(prose)).strip("\n"), ""])
            prose.clear()

    def flush_code() -> None:
        while code and not code[-1].strip():
            code.pop()
        if code:
            out.extend(["", "```text", *code, "```", ""])
            code.clear()

    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("    "):
            flush_prose()
            code.append(line[4:])
        elif not line.strip() and code and _next_is_indented(lines, index):
            code.append("")
        else:
            flush_code()
            prose.append(line)
    flush_prose()
    flush_code()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _next_is_indented(lines: list[str], index: int) -> bool:
    for line in lines[index + 1 :]:
        if line.strip():
            return line.startswith("    ")
    return False


def error_codes() -> str:
    from toolkiln.diagnostics.codes import CODES

    # Sorted by group (in the order of CODE_GROUPS), then by number, so each group has one
    # heading even where CODES interleaves them (E0801 is defined between W0715 and E0720).
    order = list(CODE_GROUPS)

    def group_key(code) -> str:
        return code.code[1:3] if code.code[0] in "EW" else code.code[:3]

    def sort_key(code):
        key = group_key(code)
        return (order.index(key) if key in order else len(order), code.code[1:])

    entries = sorted(CODES.values(), key=sort_key)
    out = ["| Code | Name | Severity | Title |", "| --- | --- | --- | --- |"]
    out += [f"| [{c.code}](#{anchor(c)}) | `{c.name}` | {c.severity} | {_escape(c.title)} |" for c in entries]
    current = None
    for entry in entries:
        group = CODE_GROUPS.get(group_key(entry))
        if group is None:
            log.warning("docs/hooks.py: code %s has no group in CODE_GROUPS", entry.code)
            group = "Other"
        if group != current:
            out += ["", f"## {group}"]
            current = group
        out += [
            "",
            f"### {entry.code} {entry.name}",
            "",
            f"**{entry.severity.capitalize()}**: {_escape(entry.title)}. "
            f"Explain on the command line: `toolkiln explain {entry.code}`.",
            "",
            _explanation(entry.explanation),
        ]
    return "\n".join(out)


# --- limits and reserved words ------------------------------------------------------------


def limits_table() -> str:
    from toolkiln import Limits

    rows = ["| Field | Default | What it bounds |", "| --- | --- | --- |"]
    for field in dataclasses.fields(Limits):
        description = LIMIT_DESCRIPTIONS.get(field.name)
        if description is None:
            log.warning("docs/hooks.py: Limits.%s has no description in LIMIT_DESCRIPTIONS", field.name)
            description = ""
        default = field.default
        shown = f"{default:_}" if isinstance(default, int) else repr(default)
        rows.append(f"| `{field.name}` | `{shown}` | {description} |")
    return "\n".join(rows)


def reserved_words() -> str:
    from toolkiln.syntax.json_front import RESERVED

    return ", ".join(f"`{word}`" for word in sorted(RESERVED))


# --- workflow templates ------------------------------------------------------------------

# The gallery shows the tested output: the golden files of tests/unit/templates/test_templates_golden.py.
GOLDEN_TEMPLATES = Path(__file__).resolve().parents[1] / "tests" / "golden" / "templates"


def template_types() -> str:
    from toolkiln.templates import TYPES

    rows = ["| Type | A value is |", "| --- | --- |"]
    rows += [f"| `{t.name}` | {_escape(t.shape)} |" for t in TYPES.values()]
    return "\n".join(rows)


def template_gallery() -> str:
    from toolkiln import templates

    out: list[str] = []
    for template in templates.list():
        rows = ["| Parameter | Type | Default | Description |", "| --- | --- | --- | --- |"]
        for p in template.parameters:
            default = "*required*" if p.required else f"`{json.dumps(p.default, ensure_ascii=False)}`"
            rows.append(f"| `{p.name}` | `{p.type.name}` | {default} | {_escape(p.description)} |")
        golden = GOLDEN_TEMPLATES / f"{template.slug}.json"
        if not golden.is_file():
            log.warning("docs/hooks.py: template %s has no golden file %s", template.slug, golden)
            continue
        out += [
            f"### {template.title}",
            "",
            f"`{template.slug}`: {_escape(template.description)}",
            "",
            *rows,
            "",
            f"`toolkiln templates render {template.slug}` renders this DSL:",
            "",
            "```text",
            template.dsl.strip(),
            "```",
            "",
            "to this n8n workflow (with the defaults; a required parameter gets the example of its description):",
            "",
            "```json",
            golden.read_text(encoding="utf-8").strip(),
            "```",
            "",
        ]
    return "\n".join(out)


GENERATORS = {
    "builtins": builtins_table,
    "error-codes": error_codes,
    "limits": limits_table,
    "reserved": reserved_words,
    "template-types": template_types,
    "templates": template_gallery,
}
DOCS = Path(__file__).resolve().parent
_REGION = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def render_regions(markdown: str) -> str:
    """`markdown` with every generated region holding what the code makes of it now."""

    def fresh(match: re.Match[str]) -> str:
        generate = GENERATORS.get(match.group(2))
        if generate is None:
            log.warning("docs/hooks.py: unknown generated region %r", match.group(2))
            return match.group(0)
        return f"{match.group(1)}\n{generate()}\n\n{match.group(4)}"

    return _REGION.sub(fresh, markdown)


def stale_pages() -> list[Path]:
    """The docs pages whose generated regions differ from what the code makes now."""
    pages = sorted(DOCS.glob("*.md"))
    return [page for page in pages if render_regions(text := page.read_text(encoding="utf-8")) != text]


def on_page_markdown(markdown: str, page, config, files) -> str:
    rendered = render_regions(markdown)
    if rendered != markdown:
        log.warning("docs/hooks.py: %s is stale: run `PYTHONPATH=src python docs/hooks.py`", page.file.src_path)
    return rendered


def main() -> None:
    for page in stale_pages():
        page.write_text(render_regions(page.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"rewrote {page.relative_to(DOCS.parent)}")


if __name__ == "__main__":
    main()
