"""Credentials a caller makes in n8n and keeps by id: made, updated in place, deleted, and
never one it did not make (another credential of the same name is left alone).

    made = put_credentials(client, [Wanted("crm", "httpHeaderAuth", "toolkiln sync: crm", data)], owned)
    made["crm"]                                   # its id: keep it, and pass it as `owned` next time
    delete_credentials(client, made.values())

    deployed, made = deploy_bound(client, workflow, wanted, owned, save)   # both at once

`deploy_bound` is the one deploy with credentials: a registry's workflow tool (the ids kept in
its signed record) and `toolkiln n8n deploy FILE --credentials` (the ids its workflow of that
name refers to) both go through it.

n8n 2.x updates a credential in place (PATCH); n8n 1.x has no such route, so there the new
credential is made and the old one deleted. The data (secret values) goes into the request's
body and nowhere else: an error's message has every value replaced (`[redacted]`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.deploy import Deployed, deploy, find_workflow
from toolkiln.n8n.errors import (
    CredentialFieldUnknown,
    CredentialsLeft,
    N8nError,
    N8nHTTPError,
    N8nNotFound,
    UnknownWorkflow,
)

_NO_UPDATE_ROUTE = (404, 405)  # n8n 1.x's answer to PATCH /credentials/{id}; 2.x: the id is gone


@dataclass(frozen=True)
class Wanted:
    """A credential as the caller wants it: its key (the caller's name for it), n8n type, name
    in n8n and data (which holds secret values: never shown)."""

    key: str
    type: str
    name: str
    data: Mapping[str, str] = field(repr=False)


def put_credentials(client: N8nClient, wanted: Sequence[Wanted], owned: Mapping[str, str]) -> dict[str, str]:
    """Make or update each wanted credential; delete the `owned` ones (key -> id, made by an
    earlier call) no longer wanted. Returns key -> id of the wanted ones. When something fails,
    the credentials this call made are deleted again before the error is raised."""
    check_fields(client, wanted)
    made: dict[str, str] = {}
    fresh: dict[str, str] = {}  # key -> id of each credential this call made
    with _scrubbed([value for want in wanted for value in want.data.values()]):
        try:
            for want in wanted:
                made[want.key] = _put(client, want, owned.get(want.key), fresh)
        except N8nError as error:
            _undo(client, fresh, _names(wanted), error)
        delete_credentials(client, [cid for key, cid in owned.items() if key not in made], quietly=True)
    return made


def check_fields(client: N8nClient, wanted: Sequence[Wanted]) -> None:
    """CredentialFieldUnknown (R0745) for a field that n8n's schema of the credential's type
    does not have, before anything is made (n8n would refuse it with 400 halfway). A type n8n
    does not know is left to the create, which says so."""
    for type_ in dict.fromkeys(want.type for want in wanted):
        try:
            schema = client.credential_schema(type_)
        except N8nNotFound:
            continue
        fields = schema.get("properties")
        if schema.get("additionalProperties") is not False or not isinstance(fields, Mapping):
            continue
        for want in wanted:
            unknown = sorted(set(want.data) - set(fields)) if want.type == type_ else []
            if unknown:
                raise CredentialFieldUnknown(
                    f"the credential {want.key!r} has the field {unknown[0][:64]!r}, which n8n's {type_} does not "
                    f"have; nothing was made",
                    url=client.base_url,
                    hint=f"its fields: {', '.join(sorted(str(f) for f in fields)[:20])}",
                )


def _names(wanted: Sequence[Wanted]) -> dict[str, str]:
    return {want.key: want.name for want in wanted}


def _undo(client: N8nClient, made: Mapping[str, str], names: Mapping[str, str], error: N8nError) -> None:
    """Delete the credentials a failed deploy made (key -> id), then raise `error`;
    CredentialsLeft (R0746) with `error`'s message when n8n would not delete some."""
    left = delete_credentials(client, made.values(), quietly=True)
    if not left:
        raise error
    labels = {cid: names.get(key, key) for key, cid in made.items()}
    message = f"{error.message}; the credentials this deploy made could not be deleted again"
    raise _left(message, left, labels, status=error.status, url=error.url) from None


def _left(message: str, left: list[str], labels: Mapping[str, str], *, status: int | None, url: str | None) -> N8nError:
    """R0746: `message`, then each credential left in n8n by id and name."""
    shown = ", ".join(f"id {cid} ({labels.get(cid, 'toolkiln')!r})" for cid in left)
    hint = "delete them in n8n (Credentials), or deploy again once n8n answers"
    return CredentialsLeft(f"{message}: {shown}", status=status, url=url, hint=hint)


def _put(client: N8nClient, want: Wanted, owned_id: str | None, fresh: dict[str, str]) -> str:
    if owned_id is not None:
        try:
            client.update_credential(owned_id, want.name, want.data)
            return owned_id
        except N8nHTTPError as error:
            if error.status not in _NO_UPDATE_ROUTE:
                raise
    made = str(client.create_credential(want.name, want.type, want.data)["id"])
    fresh[want.key] = made
    if owned_id is not None:
        delete_credentials(client, [owned_id], quietly=True)  # (n8n 1.x: the one replaced)
    return made


def delete_credentials(client: N8nClient, ids: Iterable[str], *, quietly: bool = False) -> list[str]:
    """Delete credentials by id; one already gone is fine. With `quietly`, a failure leaves it
    in n8n (a clean-up must not hide the error that called it): the ids left are returned."""
    left = []
    for credential_id in ids:
        try:
            client.delete_credential(credential_id)
        except N8nNotFound:
            pass
        except N8nError:
            if not quietly:
                raise
            left.append(credential_id)
    return left


@contextmanager
def _scrubbed(values: Sequence[str]) -> Iterator[None]:
    """n8n's error messages with every one of `values` replaced: a server that echoes a
    refused field cannot carry a secret into toolkiln's output."""
    try:
        yield
    except N8nError as error:
        message, hint = _without(error.message, values), _without(error.hint, values)
        if (message, hint) == (error.message, error.hint) and error.body is None:
            raise
        raise type(error)(message, status=error.status, method=error.method, url=error.url, hint=hint) from None


def _without(text: Any, values: Sequence[str]) -> Any:
    if not isinstance(text, str):
        return text
    for value in sorted(values, key=len, reverse=True):
        if value:
            text = text.replace(value, "[redacted]")
    return text


def deploy_bound(
    client: N8nClient,
    workflow: Mapping[str, Any],
    wanted: Sequence[Wanted],
    owned: Mapping[str, str],
    save: Callable[[dict[str, Any]], Deployed],
) -> tuple[Deployed, dict[str, str]]:
    """Make or update the wanted credentials (`put_credentials`), then `save` the workflow with
    each step that names one (by type and key) referring to it by id. When saving fails, the
    credentials this call made are deleted again. The deployed workflow and key -> id."""
    made = put_credentials(client, wanted, owned)
    refs = {(want.type, want.key): (made[want.key], want.name) for want in wanted}
    try:
        deployed = save(bound(workflow, refs))
    except N8nError as error:
        _undo(client, {key: cid for key, cid in made.items() if cid not in owned.values()}, _names(wanted), error)
    return deployed, made


def bound(n8n: Mapping[str, Any], ids: Mapping[tuple[str, str], tuple[str, str]]) -> dict[str, Any]:
    """The workflow with each node's credential (type, key) found in `ids` referring to the
    credential toolkiln made, by its (id, name); every other credential left as it is."""
    nodes = []
    for node in n8n.get("nodes") or ():
        refs = node.get("credentials")
        if isinstance(refs, Mapping):
            refs = {
                type_: _ref(ids.get((type_, str(ref.get("name")))), ref) if isinstance(ref, Mapping) else ref
                for type_, ref in refs.items()
            }
            node = {**node, "credentials": refs}
        nodes.append(node)
    return {**n8n, "nodes": nodes}


def _ref(made: tuple[str, str] | None, ref: Mapping[str, Any]) -> Mapping[str, Any]:
    return ref if made is None else {"id": made[0], "name": made[1]}


def deploy_named(
    client: N8nClient, workflow: Mapping[str, Any], wanted: Sequence[Wanted], prefix: str, *, activate: bool
) -> tuple[Deployed, dict[str, str]]:
    """`deploy` by name with credentials (`deploy_bound`). The credentials toolkiln made for
    the workflow of that name are the ones it refers to by a name starting with `prefix`: each
    still wanted (same key and type) is updated in place; the others are deleted once the new
    workflow is saved, unless it still refers to them. No other credential is touched."""
    try:
        existing = find_workflow(client, str(workflow.get("name")))
    except UnknownWorkflow:
        existing = {}
    earlier = {
        name[len(prefix) :]: (type_, cid) for _, type_, name, cid in refs_by_id(existing) if name.startswith(prefix)
    }
    types = {want.key: want.type for want in wanted}
    owned = {key: cid for key, (type_, cid) in earlier.items() if types.get(key) == type_}
    deployed, made = deploy_bound(
        client, workflow, wanted, owned, lambda ready: deploy(client, ready, activate=activate)
    )
    kept = {cid for *_, cid in refs_by_id(workflow)} | set(made.values())
    left = delete_credentials(client, {cid for _, cid in earlier.values()} - kept, quietly=True)
    if left:
        done = (
            f"deployed {deployed.name!r} (id {deployed.id}), but the credentials it no longer uses could not be deleted"
        )
        raise _left(
            done, left, {cid: prefix + key for key, (_, cid) in earlier.items()}, status=None, url=client.base_url
        )
    return deployed, made


def refs_by_id(workflow: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(node, type, name, id) of each credential a node of `workflow` refers to by an id."""
    for node in workflow.get("nodes") or ():
        refs = node.get("credentials") if isinstance(node, Mapping) else None
        for type_, ref in (refs if isinstance(refs, Mapping) else {}).items():
            name, cid = (ref.get("name"), ref.get("id")) if isinstance(ref, Mapping) else (None, None)
            if isinstance(cid, str | int) and not isinstance(cid, bool) and str(cid):
                yield str(node.get("name")), str(type_), str(name), str(cid)
