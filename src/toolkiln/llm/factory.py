"""`Factory`: from a description to a checked, tested, saved tool, with a bounded repair loop.

    factory = Factory(client, registry, max_attempts=3)
    result = factory.create_compute("shipping cost: 5 plus 2.50 per kg")
    result.ok, result.record, result.usage
    for attempt in result.attempts:
        attempt.reply, attempt.source, attempt.diagnostics

Each attempt asks the model, extracts the definition from its reply (`extract`), checks it and
saves it through the registry, which compiles it and runs its examples: nothing unchecked is
saved. Before that, the certain fixes of a compute definition's diagnostics (one meaning:
`===` -> `==`, `x.length` -> `len(x)`) are applied and it is checked again, so a mistake a
fix repairs costs no model call; the attempt's repairs and the audit note name each fix.
When anything fails, the next attempt sends the same system prompt and request, the
last attempt (its definition) and its diagnostics as JSON; not the whole growing history.
Tools are saved with created_by="llm", so the registry's policy applies (workflow tools wait
in pending_approval), and the audit entry notes the request and the number of attempts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from toolkiln.api import to_json
from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.fixes import repair
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.errors import CompileError, Error, UsageError
from toolkiln.llm.client import ChatClient
from toolkiln.llm.errors import LLMConfigError, LLMError
from toolkiln.llm.extraction import Extraction, extract
from toolkiln.llm.json_reply import Repair
from toolkiln.llm.messages import Assistant, Message, System, Usage, User
from toolkiln.llm.prompts import MIN_EXAMPLES, compute_prompt, script_prompt, template_prompt, workflow_prompt
from toolkiln.registry.errors import DuplicateTool, RegistryError
from toolkiln.registry.examples import FIELD as EXAMPLES
from toolkiln.registry.repairing import checked_as_a_definition
from toolkiln.syntax.json_positions import value_offsets
from toolkiln.templates import get as get_template
from toolkiln.templates import render_text
from toolkiln.workflow import check_workflow, compile_workflow

if TYPE_CHECKING:
    from toolkiln.registry.models import ToolRecord
    from toolkiln.registry.registry import Registry

# What of a failed reply goes back to the model: its definition, or the start of its text.
MAX_ECHO_CHARS = 8_000
MAX_DIAGNOSTICS_SENT = 20
MAX_NOTE_CHARS = 500
# The file name diagnostics give the definition taken from a reply.
SOURCE_NAME = "definition"


@dataclass(frozen=True)
class Attempt:
    """One question to the model: its reply, the definition taken from it (None when none
    could be), the diagnostics that sent it back (empty for the attempt that was saved), the
    repairs made to the reply and the tokens it cost."""

    number: int
    reply: str
    source: str | None
    diagnostics: tuple[Diagnostic, ...] = ()
    repairs: tuple[Repair, ...] = ()
    usage: Usage = Usage()

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "reply": self.reply,
            "source": self.source,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "repairs": [r.to_dict() for r in self.repairs],
        }


@dataclass(frozen=True)
class FactoryResult:
    """`ok` when `record` (the saved tool) is there. `error` is what ended the run before the
    attempts were used up: the client's `LLMError`, or a registry error no model can repair."""

    ok: bool
    record: ToolRecord | None
    attempts: tuple[Attempt, ...]
    usage: Usage
    error: Error | None = None

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The diagnostics of the last attempt."""
        return self.attempts[-1].diagnostics if self.attempts else ()


@dataclass
class _Job:
    """What one create call asks for: the prompts, how a reply becomes a definition, the note."""

    system: str
    request: str
    definition: Callable[[Extraction], tuple[Any, list[Diagnostic]]]
    note: str
    name_given: bool = False
    fixes_programs: bool = False  # a compute definition: its certain fixes are applied
    attempts: list[Attempt] = field(default_factory=list)


class Factory:
    """Creates tools by asking `client` and saving through `registry`. `on_attempt` is called
    with each attempt as it ends (the CLI prints progress with it); `max_tokens` bounds each reply."""

    def __init__(
        self,
        client: ChatClient,
        registry: Registry,
        max_attempts: int = 3,
        *,
        on_attempt: Callable[[Attempt], None] | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise LLMConfigError(f"max_attempts must be a whole number of at least 1, not {max_attempts!r}")
        self.client = client
        self.registry = registry
        self.max_attempts = max_attempts
        self.on_attempt = on_attempt
        self.max_tokens = max_tokens

    def create_compute(self, description: str, *, name: str | None = None) -> FactoryResult:
        """A compute tool that does what `description` says, with at least three examples."""
        _check_text(description, "description")
        return self._run(
            _Job(
                compute_prompt(self.registry.limits),
                _request(description, name, "compute tool"),
                lambda found: _compute_definition(found, name),
                _note("a description", description),
                name_given=name is not None,
                fixes_programs=True,
            )
        )

    def create_workflow(self, description: str, *, name: str | None = None) -> FactoryResult:
        """A workflow tool (n8n) that does what `description` says; it waits for approval."""
        _check_text(description, "description")
        return self._run(
            _Job(
                workflow_prompt(description),
                _request(description, name, "workflow tool"),
                lambda found: _workflow_definition(found, name),
                _note("a description", description),
                name_given=name is not None,
            )
        )

    def create_script(self, description: str, *, name: str | None = None) -> FactoryResult:
        """A script tool (bash or python, run in the sandbox) that does what `description` says;
        like every script a model writes, it waits for a person's approval and never runs before."""
        _check_text(description, "description")
        return self._run(
            _Job(
                script_prompt(),
                _request(description, name, "script tool"),
                lambda found: _script_definition(found, name),
                _note("a description", description),
                name_given=name is not None,
            )
        )

    def create_from_template(self, slug: str, customizations: str | Mapping[str, Any]) -> FactoryResult:
        """A workflow tool from template `slug`. `customizations` is either what the user wants
        in words (the model chooses the parameter values) or the values themselves (no model is
        asked). The tool is named after the slug (`lead-followup` -> `lead_followup`)."""
        template = get_template(slug)  # CompileError (E0801) for an unknown slug

        def definition(values: Any) -> tuple[Any, list[Diagnostic]]:
            if not isinstance(values, dict):
                return None, [_at(codes.WRONG_JSON_TYPE, "the parameter values must be a JSON object", None)]
            try:
                workflow = render_text(slug, **values)
            except CompileError as error:
                return None, list(error.diagnostics)
            name = slug.replace("-", "_")
            return {"kind": "workflow", "name": name, "description": template.description, "workflow": workflow}, []

        if not isinstance(customizations, Mapping):
            _check_text(customizations, "customizations")
        if isinstance(customizations, Mapping):
            return self._save_given(
                definition(dict(customizations)),
                _note(f"template {slug}", json.dumps(dict(customizations), default=str)),
            )
        return self._run(
            _Job(
                template_prompt(template),
                customizations,
                lambda found: definition(found.data) if found.format == "json" else (None, [_needs_json()]),
                _note(f"template {slug}", customizations),
            )
        )

    # --- the loop -----------------------------------------------------------------------------

    def _run(self, job: _Job) -> FactoryResult:
        usage = Usage()
        for number in range(1, self.max_attempts + 1):
            try:
                reply = self.client.chat(self._messages(job), max_tokens=self.max_tokens)
            except LLMError as error:
                return FactoryResult(False, None, tuple(job.attempts), usage, error)
            usage += reply.usage
            found = extract(reply.text) if reply.text.strip() or not reply.tool_calls else _called_a_tool()
            found, fixed = _with_certain_fixes(found) if job.fixes_programs else (found, "")
            definition, problems = job.definition(found) if found.ok else (None, list(found.diagnostics))
            note = f"{job.note}; {number} attempt(s)" + (f"; {fixed}" if fixed else "")
            record, diagnostics, ending = self._save(definition, problems, note, job.name_given)
            located = tuple(_in_source(d, found) for d in diagnostics)
            job.attempts.append(Attempt(number, reply.text, found.source, located, found.repairs, reply.usage))
            self._notify(job.attempts[-1])
            if record is not None or ending is not None:
                return FactoryResult(record is not None, record, tuple(job.attempts), usage, ending)
        return FactoryResult(False, None, tuple(job.attempts), usage)

    def _save(
        self, definition: Any, problems: list[Diagnostic], note: str, name_given: bool
    ) -> tuple[ToolRecord | None, list[Diagnostic], Error | None]:
        """Save `definition` unless there are `problems`: the record; or the diagnostics for the
        model; or, with them, the error that ends the run (one no model can repair)."""
        if problems:
            return None, problems, None
        try:
            return self.registry.create(definition, created_by="llm", note=note), [], None
        except CompileError as error:
            return None, [d for d in error.diagnostics if d.is_error], None
        except RegistryError as error:
            taken = isinstance(error, DuplicateTool)
            diagnostic = _at(codes.CODES[error.code], error.message, "name" if taken else None, error.hint)
            if taken and not name_given:
                return None, [diagnostic], None  # the model chose the name: it can choose another
            return None, [diagnostic], error

    def _notify(self, attempt: Attempt) -> None:
        if self.on_attempt is not None:
            self.on_attempt(attempt)

    def _save_given(self, built: tuple[Any, list[Diagnostic]], note: str) -> FactoryResult:
        """Save a definition no model wrote (a template with given values): one attempt."""
        definition, problems = built
        record, diagnostics, ending = self._save(definition, problems, note, name_given=True)
        source = None if definition is None else definition["workflow"]
        attempt = Attempt(1, "", source, tuple(diagnostics))
        self._notify(attempt)
        return FactoryResult(record is not None, record, (attempt,), Usage(), ending)

    def _messages(self, job: _Job) -> list[Message]:
        """The system prompt and the request; after a failed attempt, that attempt (its
        definition) and its diagnostics. Earlier attempts are not sent again."""
        messages: list[Message] = [System(job.system), User(job.request)]
        if not job.attempts:
            return messages
        last = job.attempts[-1]
        shown = f"```\n{last.source}\n```" if last.source is not None else last.reply
        if len(shown) > MAX_ECHO_CHARS:
            shown = shown[:MAX_ECHO_CHARS] + f"\n[... {len(shown) - MAX_ECHO_CHARS:,} more characters not shown]"
        errors = [_compact(d) for d in last.diagnostics[:MAX_DIAGNOSTICS_SENT]]
        more = len(last.diagnostics) - len(errors)
        fixes = [done.message for done in last.repairs if done.kind == FIX_REPAIR]
        fixed = f"These certain fixes were applied to it already: {'; '.join(fixes)}.\n" if fixes else ""
        return [
            *messages,
            Assistant(shown or "(an empty answer)"),
            User(
                "That answer was not saved. Fix every problem below and answer again with the whole "
                "definition, in one fenced block.\n"
                + fixed
                + "Diagnostics (JSON):\n"
                + json.dumps(errors, indent=1, ensure_ascii=False)
                + (f"\n({more} more not shown)" if more > 0 else "")
            ),
        ]


