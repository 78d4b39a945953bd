"""The templates shipped with toolkiln: the `starters/*.wf` files of this package.

They are package data, found through importlib.resources in a wheel and in an editable
install alike, and parsed once per process.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from functools import cache
from importlib import resources

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.templates.source import Template, parse_template

SUFFIX = ".wf"


@cache
def shipped() -> dict[str, Template]:
    """Slug -> template, sorted by slug."""
    folder = resources.files("toolkiln.templates") / "starters"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(SUFFIX)), key=lambda f: f.name)
    return {
        f.name[: -len(SUFFIX)]: parse_template(f.name[: -len(SUFFIX)], f.read_text(encoding="utf-8")) for f in files
    }


def get(slug: str) -> Template:
    """The template with this slug; raises CompileError (E0801) if there is none."""
    templates = shipped()
    if slug in templates:
        return templates[slug]
    close = difflib.get_close_matches(slug, list(templates), n=1)
    hint = f"did you mean `{close[0]}`?" if close else f"the templates: {', '.join(templates)}"
    diagnostic = Diagnostic.of(codes.UNKNOWN_TEMPLATE, f"no template named `{slug}`", None, hint)
    raise CompileError([replace(diagnostic, file=f"template {slug}")])
