"""A command imports only what it needs (issue 34), so that it starts in a blink: `toolkiln run`
of a compute tool loads no server, LLM client, n8n, sandbox, printer or process pool, `check`
and `fmt` of tool files nothing of workflows or n8n, and none of them imports pydantic (the
AST and the diagnostics are dataclasses), let alone builds a schema (the first one loads
pydantic's plugins through importlib.metadata and costs 20-80 ms)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SHIPPING = EXAMPLES / "shipping_cost.json"
NEVER = (
    "toolkiln.server",
    "toolkiln.llm",
    "toolkiln.n8n",
    "toolkiln.executables",
    "toolkiln.cli.serve",
    "toolkiln.workflow",
    "toolkiln.ast.workflow",
    "toolkiln.check.workflow",
    "toolkiln.backends.n8n.",  # catalogs, emit, lint (the package itself only names the default release)
    "toolkiln.backends.jsonlogic",
    "toolkiln.backends.workflow_printer",
    "toolkiln.syntax.jsonlogic",
    "toolkiln.diagnostics.fixes",
    "lark",
    "networkx",
    "importlib.metadata",  # pydantic's plugins, loaded when a first schema is built
    "pydantic",  # the AST and the Diagnostic are dataclasses (pydantic: 50-60 ms of imports)
    "annotated_types",
    "httpx",
    "jsonschema",
)
# How check and fmt tell an n8n export from a tool file (a light module: no catalog).
N8N_EXPORT_TEST = "toolkiln.backends.n8n.document"
ON_RUN_TOO = (
    "toolkiln.backends.text_printer",
    "toolkiln.backends.json_printer",
    "toolkiln.io.pool",
    "multiprocessing",
    "hashlib",  # for sha256() and md5() only
    "ctypes",  # for giving memory back after a heavy run only
    # the builtins a tool does not call (BUILTINS imports a module when a name of it is looked
    # up), and what they alone need: zones, UUIDs, CSV
    "toolkiln.semantics.word_builtins",
    "toolkiln.semantics.data_builtins",
    "toolkiln.semantics.date_builtins",
    "toolkiln.semantics.js_builtins",
    "toolkiln.semantics.js_float",
    "toolkiln.semantics.list_builtins",
    "toolkiln.semantics.random_builtins",
    "toolkiln.semantics.text_builtins",
    "zoneinfo",
    "uuid",
    "csv",
    "toolkiln.syntax.foreign",  # other languages' idioms, for the errors that name them
)

_PROBE = """
import json, sys
from toolkiln.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""
_PROBE_EXITING = """
import json, sys
from toolkiln.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:  # --help and --version exit through argparse
    assert done.code == 0, done.code
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, list[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=False, env=env)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], done.stdout, report["modules"]


def unneeded(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [name for name in modules if name.startswith(prefixes) and name != N8N_EXPORT_TEST]


def test_run_of_a_compute_tool_loads_only_the_compiler_and_the_interpreter() -> None:
    code, output, modules = loaded(["run", str(SHIPPING), "--args", '{"weight_kg": 12}'])
    assert (code, output.strip()) == (0, "31.500")
    assert [name for name in modules if name.startswith(NEVER + ON_RUN_TOO)] == []  # the n8n test too


@pytest.mark.parametrize("example", ["shipping_cost.json", "invoice_total.json", "late_fee.tk", "payment_reminder.tk"])
def test_check_and_fmt_of_a_tool_file_load_nothing_of_workflows_n8n_or_lark(example: str) -> None:
    code, output, modules = loaded(["check", str(EXAMPLES / example)])
    assert (code, output.strip()) == (0, "1 file(s) checked: 0 error(s), 0 warning(s)")
    assert unneeded(modules, NEVER) == []
    code, output, modules = loaded(["fmt", "--check", str(EXAMPLES / example)])
    assert (code, output) == (0, "")
    assert unneeded(modules, NEVER) == []


def test_fmt_of_a_json_tool_file_loads_no_checker_or_text_printer() -> None:
    code, _, modules = loaded(["fmt", "--check", str(SHIPPING)])
    assert code == 0
    assert unneeded(modules, ("toolkiln.check.", "toolkiln.backends.text_printer", "toolkiln.interpret")) == []


def test_check_of_a_tool_file_loads_neither_the_optimizer_nor_the_interpreter() -> None:
    code, _, modules = loaded(["check", str(SHIPPING)])
    assert code == 0
    assert unneeded(modules, ("toolkiln.optimize", "toolkiln.interpret", "toolkiln.tool")) == []


# What only a definition the registry compiles needs (cli/definition_files.py: a `.skill` file,
# a JSON definition with a `kind`): a compute tool's file is checked without any of it.
FOR_REGISTRY_DEFINITIONS = (
    "toolkiln.executables",
    "toolkiln.registry.definitions",
    "toolkiln.registry.kinds",
    "toolkiln.registry.admission",
    "yaml",
)


@pytest.mark.parametrize("example", ["late_fee.tk", "shipping_cost.json"])
def test_check_of_a_tool_file_loads_nothing_of_the_registry_definitions_or_executables(example: str) -> None:
    code, _, modules = loaded(["check", str(EXAMPLES / example)])
    assert code == 0
    assert unneeded(modules, FOR_REGISTRY_DEFINITIONS) == []
    code, _, modules = loaded(["check", str(EXAMPLES / "word_stats.skill")])  # (what the above would see)
    assert code == 0 and "toolkiln.executables.skill_files" in modules
    assert unneeded(modules, ("pydantic", "toolkiln.registry.models", "toolkiln.server")) == []  # records, routes


def test_check_of_the_examples_folder_loads_no_jsonschema_or_yaml() -> None:
    # (its skill file's front matter and parameters are plainly written: executables/plain_yaml.py,
    # plain_schemas.py)
    code, output, modules = loaded(["check", str(EXAMPLES)])
    assert code == 0 and output.strip().endswith("file(s) checked: 0 error(s), 0 warning(s)")
    assert "toolkiln.executables.skill_files" in modules  # (the skill file was checked)
    assert unneeded(modules, ("jsonschema", "referencing", "rpds", "pydantic", "yaml", "hashlib", "difflib")) == []


# A class whose methods `@dataclass` or `typing.NamedTuple` wrote has them compiled from source
# text as its module loads (about 0.5 M instructions a method): the records write theirs
# (ast/records.py), and what a command does not need (difflib's, the error details') is loaded
# where it is used.
_PROBE_COMPILED = """
import sys
from toolkiln.cli import main
code = main(sys.argv[1:])
compiled = sorted(
    f"{module.__name__}.{cls.__qualname__}.{name}"
    for module in list(sys.modules.values()) if module.__name__.startswith("toolkiln")
    for cls in vars(module).values() if isinstance(cls, type) and cls.__module__ == module.__name__
    for name, method in vars(cls).items() if getattr(getattr(method, "__code__", None), "co_filename", "") == "<string>"
)
print(compiled, "difflib" in sys.modules, file=sys.stderr)
"""


# run, check and fmt of a JSON tool file, check of a text one.
ON_TOOL_FILES = pytest.mark.parametrize(
    "argv",
    [
        ["run", str(SHIPPING), "--args", '{"weight_kg": 12}'],
        ["check", str(SHIPPING)],
        ["fmt", "--check", str(SHIPPING)],
        ["check", str(EXAMPLES / "late_fee.tk")],
    ],
    ids=["run", "check", "fmt", "check-text"],
)


def probed(probe: str, argv: list[str]) -> str:
    """The last line a probe printed on standard error after the command ran."""
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1]


@ON_TOOL_FILES
def test_run_check_and_fmt_load_no_class_whose_methods_were_compiled_from_text(argv: list[str]) -> None:
    assert probed(_PROBE_COMPILED, argv) == "[] False"  # nor difflib, for its "did you mean"


# Where the command compiles a regular expression (re's own cache misses), by the toolkiln module
# that asked: a pattern only some tools need (dates, number formats, the advice's) is compiled
# when first used, not as its module loads (0.5-1 M instructions each). The front ends' lexers
# (syntax/) are needed by every parse.
_PROBE_PATTERNS = """
import re, sys
compiled = []
original = re._compile
def compile_(pattern, flags):
    if (type(pattern), pattern, flags) not in re._cache:
        caller = sys._getframe(1)
        while caller.f_globals.get("__name__") == "re":
            caller = caller.f_back
        compiled.append(caller.f_globals.get("__name__", "?"))
    return original(pattern, flags)
