"""The `.skill` format of a script tool: YAML front matter between `---` lines, then the body.

    ---
    name: word_count
    description: Counts the words of a text.
    runtime: python
    parameters:
      type: object
      properties: {text: {type: string}}
      required: [text]
    timeout_secs: 5
    ---
    import json, sys
    print(len(json.load(sys.stdin)["text"].split()))

The front matter holds the fields of a script tool definition (see program_tools.py; `kind`
is `script` when absent); everything after the closing `---` is the body, byte for byte.
YAML is read with the safe loader: no tags, no objects, only data.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.executables.plain_yaml import plain_front_matter
from toolkiln.syntax.loader import read_regular_file

SKILL_SUFFIX = ".skill"
RUSTYCLAW_SUFFIX = ".yaml"  # RustyClaw writes the same format as <name>.yaml
MAX_SKILL_BYTES = 256 * 1024
SKILL_FENCE = "---"  # the first line of a .skill file, and the line that ends its front matter


def read_skill(path: Path) -> dict[str, Any]:
    """The script tool definition in the `.skill` file at `path`; CompileError (R0608, with
    the file and line) when it cannot be one."""
    try:  # non-blocking, and only a regular file: a FIFO named `x.skill` does not hang
        data = read_regular_file(path, MAX_SKILL_BYTES)
    except OSError as error:
        raise _refuse(path, f"the file cannot be read: {error.strerror or error}") from None
    if len(data) > MAX_SKILL_BYTES:
        raise _refuse(path, f"the file is larger than {MAX_SKILL_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _refuse(path, f"the file is not UTF-8 text (byte {error.start})") from None
    return parse_skill(text, str(path))


def read_rustyclaw_skill(path: Path) -> dict[str, Any]:
    """A skill file as RustyClaw writes it (`~/.rustyclaw/skills/user-created/<name>.yaml`):
    the `.skill` format, whose `sandbox: true|false` chose Docker or none. A script always runs
    in toolkiln's sandbox, so that boolean is dropped; every other field means what it did."""
    definition = read_skill(path)
    if isinstance(definition.get("sandbox"), bool):
        del definition["sandbox"]
    return definition


def parse_skill(text: str, file: str = "<skill>") -> dict[str, Any]:
    """The script tool definition in `.skill` text (see the module's docstring)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != SKILL_FENCE:
        raise _refuse(file, "a skill file starts with a `---` line (front matter, `---`, then the body)", line=1)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") == SKILL_FENCE), None)
    if end is None:
        raise _refuse(file, "the front matter has no closing `---` line", line=1)
    front = plain_front_matter("".join(lines[1:end]))  # (PyYAML's import is 106 M instructions)
    if front is None:
        front = _yaml_front_matter(file, "".join(lines[1:end]))
    if not isinstance(front, dict):
        raise _refuse(file, "the front matter must be a YAML mapping (name: ..., description: ...)", line=2)
    if "body" in front:
        raise _refuse(file, "the body follows the front matter; `body` cannot be a field of it", line=2)
    return {"kind": "script", **front, "body": "".join(lines[end + 1 :])}


def _yaml_front_matter(file: Path | str, front: str) -> Any:
    """What PyYAML's safe loader (with no aliases) reads of the front matter `front`."""
    import yaml  # type: ignore[import-untyped]  # here: the registry imports this module, few need YAML

    try:
        return yaml.load(front, Loader=_loader_without_aliases())  # a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1  # +1 for the fence, +1 from 0-based
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise _refuse(file, f"the front matter is not valid YAML: {problem}", line=line) from None


@functools.cache
def _loader_without_aliases() -> type:
    """YAML's safe loader refusing every alias (`*name`): a few lines of anchors and aliases
    expand to billions of values (a "billion laughs"), which a definition never needs."""
    import yaml

    class NoAliases(yaml.SafeLoader):  # type: ignore[misc]
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                problem = "an alias (`*name`) is not read: write the value out"
                raise yaml.composer.ComposerError(None, None, problem, mark)
            return super().compose_node(parent, index)

    return NoAliases


def _refuse(file: Path | str, message: str, *, line: int = 0) -> CompileError:
    span = Span(line=line, column=1, end_line=line, end_column=1) if line else None
    diagnostic = Diagnostic.of(codes.INVALID_PROGRAM_TOOL, message, span)
    return CompileError([replace(diagnostic, file=str(file))])