# --- from a reply to a definition -------------------------------------------------------------

FIX_REPAIR = "fix"  # the kind of Repair an applied certain fix is noted as


def _with_certain_fixes(found: Extraction) -> tuple[Extraction, str]:
    """The compute definition in `found` with its certain fixes applied, round after round,
    and the summary of what was applied ("" when nothing was)."""
    if not found.ok or found.source is None or found.kind == "workflow":
        return found, ""
    repaired = repair(found.source, checked_as_a_definition)
    again = extract(repaired.text) if repaired.applied else found
    if not again.ok:  # the fixes keep a definition whole; refuse them rather than lose it
        return found, ""
    applied = tuple(Repair(FIX_REPAIR, fix.describe()) for fix in repaired.applied)
    return replace(again, repairs=found.repairs + applied), repaired.summary()


def _compute_definition(found: Extraction, name: str | None) -> tuple[Any, list[Diagnostic]]:
    if found.kind == "workflow":
        return None, [_at(codes.INVALID_DECLARATION, "this is a workflow; a compute tool was asked for", "kind")]
    if found.format == "text":
        try:
            data = to_json(found.source)
        except CompileError as error:
            return None, list(error.diagnostics)
    else:
        data = dict(found.data)
    if name is not None:
        data["name"] = name
    examples = data.get(EXAMPLES)
    if not isinstance(examples, list) or len(examples) < MIN_EXAMPLES:
        count = len(examples) if isinstance(examples, list) else 0
        return None, [
            _at(
                codes.TOO_FEW_EXAMPLES,
                f"the definition has {count} example(s); at least {MIN_EXAMPLES} are needed",
                EXAMPLES,
                'add "examples": [{"args": {...}, "expect": value}, ...] to the JSON definition',
            )
        ]
    return data, []


