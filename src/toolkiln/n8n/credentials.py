"""Credentials a caller makes in n8n and keeps by id: made, updated in place, deleted, and
never one it did not make (another credential of the same name is left alone).

    made = put_credentials(client, [Wanted("crm", "httpHeaderAuth", "toolkiln sync: crm", data)], owned)
    made["crm"]                                   # its id: keep it, and pass it as `owned` next time
    delete_credentials(client, made.values())

n8n 2.x updates a credential in place (PATCH); n8n 1.x has no such route, so there the new
credential is made and the old one deleted. The data (secret values) goes into the request's
body and nowhere else: an error's message has every value replaced (`[redacted]`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.errors import N8nError, N8nHTTPError, N8nNotFound

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
    made: dict[str, str] = {}
    fresh: list[str] = []
    with _scrubbed([value for want in wanted for value in want.data.values()]):
        try:
            for want in wanted:
                made[want.key] = _put(client, want, owned.get(want.key), fresh)
        except N8nError:
            delete_credentials(client, fresh, quietly=True)
            raise
        delete_credentials(client, [cid for key, cid in owned.items() if key not in made], quietly=True)
    return made


def _put(client: N8nClient, want: Wanted, owned_id: str | None, fresh: list[str]) -> str:
    if owned_id is not None:
        try:
            client.update_credential(owned_id, want.name, want.data)
            return owned_id
        except N8nHTTPError as error:
            if error.status not in _NO_UPDATE_ROUTE:
                raise
    made = str(client.create_credential(want.name, want.type, want.data)["id"])
    fresh.append(made)
    if owned_id is not None:
        delete_credentials(client, [owned_id], quietly=True)  # (n8n 1.x: the one replaced)
    return made


def delete_credentials(client: N8nClient, ids: Iterable[str], *, quietly: bool = False) -> None:
    """Delete credentials by id; one already gone is fine. With `quietly`, a failure leaves it
    in n8n (a clean-up must not hide the error that called it)."""
    for credential_id in ids:
        try:
            client.delete_credential(credential_id)
        except N8nNotFound:
            pass
        except N8nError:
            if not quietly:
                raise


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
