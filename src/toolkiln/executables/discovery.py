"""Finding executable tools in their folders, without running any of them.

Two folders: the user's own, `$TOOLKILN_HOME/tools` (trusted: the user put the files there),
and the project's, `./toolkiln-tools` (each file trusted only as `toolkiln trust` recorded it).
A tool's name is its file's name without the extension; a project tool overrides a global one
of the same name. A model sees `custom_tool_<name>`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.files import read_program, tool_files
from toolkiln.executables.trust import FileTrust, TrustStore
from toolkiln.syntax.words import TOOL_NAME

GLOBAL_SUBFOLDER = "tools"
PROJECT_FOLDER = "toolkiln-tools"
MODEL_PREFIX = "custom_tool_"
Scope = Literal["global", "project"]
NAME_RULE = f"^{TOOL_NAME.pattern}$"  # the registry's tool names: an executable can be registered


def toolkiln_home() -> Path:
    """$TOOLKILN_HOME, else ~/.toolkiln: the user's folder, never one inside a project (the
    trust file and the global tools live there)."""
    home = os.environ.get("TOOLKILN_HOME")
    return Path(home) if home else Path.home() / ".toolkiln"


def model_name(name: str) -> str:
    """The name a model sees for the executable tool `name`."""
    return MODEL_PREFIX + name


@dataclass(frozen=True)
class ToolFolders:
    """Where executables are looked for; either may be None (not searched)."""

    global_folder: Path | None
    project_folder: Path | None

    @classmethod
    def default(cls, *, home: Path | None = None, project: Path | None = None) -> ToolFolders:
        """`<home>/tools` and `<project>/toolkiln-tools` (home: `toolkiln_home()`; project: the
        current folder)."""
        return cls((home or toolkiln_home()) / GLOBAL_SUBFOLDER, (project or Path.cwd()) / PROJECT_FOLDER)


@dataclass(frozen=True)
class FoundExecutable:
    """An executable file as it was read: its bytes are what will run, its trust is as the
    trust store said when it was read."""

    name: str
    path: Path
    scope: Scope
    sha256: str
    trust: FileTrust
    content: bytes = field(repr=False)
    overrides: Path | None = None  # the global file of the same name that this one hides


@dataclass(frozen=True)
class Discovery:
    found: tuple[FoundExecutable, ...]  # one per name, sorted by name
    skipped: tuple[tuple[Path, str], ...]  # files that cannot be tools, and why


def discover(folders: ToolFolders, store: TrustStore) -> Discovery:
    """Every executable in `folders`, with its trust; nothing is executed."""
    by_name: dict[str, FoundExecutable] = {}
    skipped: list[tuple[Path, str]] = []
    searched: tuple[tuple[Scope, Path | None], ...] = (
        ("global", folders.global_folder),
        ("project", folders.project_folder),
    )
    for scope, folder in searched:
        if folder is None:
            continue
        named: dict[str, list[Path]] = {}
        for path in tool_files(folder):
            named.setdefault(path.name.split(".", 1)[0], []).append(path)
        for name, paths in named.items():
            if not TOOL_NAME.fullmatch(name):
                skipped += [(path, f"`{name}` is not a tool name ({NAME_RULE})") for path in paths]
            elif len(paths) > 1:
                skipped += [(path, f"{len(paths)} files are named `{name}`: rename all but one") for path in paths]
            else:
                try:
                    content, sha256 = read_program(paths[0], follow_link=True)
                except ExecutableError as error:
                    skipped.append((paths[0], error.message))
                    continue
                trust: FileTrust = "trusted" if scope == "global" else store.status(folder, paths[0].name, sha256)
                hidden = by_name.get(name)
                by_name[name] = FoundExecutable(
                    name, paths[0], scope, sha256, trust, content, hidden.path if hidden else None
                )
    return Discovery(tuple(by_name[name] for name in sorted(by_name)), tuple(skipped))