re._compile = compile_
from toolkiln.cli import main
code = main(sys.argv[1:])
print(sorted(name for name in compiled if name.startswith("toolkiln.") and not name.startswith("toolkiln.syntax")), file=sys.stderr)
"""


@ON_TOOL_FILES
def test_a_tool_that_needs_no_pattern_compiles_none_outside_the_front_ends(argv: list[str]) -> None:
    assert probed(_PROBE_PATTERNS, argv) == "[]"


# An exit handler registered before the command runs after toolkiln's (they run last first).
_PROBE_EXIT = """
import atexit, gc, sys
from toolkiln.cli import main
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0, file=sys.stderr))
own_line = sys.argv[1] == "own"
sys.argv = ["toolkiln", *sys.argv[2:]]
code = main() if own_line else main(sys.argv[1:])
print("frozen after main:", gc.get_freeze_count() > 0, file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize("own_line", [True, False], ids=["command-line", "library-call"])
def test_a_command_of_the_process_own_line_spares_the_collection_at_exit(own_line: bool) -> None:
    """Python's last collection at exit looks at every object still alive (20 M of a 320 M
    run): `main()` reading the process's own command line freezes them after the other exit
    handlers; `main(argv)`, as a library or a test calls it, leaves the collector alone."""
    argv = ["own" if own_line else "argv", "run", str(SHIPPING), "--args", '{"weight_kg": 12}']
    done = subprocess.run([sys.executable, "-c", _PROBE_EXIT, *argv], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "31.500"), done.stderr
    assert done.stderr.splitlines() == ["frozen after main: False", f"frozen at exit: {own_line}"]


# What running a compute tool of a registry needs nothing of: the sandbox, discovery and trust
# of executables (and their jsonschema), servers, models, n8n, Lark and the database driver.
NOT_FOR_A_COMPUTE_TOOL = (
    "toolkiln.executables.sandbox",
    "toolkiln.executables.runner",
    "toolkiln.executables.trust",
    "toolkiln.executables.discovery",
    "toolkiln.executables.protocol",
    "toolkiln.executables.program_runs",
    "jsonschema",
    "toolkiln.server",
    "toolkiln.llm",
    "toolkiln.n8n",
    "toolkiln.backends.n8n.",
    "lark",
    "psycopg",
    "toolkiln.registry.postgres.store",
)


def test_tools_run_of_a_compute_tool_loads_no_sandbox_server_or_model_client(tmp_path: Path) -> None:
    registry = str(tmp_path / "registry")
    create = [sys.executable, "-m", "toolkiln", "tools", "create", str(SHIPPING), "--registry", registry]
    subprocess.run(create, capture_output=True, check=True)
    code, output, modules = loaded(
        ["tools", "run", "shipping_cost", "--registry", registry, "--args", '{"weight_kg": 12}']
    )
    assert (code, output.strip()) == (0, "31.500")
    assert unneeded(modules, NOT_FOR_A_COMPUTE_TOOL) == []
    # It reads the tool's own file as plain JSON (registry/folder_run.py): no pydantic models,
    # no registry loaded whole, no other kind of tool, nothing that writes records or audit.
    assert unneeded(modules, NOT_FOR_A_COMPUTE_TOOL_OF_A_FOLDER) == []


# What `tools run` of such a tool on a registry folder needs nothing of either.
NOT_FOR_A_COMPUTE_TOOL_OF_A_FOLDER = (
    "pydantic",
    "annotated_types",
    "email",
    "msgspec",
    "filelock",  # (the run is counted under the folder's lock, taken with flock itself: flock.py)
    "toolkiln.executables",
    "toolkiln.registry.registry",
    "toolkiln.registry.models",
    "toolkiln.registry.codec",
    "toolkiln.registry.mirror",
    "toolkiln.registry.applying",
    "toolkiln.registry.meta",
    "toolkiln.registry.exports",
    "toolkiln.diagnostics.details",  # (the error details: a run that succeeds has none)
    "toolkiln.registry.revisions",
    "toolkiln.registry.pending_calls",
    "toolkiln.registry.kinds.workflow",
    "toolkiln.registry.kinds.programs",
)


def test_the_n8n_catalogs_are_listed_only_when_a_version_is_given(tmp_path: Path) -> None:
    code, _, modules = loaded(["check", str(SHIPPING)])
    assert code == 0 and "toolkiln.backends.n8n.catalog" not in modules
    done = subprocess.run(
        [sys.executable, "-m", "toolkiln", "check", "--n8n-version", "0.1", str(SHIPPING)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "invalid choice: '0.1' (choose from 1.123.50, 2.41.1" in done.stderr


# What no command module may import when its parser is built (`toolkiln --help` builds them all):
# a command imports its library when it runs, so that adding a command stays a lazy one-liner.
NOT_FOR_THE_PARSERS = ("pydantic", "lark", "networkx", "jsonschema", "httpx", "fastapi", "toolkiln.registry.registry")


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["explain", "E0101"]])
def test_help_version_and_explain_load_no_library_of_a_command(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE_EXITING, *argv], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "toolkiln" in done.stdout or "E0101" in done.stdout
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert unneeded(modules, NOT_FOR_THE_PARSERS) == []


def test_an_unknown_command_still_lists_every_command() -> None:
    done = subprocess.run([sys.executable, "-m", "toolkiln", "frob"], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "'run'" in done.stderr and "'serve'" in done.stderr and "'n8n'" in done.stderr


WORKFLOWS = Path(__file__).resolve().parents[2] / "golden" / "workflows"
# What a workflow check needs nothing of: its graphs are check/workflow/digraph.py's, its AST
# dataclasses (no pydantic, and no validator built: that loaded importlib.metadata too), and it
# neither runs nor deploys anything.
NOT_FOR_A_WORKFLOW_CHECK = (
    "networkx",
    "pydantic",
    "annotated_types",
    "importlib.metadata",
    "httpx",
    "jsonschema",
    "toolkiln.n8n",
    "toolkiln.server",
    "toolkiln.llm",
    "toolkiln.registry",
    "toolkiln.interpret",
    "toolkiln.optimize",
    "toolkiln.backends.workflow_printer",  # (fmt's and an import's)
    "zoneinfo",  # (a schedule's timezone only)
    "lark",  # (the hand-written workflow parser reads a valid .wf; Lark explains errors)
    "regex",
    "toolkiln.syntax.workflow_lark",
    "uuid",  # (node ids: emit.stable_id makes uuid5 itself)
    "difflib",  # (a misspelt name's hint only)
)


@pytest.mark.parametrize("workflow", ["order_total.wf", "loop_batches.wf", "order_total.json"])
def test_check_of_a_workflow_or_an_n8n_export_loads_no_graph_library_or_pydantic(workflow: str) -> None:
    code, output, modules = loaded(["check", str(WORKFLOWS / workflow)])
    assert code == 0, output
    assert "0 error(s)" in output
    assert unneeded(modules, NOT_FOR_A_WORKFLOW_CHECK) == []


def test_a_workflow_without_node_steps_loads_no_node_catalog() -> None:
    code, _, modules = loaded(["check", str(WORKFLOWS / "order_total.wf")])
    assert code == 0 and "toolkiln.backends.n8n.catalog" not in modules
    code, _, modules = loaded(["check", str(WORKFLOWS / "loop_batches.wf")])  # (its node steps need it)
    assert code == 0 and "toolkiln.backends.n8n.catalog" in modules


def test_fmt_of_a_workflow_loads_no_lark(tmp_path: Path) -> None:
    """The printer's list of the grammar's words is a constant (a test compares it with the
    grammar): formatting a valid workflow needs no Lark."""
    path = tmp_path / "order_total.wf"
    path.write_text((WORKFLOWS / "order_total.wf").read_text(encoding="utf-8"), encoding="utf-8")
    code, output, modules = loaded(["fmt", str(path)])
    assert code == 0 and "reformatted" in output
    assert unneeded(modules, ("lark", "regex", "toolkiln.syntax.workflow_lark")) == []


HEADER = 'workflow w\ndescription "d"\non manual\nset s { total = 1 }\n'


@pytest.mark.parametrize(
    ("line", "message", "where"),
    [
        ("wait pause 5 minuts", "error[E0709]: unknown wait unit `minuts`", ":5:14"),
        ("sets s { total = 1 }", "error[E0101]: unexpected `s`", ":5:6"),  # Lark's lexer reads `set s`
        ("set t { total = 1 + }", "error[E0101]: unexpected end of input", ":5:20"),
    ],
)
def test_a_broken_workflow_gets_the_diagnostic_lark_gave_before(
    tmp_path: Path, line: str, message: str, where: str
) -> None:
    """The hand-written parser declines, and Lark reports what it reported before it existed
    (or, for a syntax error once Lark's tables are kept, the error finder: with Lark's words)."""
    path = tmp_path / "broken.wf"
    path.write_text(HEADER + line + "\n", encoding="utf-8")
    code, output, _ = loaded(["check", str(path)])
    assert code == 1
    assert output.startswith(message + "\n --> " + str(path) + where + "\n"), output


def test_a_workflow_whose_expressions_are_broken_is_explained_without_lark(tmp_path: Path) -> None:
    """The hand-written parser reads on past an expression's error; once Lark has kept the
    compute parser's tables (a first run, in a state home of this test's own), the second run
    gives the same three diagnostics, in order, loading no Lark."""
    from toolkiln.statehome import STATE_DIR_ENV

    path = tmp_path / "broken.wf"
    body = "set s { total = 1 + , note = upper(1 +) }\nrespond r s.total * * 2\n"
    path.write_text(HEADER.replace("set s { total = 1 }\n", body), encoding="utf-8")
    env = {**os.environ, STATE_DIR_ENV: str(tmp_path / "state")}
    first, second = (loaded(["check", str(path)], env) for _ in range(2))
    assert first[:2] == second[:2] and first[0] == 1
    locations = [line for line in second[1].splitlines() if line.startswith(" --> ")]
    assert locations == [f" --> {path}:{where}" for where in ("4:20", "4:39", "5:21")], second[1]
    assert unneeded(second[2], ("lark", "regex", "toolkiln.syntax.workflow_lark")) == []
