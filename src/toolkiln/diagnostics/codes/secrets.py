"""Secrets that tools use and models never see (R074x)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

INVALID_SECRET_NAME = register(
    "R0740",
    "invalid-secret-name",
    "A secret's name must be an upper-case environment variable name",
    """
A secret reaches a tool as an environment variable, so its name is one: an upper-case letter,
then up to 63 upper-case letters, digits or `_` (`WEATHER_API_KEY`). Rename it.
""",
)

SECRET_UNREADABLE = register(
    "R0741",
    "secret-unreadable",
    "A stored secret cannot be decrypted with this key",
    """
Secret values are encrypted with a key kept outside the registry folder (`$TOOLKILN_SECRET_KEY`,
else `secrets.key` in toolkiln's state folder). A registry folder copied to another user or
machine carries the encrypted values but not the key, so they cannot be read there: set the
secret again with `toolkiln secrets set NAME`, or give this process the key the values were
written with.
""",
)

SECRET_MISSING = register(
    "R0742",
    "secret-missing",
    "A secret the tool needs is not set",
    """
A tool declares the secrets it needs (`"secrets": ["WEATHER_API_KEY"]`) and gets their values
as environment variables in its sandbox. When one is not set in the registry, the tool is
refused before it runs: a person sets it (`toolkiln secrets set WEATHER_API_KEY`, or the REST
route for admins). A model can declare a secret but never read or set one.
""",
)

SECRET_NOT_FOUND = register(
    "R0743",
    "secret-not-found",
    "No secret of that name is set",
    """
The secret asked for (to delete it, over REST or `toolkiln secrets delete`) is not set in this
registry. List the secrets' names (`toolkiln secrets list`, `GET /api/v1/secrets`) to see
which are.
""",
)

INVALID_SECRET_VALUE = register(
    "R0744",
    "invalid-secret-value",
    "A secret's value must be text of 1 to 65,536 characters that an environment variable can hold",
    """
A secret's value reaches a tool as an environment variable, which cannot hold a NUL character
or a lone UTF-16 surrogate (`\\ud800` in JSON), and an empty one is a mistake rather than a
key: a value is UTF-8 text of 1 to 65,536 characters without either. Before this check such
a value was stored, and the tool failed when it ran. Set the value again without it (a key
read from a file often ends in a newline: `toolkiln secrets set` drops one final newline).
""",
)

INVALID_WORKFLOW_CREDENTIAL = register(
    "R0745",
    "invalid-workflow-credential",
    "A workflow tool's credential must be used by a step and fill its secret fields from declared secrets",
    """
A workflow tool gets an n8n credential made from the registry's secrets when it is deployed:
it declares the secrets (`"secrets": ["CRM_API_KEY"]`) and, under `credentials`, each credential
a step names (`credentials httpHeaderAuth "crm"` in the workflow) with its type and fields,
a field being text or `{"secret": "CRM_API_KEY"}`:
`"credentials": {"crm": {"type": "httpHeaderAuth", "name": "X-Api-Key", "value": {"secret": "CRM_API_KEY"}}}`.
A credential no step names with that type, a field that names an undeclared secret, a
credential without a secret field, or a declared secret no credential uses is refused: each is
a mistake that would otherwise show only in n8n, at run time.
""",
)
