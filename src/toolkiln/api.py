"""The library's front door: compile, check and print sources."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import walk
from toolkiln.check import CheckResult, ToolSignature, check_program
from toolkiln.diagnostics.model import Diagnostic, sort_key
from toolkiln.errors import CompileError, UsageError
from toolkiln.semantics.limits import Limits
from toolkiln.syntax.loader import Parsed, parse_source

if TYPE_CHECKING:
    from toolkiln.syntax.jsonlogic import NumberMode
    from toolkiln.tool import Tool

# The printers, fixes and JsonLogic are imported by the functions that use them: compiling and
# running a tool file (`toolkiln run`) loads none of them, and checking one (`toolkiln check`)
# neither the optimizer nor the interpreter (issue 34).


class _Signatures(Mapping[str, ToolSignature]):
    """The signatures of `tools`, each read only when a `call` step names it."""

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self.tools = tools

    def __getitem__(self, name: str) -> ToolSignature:
        return _callee(self.tools, name).signature

    def __iter__(self) -> Iterator[str]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)


def _callee(tools: Mapping[str, Tool], name: str) -> Tool:
    """`tools[name]`, which must be a Tool or stand in for one (with `signature` and
    `run_call`): anything else is the caller's mistake, a TypeError that says so."""
    tool = tools[name]
    if not (hasattr(tool, "signature") and callable(getattr(tool, "run_call", None))):
        raise TypeError(f"tools[{name!r}] must be a toolkiln.Tool (from toolkiln.compile), not {type(tool).__name__}")
    return tool


def _tools(tools: Any) -> Mapping[str, Tool] | None:
    if tools is not None and not isinstance(tools, Mapping):
        raise TypeError(f"tools must be a mapping of name -> toolkiln.Tool, not {type(tools).__name__}")
    return tools


def _diagnose(
    source: Any, name: str | None, tools: Mapping[str, Tool] | None = None
) -> tuple[list[Diagnostic], tuple[n.Program, CheckResult] | None]:
    """Every diagnostic, and the program with its check (None when it did not parse)."""
    tools = _tools(tools)
    parsed = parse_source(source, name)
    program = parsed.program
    if program is None:
        return _located(parsed, parsed.diagnostics), None
    checked = check_program(program, tools=None if tools is None else _Signatures(tools))
    return _located(parsed, parsed.diagnostics + checked.diagnostics), (program, checked)


def _located(parsed: Parsed, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    located = [d if d.file is not None or d.snippet is not None else d.located(parsed.source) for d in diagnostics]
    return sorted(located, key=sort_key)


def check(source: Any, *, name: str | None = None, tools: Mapping[str, Tool] | None = None) -> list[Diagnostic]:
    """Every diagnostic for `source` (text DSL, JSON text, dict or path); empty when clean.
    `tools` are the tools its `call` steps may call, by name."""
    return _diagnose(source, name, tools)[0]


def apply_fixes(text: str, diagnostics: list[Diagnostic] | None = None) -> str:
    """`text` (a tool's source) with the certain fixes applied: those of `diagnostics`, which
    must be what `check(text)` reported, or of a fresh check. One round; a fix can reveal
    the next problem, so check again (`toolkiln check --fix` repeats until none is left)."""
    from toolkiln.diagnostics.fixes import apply_fixes as apply_text_fixes

    return apply_text_fixes(text, check(text) if diagnostics is None else diagnostics)


def compile(
    source: Any,
    *,
    tools: Mapping[str, Tool] | None = None,
    tables: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    name: str | None = None,
    optimize: bool = True,
) -> Tool:
    """Parse, check, optimize and compile `source` into a Tool; raises CompileError with the
    diagnostics. `tools` are the compiled tools its `call` steps may call, by name.
    `optimize=False` runs the program exactly as written."""
    diagnostics, result = _diagnose(source, name, tools)
    if result is None or any(d.is_error for d in diagnostics):
        raise CompileError(diagnostics)
    program, checked = result
    checked.diagnostics = diagnostics
    callees = (
        {}
        if tools is None
        else {node.tool: _callee(tools, node.tool) for node in walk(program) if isinstance(node, n.CallTool)}
    )
    signatures = None if tools is None else _Signatures(callees)

    from toolkiln.tool import Optimized, Tool

    runnable = Optimized(program, checked, signatures) if optimize else None
    return Tool(program, checked, tables=tables, limits=limits, runnable=runnable, tools=callees)


# toolkiln's own compile under a name that cannot be mistaken for Python's builtin.
compile_tool = compile


def optimized_text(source: Any) -> str:
    """The canonical text of the optimized program (`toolkiln optimize`); it must check."""
    from toolkiln.backends.text_printer import print_text
    from toolkiln.optimize import optimize as optimize_program

    diagnostics, result = _diagnose(source, None)
    if result is None or any(d.is_error for d in diagnostics):
        raise CompileError(diagnostics)
    return print_text(optimize_program(result[0]))


def _parsed(source: Any) -> tuple[n.Program, Parsed]:
    """The program of `source` (it must parse), with the rest of what the parse found."""
    parsed = parse_source(source)
    if parsed.program is None:
        raise CompileError(_located(parsed, parsed.diagnostics))
    return parsed.program, parsed


def to_text(source: Any) -> str:
    """The canonical text DSL for `source` (it must parse; it need not type-check).
    Comments of a text source are kept."""
    from toolkiln.backends.text_printer import print_text

    program, parsed = _parsed(source)
    return print_text(program, parsed.comments)


def to_json(source: Any) -> dict[str, Any]:
    """The canonical JSON DSL for `source`, as a dict."""
    from toolkiln.backends.json_printer import print_json

    return print_json(_parsed(source)[0])


def import_jsonlogic(
    rule: Any,
    data_schema: Any = None,
    *,
    numbers: NumberMode = "exact",
    name: str | None = None,
    limits: Limits | None = None,
) -> Tool:
    """A compute tool that computes what the JsonLogic `rule` (a parsed JSON value) computes,
    with one parameter, `data`. `data_schema` (a JSON Schema) types `data`; `numbers="float"`
    computes in binary floats as JavaScript does, instead of exact decimals. Raises
    CompileError (E1001-E1005) for a rule the import cannot express."""
    from toolkiln.syntax.jsonlogic_ops import translate_rule

    if numbers not in ("exact", "float"):
        raise UsageError(f'numbers must be "exact" or "float", not {numbers!r:.40}')
    program, diagnostics = translate_rule(rule, data_schema, numbers, name)
    if program is None:
        raise CompileError(diagnostics)
    return compile_tool(program, limits=limits)


def export_jsonlogic(tool: Tool) -> Any:
    """The JsonLogic rule that computes what `tool` computes (its data: the tool's `data`
    parameter when that is its only one, else an object of its parameters). Raises
    CompileError (E1006) naming what does not map onto JsonLogic."""
    from toolkiln.backends.jsonlogic import export_jsonlogic as export_rule

    types = {param.name: param.type for param in tool.checked.parameters}
    rule, diagnostics = export_rule(tool.program, types)
    if diagnostics:
        raise CompileError(diagnostics)
    return rule
