"""`toolkiln tools ...`: the registry from the command line.

    toolkiln tools list [--status S] [--created-by user|llm] [--json]
    toolkiln tools show NAME [--json]
    toolkiln tools create FILE [--created-by user|llm]      (.tk, .json, or a script's .skill)
    toolkiln tools update NAME (FILE | --description TEXT) [--by user|llm]
    toolkiln tools delete NAME [--by user|llm] [--force]
    toolkiln tools enable|disable|approve|reject NAME [--by user|llm]
    toolkiln tools history NAME [--json]
    toolkiln tools rollback NAME VERSION [--by user|llm]
    toolkiln tools run NAME [--args JSON] [--tables FILE]   (every kind; says what ran it)
    toolkiln tools discover [--register] / repin NAME       (executables: see cli/programs.py)
    toolkiln tools import --from kitz DIR                    (another system's tools: cli/peers.py)
    toolkiln tools export --format openai|anthropic|mcp|gemini [--meta] [--output FILE]
    toolkiln tools check

Every command takes `--registry DIR` (default: $TOOLKILN_HOME, else ./.toolkiln). Exit codes
as for the other commands: 0 ok, 1 an error (diagnostics, a registry or run error), 2 usage.
The registry is imported when a `tools` command runs, not when the parser is built.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError, arguments_json, decimals_option, write_atomically
from toolkiln.cli.peers import add_peer_commands
from toolkiln.cli.programs import add_program_commands, print_run_result
from toolkiln.errors import CompileError, Error, RunError
from toolkiln.registry.formats import FORMATS
from toolkiln.registry.postgres.urls import is_database_url

if TYPE_CHECKING:
    from toolkiln.registry.capabilities import Capabilities
    from toolkiln.registry.models import ToolRecord
    from toolkiln.registry.outcome import Outcome
    from toolkiln.registry.registry import Registry

DEFAULT_REGISTRY = ".toolkiln"
ACTORS = ("user", "llm")
STATUSES = ("active", "disabled", "pending_approval", "rejected")


def registry_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`--registry DIR|URL`, read by `open_registry` (SUPPRESS: also accepted after a subcommand)."""
    where = "the registry: a folder, or a postgresql:// URL (default: $TOOLKILN_HOME, else ./.toolkiln)"
    parser.add_argument("--registry", metavar="DIR|URL", type=registry_location, default=argparse.SUPPRESS, help=where)
    return parser


def registry_location(text: str) -> Path | str:
    """A registry folder's path, or a database URL kept as text (a Path would fold its `//`)."""
    return text if is_database_url(text) else Path(text)


# Every subcommand of `tools`, in the order its help lists them (a test compares this with the
# parser built whole).
TOOLS_COMMANDS = (
    *("list", "show", "create", "update", "delete", "enable", "disable", "approve", "reject", "deploy"),
    *("history", "rollback", "run", "export", "check", "discover", "repin", "import"),
)


class _Unbuilt(argparse.ArgumentParser):
    """The parser of a subcommand the command line does not name: never built, never used, so
    its arguments go nowhere (18 parsers and their 70 arguments cost `tools run` 14 M
    instructions, half of it gettext looking up argparse's messages)."""

    def __init__(self) -> None:  # (nothing of ArgumentParser's: it is never parsed with)
        pass

    def add_argument(self, *args: Any, **kwargs: Any) -> Any:
        return None


def asked_subcommand(words: Sequence[str]) -> str | None:
    """The subcommand `words` (the command line after `tools`) names, when nothing but
    `--registry DIR` (or `--registry=DIR`, or its abbreviation) comes before it; None for
    anything else (`--help`, an unknown word or option): then every subcommand is built, so
    that help and errors list them all."""
    rest = list(words)
    while rest and rest[0].startswith("--") and len(rest[0].split("=")[0]) > 2:
        if not "--registry".startswith(rest[0].split("=")[0]):
            return None
        if "=" in rest[0]:
            rest = rest[1:]
        elif len(rest) > 1 and not rest[1].startswith("-"):
            rest = rest[2:]
        else:
            return None
    return rest[0] if rest and rest[0] in TOOLS_COMMANDS else None


