"""The n8n credentials a workflow tool has made from the registry's secrets when it is deployed.

    {"kind": "workflow", ..., "secrets": ["CRM_API_KEY"],
     "credentials": {"crm": {"type": "httpHeaderAuth", "name": "X-Api-Key", "value": {"secret": "CRM_API_KEY"}}},
     "workflow": "... http notes POST \\"http://...\\" credentials httpHeaderAuth \\"crm\\" ..."}

A step names a credential (`credentials TYPE "crm"`); an entry of `credentials` of that name and
type says how to fill it: each field is text, or `{"secret": NAME}` of a declared secret. The
definition holds names only; the values are read when the tool is deployed
(registry/workflows.py), sent to n8n and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry.kinds.base import at_path

MAX_CREDENTIALS = 16
MAX_FIELDS = 16
MAX_TEXT_CHARS = 4096
_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9]{0,63}")
_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_KEY_CHARS = 128
# The prefix of every credential toolkiln makes in n8n: whoever reads n8n's list sees whose it is.
NAME_PREFIX = "toolkiln"
# The fields n8n sends as an HTTP header, which arrive as they are only in printable ASCII
# (n8n 2.41.1 drops a line break and what Latin-1 cannot hold: docs/errors.md#r0748).
HEADER_FIELDS = {"httpHeaderAuth": ("name", "value"), "httpBearerAuth": ("token",)}
_NOT_IN_A_HEADER = re.compile(r"[^\t\x20-\x7e]")


@dataclass(frozen=True)
class CredentialUse:
    """One credential of a workflow tool: the name its steps give it (`key`), its n8n type, its
    fields given as text, and its fields filled from secrets (field -> secret name)."""

    key: str
    type: str
    texts: Mapping[str, str]
    secrets: Mapping[str, str]

    def n8n_name(self, label: str) -> str:
        """The credential's name in n8n: toolkiln's prefix, the tool (`label`) and the key."""
        return names_prefix(label) + self.key

    def unsendable(self, values: Mapping[str, str]) -> tuple[str, int] | None:
        """(secret, character position) of the first secret field that n8n would send as a
        header with a character it does not send as it is; None when there is none."""
        for field, secret in self.secrets.items():
            found = _NOT_IN_A_HEADER.search(values[secret]) if field in HEADER_FIELDS.get(self.type, ()) else None
            if found is not None:
                return secret, found.start() + 1
        return None

    def data(self, values: Mapping[str, str]) -> dict[str, str]:
        """The credential's data, with the secrets' `values` (by secret name) filled in."""
        return {**self.texts, **{field: values[secret] for field, secret in self.secrets.items()}}


def names_prefix(label: str) -> str:
    """How the names of the credentials made for `label` (a tool's name; `workflow NAME` for a
    workflow deployed from a file) begin in n8n."""
    return f"{NAME_PREFIX} {label}: "


def credential_uses(
    obj: Mapping[str, Any], declared: tuple[str, ...], n8n: Mapping[str, Any], problems: list[Diagnostic]
) -> tuple[CredentialUse, ...]:
    """The definition's `credentials`, checked against its declared secrets and the credentials
    the compiled workflow's nodes name; each mistake is a problem (R0745)."""
    raw = obj.get("credentials", {})
    if not isinstance(raw, dict) or len(raw) > MAX_CREDENTIALS:
        problems.append(_problem(f"`credentials` must be an object of at most {MAX_CREDENTIALS} credentials"))
        return ()
    named = _named_by_steps(n8n)
    uses = []
    for key, entry in raw.items():
        use = _use(key, entry, declared, problems)
        if use is None:
            continue
        if (use.type, use.key) not in named:
            shown = [f"{t} {k!r}" for t, k in sorted(named)] or ["none"]
            problems.append(
                _problem(
                    f"no step of the workflow names the credential {use.type} {use.key!r}",
                    f"credentials.{key}",
                    f'a step names it with `credentials {use.type} "{use.key}"`; the steps name: {", ".join(shown)}',
                )
            )
        uses.append(use)
    used = {secret for use in uses for secret in use.secrets.values()}
    for index, name in enumerate(declared):
        if name not in used:
            problems.append(
                _problem(
                    f"the secret {name} is declared but no credential uses it",
                    f"secrets[{index}]",
                    'a workflow reaches a secret only through a credential: {"field": {"secret": "' + name + '"}}',
                )
            )
    return tuple(uses)


def _use(key: Any, entry: Any, declared: tuple[str, ...], problems: list[Diagnostic]) -> CredentialUse | None:
    path = f"credentials.{str(key)[:_KEY_CHARS]}"
    if not isinstance(key, str) or not key.strip() or len(key) > _KEY_CHARS:
        problems.append(_problem(f"a credential's name is text of 1 to {_KEY_CHARS} characters", "credentials"))
        return None
    type_ = entry.get("type") if isinstance(entry, dict) else None
    if not isinstance(type_, str) or not _TYPE.fullmatch(type_) or len(entry) > MAX_FIELDS + 1:
        problems.append(
            _problem(
                f"the credential {key!r} must be an object with an n8n credential `type` and at most "
                f"{MAX_FIELDS} fields",
                path,
                'e.g. {"type": "httpHeaderAuth", "name": "X-Api-Key", "value": {"secret": "CRM_API_KEY"}}',
            )
        )
        return None
    texts: dict[str, str] = {}
    secrets: dict[str, str] = {}
    for field, value in entry.items():
        if field != "type":
            _field(f"{path}.{field}", field, value, declared, texts, secrets, problems)
    if not secrets:
        problems.append(
            _problem(
                f"the credential {key!r} has no field filled from a secret",
                path,
                "a credential without a secret is made in n8n itself, and a step names it as usual",
            )
        )
        return None
    return CredentialUse(key, type_, texts, secrets)


def _field(
    path: str,
    field: Any,
    value: Any,
    declared: tuple[str, ...],
    texts: dict[str, str],
    secrets: dict[str, str],
    problems: list[Diagnostic],
) -> None:
    if not isinstance(field, str) or not _FIELD.fullmatch(field):
        problems.append(_problem(f"{str(field)[:40]!r} is not a credential field's name", path))
    elif isinstance(value, str) and len(value) <= MAX_TEXT_CHARS:
        texts[field] = value
    elif isinstance(value, dict) and set(value) == {"secret"} and value["secret"] in declared:
        secrets[field] = value["secret"]
    elif isinstance(value, dict) and set(value) == {"secret"}:
        problems.append(
            _problem(
                f"the field {field!r} names the secret {str(value['secret'])[:64]!r}, which the tool does not declare",
                path,
                "list it in the tool's `secrets`",
            )
        )
    else:
        problems.append(
            _problem(
                f'the field {field!r} must be text (at most {MAX_TEXT_CHARS} characters) or {{"secret": NAME}}',
                path,
            )
        )


def _named_by_steps(n8n: Mapping[str, Any]) -> set[tuple[str, str]]:
    """(type, name) of every credential a node of the compiled workflow names."""
    named = set()
    for node in n8n.get("nodes") or ():
        for type_, ref in (node.get("credentials") or {}).items():
            if isinstance(ref, Mapping) and isinstance(ref.get("name"), str):
                named.add((type_, ref["name"]))
    return named


def _problem(message: str, path: str = "credentials", hint: str | None = None) -> Diagnostic:
    return at_path(codes.INVALID_WORKFLOW_CREDENTIAL, message, path, hint)
