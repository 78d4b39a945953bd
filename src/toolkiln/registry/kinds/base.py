"""What every tool kind is: the `ToolKind` protocol, the checked definition it compiles to
(`Compiled`), and what a kind may ask of the registry when it makes a runnable tool.

The registry, the web page, the CLI and the exports ask a tool's kind (its class in the
table of kinds/__init__.py) what to do; nothing outside the kind classes compares a kind's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.ast.records import record, set_field
from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError

if TYPE_CHECKING:
    from datetime import datetime

    from toolkiln.registry.capabilities import Capabilities
    from toolkiln.registry.models import Deployment, ToolRecord
    from toolkiln.registry.principals import Principal
    from toolkiln.semantics.dates import Clock
    from toolkiln.semantics.limits import Limits
    from toolkiln.semantics.values import DecimalEncoding
    from toolkiln.tool import Tool


@record()
class Compiled:
    """A definition that checked, as its kind compiled it: the canonical JSON form that is
    stored, and what the registry's record copies of it. A kind's own compiled parts are
    fields of its subclass (a compute tool's `Tool`, a workflow's n8n JSON, a program's spec).
    (A record: ast/records.py. A subclass's own fields are keyword-only.)"""

    kind: ToolKind
    definition: dict[str, Any]
    name: str
    description: str
    risk_level: str
    parameters: dict[str, Any]
    examples: list[dict[str, Any]] | None = None  # also in `definition`; run before saving

    def __init__(
        self,
        kind: ToolKind,
        definition: dict[str, Any],
        name: str,
        description: str,
        risk_level: str,
        parameters: dict[str, Any],
        examples: list[dict[str, Any]] | None = None,
    ) -> None:
        set_field(self, "kind", kind)
        set_field(self, "definition", definition)
        set_field(self, "name", name)
        set_field(self, "description", description)
        set_field(self, "risk_level", risk_level)
        set_field(self, "parameters", parameters)
        set_field(self, "examples", examples)

    @property
    def tool(self) -> Tool | None:
        """The compute tool that checks (for a compute tool: runs) the arguments; None when
        the kind checks its arguments its own way."""
        return None

    @property
    def warnings(self) -> list[Diagnostic]:
        tool = self.tool
        return [] if tool is None else tool.warnings


class Runnable(Protocol):
    """A tool ready to run, as `Registry.run` runs it."""

    def run(
        self,
        args: Mapping[str, Any] | None = None,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,
    ) -> Any: ...


class WorkflowPoster(Protocol):
    """The registry's n8n, as a workflow tool's run uses it (registry/workflows.WorkflowTools)."""

    def call(self, deployment: Deployment, data: dict[str, Any]) -> Any: ...


def _no_secret(name: str) -> str | None:
    return None


@record()
class RunContext:
    """What the registry lends a kind to make a runnable tool: the capabilities it was granted,
    the audit line of an unsandboxed run, its n8n, and a compute tool with the registry's
    tables it reads (cached per tool and change of the tables)."""

    capabilities: Capabilities
    note_unsandboxed: Callable[[ToolRecord], None]
    n8n: WorkflowPoster
    with_tables: Callable[[str, Tool], Tool]
    # The value of a registry secret by name (None: not set); RegistryError when it cannot be read.
    secret: Callable[[str], str | None] = _no_secret

    def __init__(
        self,
        capabilities: Capabilities,
        note_unsandboxed: Callable[[ToolRecord], None],
        n8n: WorkflowPoster,
        with_tables: Callable[[str, Tool], Tool],
        secret: Callable[[str], str | None] = _no_secret,
    ) -> None:
        set_field(self, "capabilities", capabilities)
        set_field(self, "note_unsandboxed", note_unsandboxed)
        set_field(self, "n8n", n8n)
        set_field(self, "with_tables", with_tables)
        set_field(self, "secret", secret)


class ToolKind:
    """One kind of tool: how its definition is recognised and compiled, how it runs, and what
    the registry, its policy, the exports, the web page and the CLI do with it. A kind is a
    subclass that sets the attributes below and implements `compile`, `runnable` and `text`;
    the other methods' defaults fit a kind that only the registry runs.

    A new kind is one module with such a class, added to the table (kinds/__init__.py), plus
    its tests: see CONTRIBUTING.md."""

    name: str  # the record's and the definition's `kind`
    changeable: tuple[str, ...]  # the definition fields `update` may change
    optional: tuple[str, ...] = ()  # of those, the ones `None` removes (restores the default)
    annotations: Mapping[str, bool]  # MCP tool annotations in exports
    side_effects = True  # a run acts outside the interpreter: a model's tool waits, `call` cannot call it
    reapproval = False  # every new version waits for a person's approval, whoever made it
    signed = True  # its record is believed only when signed here: vouched for at each run
    deploys = False  # approval and `deploy` put it on the registry's n8n
    not_tried: str | None = "its run acts outside toolkiln"  # why a check does not run it (None: it may)
    has_examples = False  # its definition may hold examples, run before saving
    runs_in: str | None = None  # where a run happens, as the CLI says it (None: its result says)

    def recognize(self, source: Any) -> Any | None:
        """`source` as this kind compiles it, when it is in a form only this kind has (a
        file type, a text's first line); None otherwise (JSON says its `kind`). Asked of texts
        and paths only, never of a JSON object (definitions.definition_kind)."""
        return None

    def from_json(self, obj: dict[str, Any]) -> Any:
        """What to compile of a JSON object whose `kind` names this kind."""
        return obj

    def compile(self, source: Any, tools: Mapping[str, Any] | None, options: CompileOptions) -> Compiled:
        """Check a definition; CompileError with every diagnostic if it does not check."""
        raise NotImplementedError

    def examples_problems(self, found: Any) -> list[Diagnostic]:
        """What is wrong with a definition's `examples` (a kind without examples refuses them)."""
        return no_examples(self.name, "act outside toolkiln")

    def admit(self, compiled: Compiled, principal: Principal, capabilities: Capabilities, action: str) -> None:
        """Refuse (CompileError, RegistryError) what `principal` may not save or approve here."""
        return None

    def runnable(self, record: ToolRecord, compiled: Compiled, context: RunContext) -> Runnable:
        """The tool ready to run (its status is the registry's to check)."""
        raise NotImplementedError

    def try_run(self, compiled: Compiled, args: Mapping[str, Any], tables: Mapping[str, Any], clock: Any) -> Any:
        """Run a definition that was only checked (kinds whose `not_tried` is None)."""
        raise AssertionError(self.not_tried)

    def text(self, record: ToolRecord) -> str:
        """The definition as `tools show` prints it, indented under the record's summary."""
        raise NotImplementedError

    def source_text(self, definition: Mapping[str, Any]) -> str | None:
        """The definition as a person reads it in text, beside its JSON (None: only the JSON)."""
        return None

    def editable_text(self, definition: Mapping[str, Any]) -> str | None:
        """The text an editor shows that compiles back to the whole definition (None: edit the JSON)."""
        return None

    def claims(self, record: ToolRecord) -> list[str]:
        """What a record's definition may reach, as `toolkiln trust` lists it before signing."""
        return []

    def result_text(self, result: Any, decimals: DecimalEncoding) -> str:
        """A run's result as the CLI prints it."""
        from toolkiln.semantics.values import to_json

        return to_json(result)


@record()
class CompileOptions:
    """How a definition is compiled: `pin` an executable without `sha256` to its file as it is
    now, read only inside `allowed_folders` (None: anywhere; (): none granted)."""

    pin: bool = False
    allowed_folders: tuple[Path, ...] | None = None

    def __init__(self, pin: bool = False, allowed_folders: tuple[Path, ...] | None = None) -> None:
        set_field(self, "pin", pin)
        set_field(self, "allowed_folders", allowed_folders)


def at_path(code: codes.Code, message: str, path: str | None = None, hint: str | None = None) -> Diagnostic:
    """A diagnostic located by a definition's field (`path`), not a line."""
    span = None if path is None else Span(line=0, column=0, end_line=0, end_column=0, path=path)
    return Diagnostic.of(code, message, span, hint)


def refuse(code: codes.Code, message: str, path: str | None = None, hint: str | None = None) -> CompileError:
    return CompileError([at_path(code, message, path, hint)])


def no_examples(kind: str, acts: str) -> list[Diagnostic]:
    """The refusal of `examples` in a kind whose runs are not the interpreter's."""
    return [
        at_path(
            codes.INVALID_EXAMPLE,
            f"a {kind} tool has no examples: its runs {acts}, so none is run before approval",
            "examples",
            hint=f"leave `examples` out; test the {kind} tool after a person approves it",
        )
    ]