def add_tools_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], words: Sequence[str] = ()
) -> argparse.ArgumentParser:
    """Add `tools` and its subcommands to the `toolkiln` parser's subparsers: only the one
    `words` (the command line after `tools`) names, when it names one (its help, usage and
    errors are the same either way), else all of them."""
    only = asked_subcommand(words)
    common = registry_option(argparse.ArgumentParser(add_help=False))
    tools = subparsers.add_parser(
        "tools",
        help="manage the tool registry",
        parents=[common],
        description="Create, change, run and export registered tools.",
    )
    commands = tools.add_subparsers(dest="tools_command", required=True, metavar="TOOLS_COMMAND")

    def command(name: str, handler: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:  # noqa: A002
        if only is not None and name != only:
            return _Unbuilt()
        parser = commands.add_parser(name, help=help, parents=[common], description=help)
        parser.set_defaults(handler=_guarded(handler))
        return parser

    listing = command("list", cmd_list, "list the tools")
    listing.add_argument("--status", choices=STATUSES)
    listing.add_argument("--created-by", choices=ACTORS)
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")

    show = command("show", cmd_show, "show one tool: its record and definition")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")

    create = command(
        "create",
        cmd_create,
        "check a definition file (.tk, .json, a script's .skill or RustyClaw's .yaml) and register it",
    )
    create.add_argument("file", type=Path)
    create.add_argument("--created-by", choices=ACTORS, default="user")

    update = command("update", cmd_update, "change a tool: a new definition file, or a new description")
    update.add_argument("name")
    update.add_argument("file", type=Path, nargs="?")
    update.add_argument("--description", help="change only the description (no new version)")
    update.add_argument("--by", choices=ACTORS, default="user")

    for name, verb in (
        ("delete", "delete a tool and its past versions"),
        ("enable", "enable a disabled tool"),
        ("disable", "disable an active tool"),
        ("approve", "approve a tool waiting for approval"),
        ("reject", "reject a tool waiting for approval"),
    ):
        action = command(name, cmd_action, verb)
        action.add_argument("name")
        action.add_argument("--by", choices=ACTORS, default="user")
        if name == "delete":
            action.add_argument(
                "--force",
                action="store_true",
                help="delete even if other tools call it (they then fail when they call it), "
                "or its n8n workflow cannot be removed",
            )

    deploy = command("deploy", cmd_deploy, "deploy an active workflow tool to n8n again")
    deploy.add_argument("name")

    history = command("history", cmd_history, "list the versions of a tool")
    history.add_argument("name")
    history.add_argument("--json", action="store_true")

    rollback = command("rollback", cmd_rollback, "make a past version current again (as a new version)")
    rollback.add_argument("name")
    rollback.add_argument("version", type=int)
    rollback.add_argument("--by", choices=ACTORS, default="user")

    run = command("run", cmd_run, "run an active tool")
    run.add_argument("name")
    run.add_argument("--args", default="{}", help="the arguments as a JSON object")
    decimals_option(run)
    run.add_argument(
        "--now", metavar="DATETIME", help="what today() and now() read, as 2026-01-31T09:30:00Z (default: the clock)"
    )
    run.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed of what uuid(), random() and random_int() draw (default: the system's)",
    )
    run.add_argument(
        "--tables",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a JSON or CSV table file, added to the registry's tables (repeatable)",
    )

    export = command("export", cmd_export, "print the active tools' definitions for a tool-calling API")
    export.add_argument("--format", choices=FORMATS, required=True)
    export.add_argument("--meta", action="store_true", help="include the meta-tools (create_compute_tool, ...)")
    export.add_argument("--output", "-o", type=Path, help="write to FILE instead of standard output")

    command("check", cmd_check, "report the files (tools and past versions) that cannot be loaded (exit 1 if any)")
    add_program_commands(command, ACTORS, open_registry)
    add_peer_commands(command, ACTORS, open_registry)
    return tools


# --- plumbing ---------------------------------------------------------------------------------


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Registry, compile and run errors are printed for people (exit 1), never as tracebacks."""

    def run(args: argparse.Namespace) -> int:
        from toolkiln.diagnostics.render import render_text
        from toolkiln.registry.errors import RegistryError

        try:
            return handler(args)
        except CompileError as error:
            for diagnostic in error.diagnostics:
                print(render_text(diagnostic) + "\n", file=sys.stderr)
            return EXIT_FAILED
        except RunError as error:
            print(_render_problem(error.code, error.message, error.hint), file=sys.stderr)
            return EXIT_FAILED
        except RegistryError as error:
            print(_render_problem(error.code, error.message, error.hint), file=sys.stderr)
            for diagnostic in getattr(error, "diagnostics", []):
                print(render_text(diagnostic), file=sys.stderr)
            return EXIT_FAILED
        except Error as error:
            print(f"toolkiln: error: {error}", file=sys.stderr)
            return EXIT_FAILED

    return run


def _render_failure(outcome: Outcome, definition: dict[str, Any] | None) -> str:
    """A failed run of a registered tool, from its Outcome: each error that has a place, with
    the expression it stopped in and a caret (the location counts inside that expression of
    the stored definition); the others as a code, a message and a hint."""
    from toolkiln.diagnostics.model import Diagnostic
    from toolkiln.diagnostics.render import render_text
    from toolkiln.syntax.loader import parse_source

    source = parse_source(definition, "definition").source if definition is not None else None
    shown = []
    for error in outcome.errors:
        if source is not None and error.line is not None:
            shown.append(render_text(Diagnostic.from_details(error).located(source)))
        else:
            shown.append(_render_problem(error.code, error.message, error.hint))
    return "\n\n".join(shown)


def _render_problem(code: str, message: str, hint: str | None) -> str:
    return f"error[{code}]: {message}" + (f"\n  = hint: {hint}" if hint else "")


def registry_where(args: argparse.Namespace) -> Path | str:
    """--registry, else $TOOLKILN_HOME, else ./.toolkiln: a folder, or a database URL."""
    given: Path | str | None = getattr(args, "registry", None)  # (parsed by registry_location)
    if given is not None:
        return given
    home = os.environ.get("TOOLKILN_HOME")
    return registry_location(home) if home else Path(DEFAULT_REGISTRY)


def open_registry(args: argparse.Namespace, capabilities: Capabilities | None = None) -> Registry:
    """The registry of --registry, with `capabilities` (default: the local user's, all)."""
    from toolkiln.registry.capabilities import LOCAL
    from toolkiln.registry.registry import Registry

    where = registry_where(args)
    try:
        if isinstance(where, Path) and where.exists() and not where.is_dir():
            raise UsageError(f"--registry {where} is not a folder")
    except OSError as error:  # a name too long, a loop of links
        raise UsageError(f"--registry cannot be opened: {error.strerror or error}") from None
    return Registry(where, capabilities=capabilities or LOCAL)


def _warn_problems(reg: Registry) -> None:
    problems = reg.problems
    if problems:
        print(
            f"warning: {len(problems)} file(s) in {reg.path} cannot be loaded and were skipped; "
            "see `toolkiln tools check`",
            file=sys.stderr,
        )


def _print_json(data: Any) -> None:
    from toolkiln.semantics.values import to_json

    print(to_json(data, indent=2))


def record_json(record: ToolRecord, trusted_here: bool | None = None) -> dict[str, Any]:
    """A record as JSON data; `trusted_here` (when given): whether this registry wrote it here."""
    from toolkiln.registry.json_values import iso

    data = record.model_dump()
    for key in ("created_at", "updated_at", "last_used_at"):
        data[key] = iso(getattr(record, key))
    if trusted_here is not None:
        data["trusted_here"] = trusted_here
    return data


def _when(record_time: Any) -> str:
    return "never" if record_time is None else record_time.strftime("%Y-%m-%d %H:%M:%S UTC")


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(line.rstrip() for line in lines)


# --- commands ---------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        records = reg.list(status=args.status, created_by=args.created_by)
        untrusted = reg.untrusted()
        if args.json:
            _print_json([record_json(r, r.name not in untrusted) for r in records])
        elif not records:
            print(f"no tools in {reg.path}" + (" with these filters" if args.status or args.created_by else ""))
        else:
            rows = [["NAME", "KIND", "STATUS", "VERSION", "BY", "RISK", "RUNS", "DESCRIPTION"]]
            for r in records:
                description = r.description if len(r.description) <= 50 else r.description[:47] + "..."
                rows.append(
                    [
                        r.name,
                        r.kind,
                        r.status + ("*" if r.name in untrusted else ""),
                        str(r.version),
                        r.created_by,
                        r.risk_level,
                        str(r.usage_count),
                        description,
                    ]
                )
            print(_table(rows))
            if untrusted & {r.name for r in records}:
                print(
                    "* not trusted here (cloned, copied or edited by hand): what its file claims is not "
                    f"believed, and its program or workflow does not run; see `toolkiln trust {reg.path} --list`"
                )
        _warn_problems(reg)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        record = reg.get(args.name)
        trusted = reg.trusted_here(args.name)
    if args.json:
        _print_json(record_json(record, trusted))
        return EXIT_OK
    lines = [
        f"{record.name}  (version {record.version}, {record.status}"
        + ("" if trusted else f"; not trusted here: toolkiln trust {reg.path} --tool {record.name}")
        + ")",
        f"  {record.description}",
        f"  created by {record.created_by} {_when(record.created_at)}; updated {_when(record.updated_at)}",
        f"  risk {record.risk_level}; runs {record.usage_count}; last used {_when(record.last_used_at)}",
        "",
        _definition_text(record),
    ]
    print("\n".join(lines))
    return EXIT_OK


def _definition_text(record: ToolRecord) -> str:
    """The definition as its kind shows it: a compute tool in the text DSL, a workflow tool as
    its parameters, deployment and workflow, a program as its settings and body or file."""
    from toolkiln.registry.kinds import kind_of

    return kind_of(record.kind).text(record)


def cmd_deploy(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        record = reg.deploy(args.name)
    assert record.deployment is not None
    print(f"deployed {record.name} (version {record.version}) as n8n workflow {record.deployment.workflow_id}")
    return EXIT_OK


def cmd_create(args: argparse.Namespace) -> int:
    with open_registry(args) as reg, _located_in(args.file):  # a Path (a .skill file too)
        record = reg.create(args.file, created_by=args.created_by)
    print(f"created {record.name} (version {record.version}, {record.status})")
    return EXIT_OK


@contextmanager
def _located_in(file: Path | None) -> Iterator[None]:
    """A definition file's diagnostics at the file and line, as `toolkiln check` shows them
    (the registry reads a JSON definition as data, and knows a field's path, not its line)."""
    try:
        yield
    except CompileError as error:
        if file is None:
            raise
        from toolkiln.cli.definition_files import located_in_file

        raise CompileError(located_in_file(error.diagnostics, file)) from None


def cmd_update(args: argparse.Namespace) -> int:
    if (args.file is None) == (args.description is None):
        raise UsageError("give a definition FILE or --description TEXT (one of them)")
    changes: Any = {"description": args.description} if args.file is None else {"definition": args.file}
    with open_registry(args) as reg, _located_in(args.file):
        before = reg.get(args.name)
        record = reg.update(args.name, changes, by=args.by)
    if record.version == before.version and record.updated_at == before.updated_at:
        print(f"{record.name} unchanged (version {record.version})")
    else:
        print(f"updated {record.name} (version {record.version}, {record.status})")
    return EXIT_OK


def cmd_action(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        action = args.tools_command
        if action == "delete":
            reg.delete(args.name, by=args.by, force=args.force)
            print(f"deleted {args.name}")
            return EXIT_OK
        acts = {"enable": reg.enable, "disable": reg.disable, "approve": reg.approve, "reject": reg.reject}
        record = acts[action](args.name, by=args.by)  # (the parser offers these four and delete)
    print(f"{record.name} is {record.status}")
    return EXIT_OK


# What made a version, as the audit says (a version changed in place keeps its first word).
_VERSION_CHANGES = ("rollback", "create", "update")


def cmd_history(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        versions = reg.history(args.name)
        changes = {(e.new_version, e.action) for e in reg.audit_log(args.name)}
        broken = [p.file for p in reg.problems if p.file.startswith(f"versions{os.sep}{args.name}{os.sep}")]
    if broken:
        print(
            f"warning: {len(broken)} past version file(s) of {args.name} cannot be loaded and are left out: "
            f"{', '.join(broken)}; see `toolkiln tools check`",
            file=sys.stderr,
        )
    if args.json:
        _print_json([record_json(v) for v in versions])
        return EXIT_OK
    rows = [["VERSION", "SAVED", "CHANGE", "STATUS", "DESCRIPTION"]]
    for v in versions:
        current = " (current)" if v is versions[-1] else ""
        change = next((action for action in _VERSION_CHANGES if (v.version, action) in changes), "-")
        rows.append(
            [
                f"{v.version}{current}",
                _when(v.updated_at),
                change,
                v.status,
                v.description if len(v.description) <= 50 else v.description[:47] + "...",
            ]
        )
    print(_table(rows))
    return EXIT_OK


def cmd_rollback(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        record = reg.rollback(args.name, args.version, by=args.by)
    print(f"rolled {record.name} back to version {args.version}: now version {record.version} ({record.status})")
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from toolkiln.io.tables import load_table_file
    from toolkiln.semantics.chance import as_source, drawing_from
    from toolkiln.semantics.dates import clock_at

    arguments = arguments_json(args.args)
    tables: dict[str, Any] = {}
    for table_file in args.tables:
        tables.update(load_table_file(table_file))
    if not tables:
        quick = _run_in_folder(args, arguments)
        if quick is not None:
            return quick
    with open_registry(args) as reg, drawing_from(as_source(args.seed)):  # (the run's thread: this one)
        clock = None if args.now is None else clock_at(args.now)
        outcome = reg.invoke(args.name, arguments, principal="user", tables=tables or None, clock=clock)
        if not outcome.ok:
            definition = reg.get(args.name).definition if outcome.version is not None else None
            print(_render_failure(outcome, definition), file=sys.stderr)
            return EXIT_FAILED
        result, kind = outcome.result, reg.get(args.name).kind
        reg.close()  # counting never fails the run: a count not written is a problem on usage.json
        for problem in reg.problems:
            if Path(problem.file).name == "usage.json":
                print(f"warning: {problem.diagnostics[0].message}", file=sys.stderr)
    print_run_result(result, kind, args.decimals)
    return EXIT_OK


def _run_in_folder(args: argparse.Namespace, arguments: Any) -> int | None:
    """`tools run` of a compute tool of a registry folder, reading only its file
    (registry/folder_run.py); None when that declines: the registry is opened as ever."""
    from toolkiln.registry.folder_run import run_in_folder
    from toolkiln.semantics.chance import as_source, drawing_from
    from toolkiln.semantics.dates import clock_at

    where = registry_where(args)
    if not isinstance(where, Path):
        return None
    with drawing_from(as_source(args.seed)):  # (the run's thread: this one)
        clock = None if args.now is None else clock_at(args.now)
        done = run_in_folder(where, args.name, arguments, clock=clock)
    if done is None:
        return None
    if not done.outcome.ok:
        print(_render_failure(done.outcome, done.definition), file=sys.stderr)
        return EXIT_FAILED
    if done.count_not_written is not None:
        print(f"warning: {done.count_not_written}", file=sys.stderr)
    print_run_result(done.outcome.result, done.kind.name, args.decimals)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        exported = reg.export(args.format)
        definitions = (reg.meta_definitions(args.format) if args.meta else []) + exported.definitions
    for issue in exported.skipped:
        print(f"warning: {issue.tool} left out of the {args.format} export: {issue.message}", file=sys.stderr)
    text = json.dumps(definitions, indent=2, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            write_atomically(args.output, text)
        except OSError as error:
            raise UsageError(f"cannot write {args.output}: {error.strerror or error}") from None
        print(f"wrote {len(definitions)} tool definition(s) to {args.output}", file=sys.stderr)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from toolkiln.diagnostics.render import render_text

    with open_registry(args) as reg:
        for record in reg.list():
            reg.history(record.name)  # reads every past version, so broken ones are reported too
        problems = reg.problems
        count = len(reg)
    for problem in problems:
        for diagnostic in problem.diagnostics:
            print(render_text(diagnostic) + "\n")
    print(f"{count} tool(s) loaded; {len(problems)} file(s) with problems")
    return EXIT_FAILED if problems else EXIT_OK
