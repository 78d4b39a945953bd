"""What the operator grants: the powers a tool may use beyond its budgets.

    Capabilities(network=True, executable_folders=(Path("/opt/tools"),))

A definition never grants itself anything: `"sandbox": "none"`, `"network": true` and an
executable's `path` are requests, checked against the registry's capabilities when a tool is
created, changed or approved, and again when it runs (a registry opened with fewer
capabilities than the one that saved a tool refuses to run it). The CLI and the Python API
act as the local user and have every capability (`LOCAL`); `toolkiln serve` and
`toolkiln mcp --http` start with none (`NONE`) unless the operator passes `--allow`.

Workflow tools deploy to the registry's own n8n only; a definition may not name another.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.registry.errors import CapabilityNotGranted, NeedsAdminPerson

if TYPE_CHECKING:
    from toolkiln.executables.program_tools import ProgramSpec
    from toolkiln.registry.principals import Principal

# The words of `--allow` (and of docs/security.md): what each grants.
GRANTS = {
    "unsandboxed": "run script and executable tools that ask for sandbox none as plain processes",
    "network": "give script and executable tools that ask for it the network",
    "executables=DIR": "run executable tools whose file is inside DIR (may be given more than once)",
}


@dataclass(frozen=True)
class Capabilities:
    unsandboxed: bool = False
    network: bool = False
    # Folders executable tools' files must be inside; None: anywhere (the local user).
    executable_folders: tuple[Path, ...] | None = ()

    @classmethod
    def parse(cls, grants: list[str]) -> Capabilities:
        """The capabilities of `--allow` words: "unsandboxed", "network", "executables=DIR".
        ValueError (with the word) for anything else."""
        unsandboxed = network = False
        folders: list[Path] = []
        for grant in grants:
            word, _, value = grant.partition("=")
            if grant == "unsandboxed":
                unsandboxed = True
            elif grant == "network":
                network = True
            elif word == "executables" and value and os.path.isabs(value):
                folders.append(Path(os.path.realpath(value)))
            else:
                raise ValueError(f"unknown capability {grant!r}; one of {', '.join(GRANTS)} (DIR absolute)")
        return cls(unsandboxed, network, tuple(folders))

    def words(self) -> list[str]:
        """What is granted, as `--allow` words (for the start-up line and the audit)."""
        granted = (["unsandboxed"] if self.unsandboxed else []) + (["network"] if self.network else [])
        if self.executable_folders is None:
            return [*granted, "executables anywhere"]
        return granted + [f"executables={folder}" for folder in self.executable_folders]

    def missing_for(self, spec: ProgramSpec) -> str | None:
        """What `spec` needs that is not granted (a sentence), or None."""
        if spec.sandbox == "none" and not self.unsandboxed:
            return f'`{spec.name}` asks for sandbox "none"; this server does not run tools unsandboxed'
        if spec.network and not self.network:
            return f"`{spec.name}` asks for the network; this server does not give tools the network"
        if spec.path is not None and not self.allows_executable(spec.path):
            return f"`{spec.name}`'s file is not inside a folder this server runs executables from"
        return None

    def allows_executable(self, path: str) -> bool:
        if self.executable_folders is None:
            return True
        real = Path(os.path.realpath(path))
        return any(real.is_relative_to(folder) for folder in self.executable_folders)


LOCAL = Capabilities(unsandboxed=True, network=True, executable_folders=None)
NONE = Capabilities()


def uses_capability(spec: ProgramSpec) -> bool:
    """Whether running `spec` needs more than the sandbox with no network."""
    return spec.sandbox == "none" or spec.network or spec.path is not None  # (a file from a granted folder)


def refuse_ungranted(spec: ProgramSpec, capabilities: Capabilities) -> None:
    """CapabilityNotGranted (R0700) when `spec` needs what `capabilities` lacks."""
    missing = capabilities.missing_for(spec)
    if missing is not None:
        raise CapabilityNotGranted(
            missing, hint="the operator grants this when starting the server (`--allow`); see docs/security.md"
        )


def refuse_ungranted_executable(name: str) -> None:
    """CapabilityNotGranted (R0700) for an executable tool where no folder is granted."""
    raise CapabilityNotGranted(
        f"`{name[:64]}` is an executable tool; this server runs executables from no folder",
        hint="the operator grants a folder when starting the server (`--allow executables=DIR`)",
    )


def refuse_unless_admin_person(spec: ProgramSpec, principal: Principal, action: str) -> None:
    """Only an admin person may create, change or approve a tool that uses a capability (R0701);
    a model may propose one that waits for approval, except an unsandboxed one (R0612)."""
    if not uses_capability(spec) or principal.is_admin_person:
        return
    if principal.kind == "model" and action in ("create", "update") and spec.sandbox != "none":
        return  # the policy holds a model's program tools for a person's approval
    raise NeedsAdminPerson(
        f"{principal.described} cannot {action} `{spec.name}`: it needs "
        + ('sandbox "none"' if spec.sandbox == "none" else "the network" if spec.network else "an executable file"),
        hint="only a person with the admin scope may; ask one",
    )
