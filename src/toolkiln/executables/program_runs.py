"""Running a registered script or executable tool: refuse what may not run, check the
arguments against the tool's schema, then run the program in its sandbox.

Arguments reach the program only as JSON on stdin and as `TK_ARG_<NAME>` environment
variables holding each one's JSON; never as program text or a command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.executables.channel import Serve
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.files import read_program
from toolkiln.executables.ownpilot_js import NETWORK_ENV, SECRETS_ENV, SEEDED_ENV, js_modules
from toolkiln.executables.program_tools import SHEBANGS, ProgramSpec
from toolkiln.executables.protocol import argument_env, checked_arguments
from toolkiln.executables.result import RunResult
from toolkiln.executables.runner import run_program


def run_program_tool(
    spec: ProgramSpec,
    arguments: Any,
    *,
    created_by: str,
    allowed_folders: tuple[Path, ...] | None = None,
    secrets: Mapping[str, str] | None = None,
    serve: Serve | None = None,
    seeded: bool = False,
) -> RunResult:
    """One run of `spec` with `arguments` (a JSON object). R0610 for a denied tool, R0612 for a
    model's tool outside the sandbox, R0609 for an executable whose file changed or cannot be
    read (inside `allowed_folders` when given: see `files.read_program`), R0603 for arguments
    the schema refuses, R0614 for a file that is no program, R0601 when bubblewrap is missing;
    nothing runs then. `secrets`: the values of the secrets `spec` declares, given to the
    program as environment variables of their names (after the arguments': they win),
    TOOLKILN_SECRETS their names and TOOLKILN_NETWORK whether the run has the network ("1"
    or "0"). A javascript script finds toolkiln's `utils` beside it (ownpilot_js.py), and has
    a channel to its caller when `serve` is given (channel.py: `utils.callTool`; `seeded`:
    its `utils.uuid` and `utils.randomInt` ask the caller's random source)."""
    if spec.permission == "deny":
        raise ExecutableError(
            codes.PROGRAM_DENIED,
            f"`{spec.name}` has policy deny; it never runs",
            'update its policy to "allow" to run it',
        )
    if spec.sandbox == "none" and created_by != "user":
        raise ExecutableError(
            codes.UNSANDBOXED_MODEL_TOOL,
            f'`{spec.name}` was made by a model and asks for sandbox "none"; it was not run',
            "a model's tools run in bubblewrap only; leave `sandbox` out",
        )
    stdin = checked_arguments(spec.name, spec.parameters, arguments, path=spec.path)
    content, command = program_of(spec, allowed_folders)
    # What a javascript tool's `utils` reads: whether fetch may work, which secrets getApiKey reads.
    env = {**argument_env(arguments), **(secrets or {}), NETWORK_ENV: "1" if spec.network else "0"}
    env[SECRETS_ENV] = ",".join(spec.secrets)
    javascript = spec.runtime == "javascript"
    if javascript and serve is not None:
        env[SEEDED_ENV] = "1" if seeded else "0"
    return run_program(
        spec.name,
        content,
        command,
        stdin=stdin,
        extra_env=env,
        policy=spec.sandbox_policy(),
        beside=js_modules() if javascript else None,
        serve=serve if javascript else None,
    )


def program_of(spec: ProgramSpec, allowed_folders: tuple[Path, ...] | None = None) -> tuple[bytes, list[str]]:
    """The bytes to run and their arguments: a script's interpreter line and body; an
    executable's file, read now and run only if it is still the pinned one (`run`, per the
    executable protocol)."""
    if spec.body is not None:  # a script (parse_program requires a runtime with it)
        assert spec.runtime is not None
        return (SHEBANGS[spec.runtime] + spec.body).encode("utf-8", errors="surrogatepass"), []
    assert spec.path is not None and spec.sha256 is not None
    try:
        content, sha256 = read_program(Path(spec.path), allowed_folders=allowed_folders)
    except ExecutableError as error:
        raise _changed(spec, f"its file cannot be read ({error.message})") from None
    if sha256 != spec.sha256:
        raise _changed(
            spec, f"{spec.path} changed since it was pinned (SHA-256 {spec.sha256[:12]}..., now {sha256[:12]}...)"
        )
    return content, ["run"]


def _changed(spec: ProgramSpec, why: str) -> ExecutableError:
    return ExecutableError(
        codes.EXECUTABLE_CHANGED,
        f"`{spec.name}`: {why}; it was not run",
        f"read the file; to run it: toolkiln tools repin {spec.name}, then toolkiln tools approve {spec.name}",
        path=spec.path,
    )
