"""Which calls wait for a person's approval: the policy's call rules.

A call waits when its tool asks for it (`approve_calls` on the tool's record, set by an admin
person: `Registry.require_call_approval`) or when one of the policy's `CallRule`s matches it.
A rule names any of a risk level, a capability the tool uses and a kind of caller; every part
it names must hold (a part left empty holds for every call):

    CallRule(capabilities=frozenset({"network"}))                      # every call of a network tool
    CallRule(principals=frozenset({"model"}), risks=frozenset({"high"}))  # a model's calls of high-risk tools
    CallRule.parse("principal=model,capability=network")               # `toolkiln serve --approve-calls`

The capabilities a tool uses are the words of `--allow` (`unsandboxed`, `network`,
`executable`) and `n8n` for a workflow tool. With no rule and no flag (the default), a call
costs one attribute read more than before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolkiln.registry.kinds import kind_of
from toolkiln.registry.kinds.programs import ProgramCompiled
from toolkiln.registry.models import ToolRecord

if TYPE_CHECKING:
    from toolkiln.registry.definitions import Compiled
    from toolkiln.registry.principals import Principal

RISKS = ("low", "medium", "high")
CALL_CAPABILITIES = ("unsandboxed", "network", "executable", "n8n")
CALLER_KINDS = ("person", "model", "service")
_NOTHING: frozenset[str] = frozenset()
_PARTS = {"risk": RISKS, "capability": CALL_CAPABILITIES, "principal": CALLER_KINDS}


@dataclass(frozen=True)
class CallRule:
    """Calls that match every part given wait for a person's approval."""

    risks: frozenset[str] = field(default_factory=frozenset)
    capabilities: frozenset[str] = field(default_factory=frozenset)
    principals: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def parse(cls, text: str) -> CallRule:
        """A rule from `part=word,...` (parts: risk, capability, principal; a part given twice
        matches either word); "all" matches every call. ValueError saying what is wrong."""
        found: dict[str, set[str]] = {part: set() for part in _PARTS}
        words = [] if text.strip() == "all" else [w.strip() for w in text.split(",")]
        for word in words:
            part, _, value = word.partition("=")
            allowed = _PARTS.get(part)
            if allowed is None or value not in allowed:
                raise ValueError(
                    f"{word!r} is not a part of a call rule; parts: "
                    + "; ".join(f"{name}={'|'.join(values)}" for name, values in _PARTS.items())
                    + ' (or "all")'
                )
            found[part].add(value)
        return cls(frozenset(found["risk"]), frozenset(found["capability"]), frozenset(found["principal"]))

    def described(self) -> str:
        parts = [
            f"{name}={'|'.join(sorted(values))}"
            for name, values in (
                ("risk", self.risks),
                ("capability", self.capabilities),
                ("principal", self.principals),
            )
            if values
        ]
        return ",".join(parts) or "all"


def approval_reason(
    rules: Iterable[CallRule], record: ToolRecord, principal: Principal | None, compiled: Callable[[], Compiled]
) -> str | None:
    """Why a call of `record` by `principal` waits for a person (None: it runs now); with no
    principal, why a call by anyone might."""
    if record.approve_calls:
        return f"`{record.name}` asks for a person's approval of each call"
    uses: frozenset[str] | None = None  # (found once, and only when a rule names a capability)
    for rule in rules:  # (rule.matches, inlined: this runs on every call when rules are set)
        if rule.risks and record.risk_level not in rule.risks:
            continue
        if rule.principals and principal is not None and principal.kind not in rule.principals:
            continue
        if rule.capabilities:
            if uses is None:  # a kind that is not signed reaches nothing past its budgets
                uses = capabilities_used(record, compiled()) if kind_of(record.kind).signed else _NOTHING
            if rule.capabilities.isdisjoint(uses):
                continue
        return f"this server asks for a person's approval of such calls (rule {rule.described()})"
    return None


def capabilities_used(record: ToolRecord, compiled: Compiled) -> frozenset[str]:
    """The capabilities a run of the tool uses, as the words of a call rule."""
    words = set()
    if isinstance(compiled, ProgramCompiled):
        spec = compiled.program
        if spec.sandbox == "none":
            words.add("unsandboxed")
        if spec.network:
            words.add("network")
        if spec.path is not None:
            words.add("executable")
    if kind_of(record.kind).deploys:
        words.add("n8n")
    return frozenset(words)
