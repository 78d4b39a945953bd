"""The workflow pipeline: text -> AST -> validation -> n8n workflow JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkiln.backends.n8n.document import read_n8n
from toolkiln.backends.n8n.emit import emit_workflow
from toolkiln.backends.workflow_result import WorkflowResult
from toolkiln.check.workflow.catalog import CatalogLoader, NodeCatalog
from toolkiln.check.workflow.validate import validate
from toolkiln.check.workflow.validation import Validation
from toolkiln.diagnostics.model import Diagnostic, has_errors, sort_key
from toolkiln.diagnostics.source import Source
from toolkiln.errors import CompileError, UsageError
from toolkiln.syntax.limits import MAX_SOURCE_CHARS
from toolkiln.syntax.workflow_text import parse_workflow
from toolkiln.workflow.dataflow import compiled_data_flow


@dataclass(frozen=True)
class CompiledWorkflow(WorkflowResult):
    """A workflow that parsed, validated and translated."""

    validation: Validation | None = None


def _catalog(n8n_version: str | None) -> CatalogLoader:
    """The node catalog of `n8n_version`, for the checks that look a node type up (a `node`
    step): the catalog's module and data load only then."""

    def load() -> NodeCatalog:
        from toolkiln.backends.n8n.catalog import load_catalog

        return load_catalog(n8n_version)

    return load


def _compile(
    text: str, *, max_source_chars: int, strict: bool, n8n_version: str | None
) -> tuple[CompiledWorkflow | None, list[Diagnostic]]:
    workflow, diagnostics = parse_workflow(text, max_source_chars)
    if workflow is None:
        return None, diagnostics
    validation = validate(workflow, catalog=_catalog(n8n_version), strict=strict)
    diagnostics = diagnostics + validation.diagnostics
    if has_errors(diagnostics):
        return None, diagnostics
    n8n, emitted = emit_workflow(validation)
    diagnostics += emitted
    if n8n is None or has_errors(diagnostics):
        return None, diagnostics
    return CompiledWorkflow(workflow, n8n, tuple(diagnostics), validation), diagnostics


def check_workflow(
    source: str | dict[str, Any],
    file: str | None = None,
    *,
    max_source_chars: int = MAX_SOURCE_CHARS,
    strict: bool = False,
    n8n_version: str | None = None,
) -> list[Diagnostic]:
    """Every diagnostic for workflow DSL text, or the lint findings for an n8n workflow (a dict,
    or JSON text); located in `file` and sorted. Empty when it compiles (or lints) clean.
    DSL text over `max_source_chars` (default 1 MiB) is E0401. What n8n accepts (a step no
    trigger reaches, a loop, a node or parameter the catalog does not know) is a warning;
    `strict=True` makes it an error (docs/workflows.md#severities). Nodes are checked against
    the node catalog of `n8n_version` (default: the pinned release; `catalog_versions()` in
    toolkiln.backends.n8n.catalog lists those shipped)."""
    if not isinstance(source, (str, dict)):
        raise UsageError(
            f"source must be workflow DSL text (str) or an n8n workflow (dict), not {type(source).__name__}"
        )
    if isinstance(source, dict) or source.lstrip().startswith(("{", "[")):  # no DSL text starts so
        return _lint(source, file, n8n_version)
    compiled, diagnostics = _compile(source, max_source_chars=max_source_chars, strict=strict, n8n_version=n8n_version)
    if compiled is not None and compiled.validation is not None:
        # n8n accepts these and fails only when the node runs: `check` says so, compile does not
        # refuse (an import's text compiles back to its file): docs/decisions.md
        diagnostics = diagnostics + compiled_data_flow(compiled.validation.graph, compiled.n8n, source)
    origin = Source(name=file, text=source)
    return sorted((d.located(origin) for d in diagnostics), key=sort_key)


def compile_workflow(
    text: str,
    file: str | None = None,
    *,
    max_source_chars: int = MAX_SOURCE_CHARS,
    strict: bool = False,
    n8n_version: str | None = None,
) -> CompiledWorkflow:
    """Compile workflow DSL text; raises CompileError (with located diagnostics) if it is wrong.
    Text over `max_source_chars` (default 1 MiB) is E0401; raise it for a trusted source such
    as the text of a large import. Warnings (what n8n accepts) are in `.diagnostics`;
    `strict=True` makes them errors; `n8n_version` chooses the node catalog, as for check_workflow."""
    if not isinstance(text, str):
        raise UsageError(f"text must be workflow DSL text (str), not {type(text).__name__}")
    compiled, diagnostics = _compile(text, max_source_chars=max_source_chars, strict=strict, n8n_version=n8n_version)
    if compiled is None:
        source = Source(name=file, text=text)
        raise CompileError(sorted((d.located(source) for d in diagnostics), key=sort_key))
    return compiled


def _lint(data: str | dict[str, Any], file: str | None, n8n_version: str | None) -> list[Diagnostic]:
    from toolkiln.backends.n8n.lint import lint_n8n  # (an n8n export's check only)

    try:
        return lint_n8n(read_n8n(data, file), n8n_version=n8n_version)
    except CompileError as error:
        return error.diagnostics