def _workflow_definition(found: Extraction, name: str | None) -> tuple[Any, list[Diagnostic]]:
    if found.format == "text":
        assert found.source is not None
        if found.kind != "workflow":
            return None, [_at(codes.INVALID_DECLARATION, "this is a compute tool; a workflow was asked for", None)]
        data: dict[str, Any] = {"kind": "workflow", "workflow": found.source}
    else:
        data = dict(found.data)
        if data.get("kind") != "workflow":
            return None, [_at(codes.INVALID_DECLARATION, 'a workflow tool definition has "kind": "workflow"', "kind")]
    text = data.get("workflow")
    if isinstance(text, str):
        # Strict: what is only a warning for a person (a node type or parameter the catalog does
        # not know, a step no trigger reaches, a loop) is an error here: a model's unknown node
        # is an invented one, and its unreachable step a mistake.
        problems = [d for d in check_workflow(text, strict=True) if d.is_error]
        if problems:
            return None, [replace(d, span=(d.span or _NOWHERE).shifted("workflow")) for d in problems]
        if found.format == "text":
            compiled = compile_workflow(text)
            data.update(name=compiled.name, description=compiled.ast.description or compiled.name)
    if name is not None:
        data["name"] = name
    return data, []


def _script_definition(found: Extraction, name: str | None) -> tuple[Any, list[Diagnostic]]:
    if found.format != "json" or not isinstance(found.data, Mapping):
        return None, [_needs_json()]
    data = {"kind": "script", **found.data}
    if data["kind"] != "script":
        return None, [_at(codes.INVALID_DECLARATION, 'a script tool definition has "kind": "script"', "kind")]
    if name is not None:
        data["name"] = name
    return data, []


# --- helpers ----------------------------------------------------------------------------------

_NOWHERE = Span(line=0, column=0, end_line=0, end_column=0)


def _at(code: codes.Code, message: str, path: str | None, hint: str | None = None) -> Diagnostic:
    return Diagnostic.of(code, message, None if path is None else _NOWHERE.shifted(path), hint)


def _needs_json() -> Diagnostic:
    return _at(codes.NO_TOOL_IN_REPLY, "the answer must be a JSON object", None, "answer in one ```json block")


def _called_a_tool() -> Extraction:
    return Extraction(
        diagnostics=(
            _at(
                codes.NO_TOOL_IN_REPLY,
                "the reply is a tool call and no text",
                None,
                "do not call a tool: answer with the definition as text, in one fenced block",
            ),
        )
    )


def _in_source(diagnostic: Diagnostic, found: Extraction) -> Diagnostic:
    """A diagnostic known only by its JSON path (`examples[2]`), given the line and the text it
    points at in the definition, so that the model sees what it wrote there."""
    span = diagnostic.span
    if found.format != "json" or diagnostic.snippet is not None or span is None or span.line or span.path is None:
        return diagnostic
    return diagnostic.located(Source(name=SOURCE_NAME, text=found.source, json_offsets=value_offsets))


def _compact(diagnostic: Diagnostic) -> dict[str, Any]:
    """The JSON form of a diagnostic without its empty fields: code, location, the offending
    text (`source`), message and hint."""
    return {key: value for key, value in diagnostic.to_dict().items() if value is not None}


def _check_text(value: object, what: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{what} must be a non-empty str, not {value!r:.60}")


def _request(description: str, name: str | None, what: str) -> str:
    named = f" Name it `{name}`." if name else ""
    return f"Write a {what} that does this:\n\n{description}\n{named}".rstrip()


def _note(origin: str, text: str) -> str:
    note = f"created by the factory from {origin}: {text}"
    return note if len(note) <= MAX_NOTE_CHARS else note[: MAX_NOTE_CHARS - 3] + "..."
