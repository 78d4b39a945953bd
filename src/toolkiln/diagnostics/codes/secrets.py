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

CREDENTIALS_LEFT_IN_N8N = register(
    "R0746",
    "credentials-left-in-n8n",
    "A deploy that failed left credentials toolkiln made in n8n",
    """
A deploy makes the workflow's credentials first, then saves the workflow. When n8n refuses a
step halfway (a 500, a key revoked meanwhile: 401), toolkiln deletes the credentials it made
before it reports the failure. When n8n refuses that too, the error names each credential it
could not delete, by id and name: delete them in n8n (Credentials), or deploy again once n8n
answers, and fix what n8n's message says.
""",
)

CREDENTIAL_NOT_MADE_HERE = register(
    "W0747",
    "credential-not-made-here",
    "A workflow refers to a credential by an id toolkiln did not make for it",
    """
A workflow file (an n8n export, say) may refer to a credential by its id in some n8n. toolkiln
leaves such a reference as it is: on the server it is deployed to, that id is another
credential, or none (then n8n fails the node at run time). Name the credential instead
(`credentials TYPE "name"` in a `.wf` file, or an id of `null` with its name in JSON), or let
toolkiln make it from a secret with `toolkiln n8n deploy FILE --credentials CREDS.json`.
""",
)

SECRET_NOT_A_HEADER_VALUE = register(
    "R0748",
    "secret-not-a-header-value",
    "A secret that becomes an HTTP header must be printable ASCII",
    """
An n8n credential of type `httpHeaderAuth` (its `name` and `value`) or `httpBearerAuth` (its
`token`) is sent as an HTTP header. n8n does not send every value as it is: measured on n8n
2.41.1, a line break is dropped (`line1\\nline2` arrives as `line1line2`), a character beyond
Latin-1 is dropped, and a Latin-1 letter (`é`) arrives as one byte, not as UTF-8. The server
would get another key than the one set, so the deploy is refused before anything is sent: set
the secret again with printable ASCII only (a key read from a file often ends in a newline).
The value is never shown; the error says which secret and which character position.
""",
)

SECRETS_KEY_MISSING = register(
    "R0749",
    "secrets-key-missing",
    "A registry in a database needs the secrets key its fleet shares",
    """
A registry in PostgreSQL keeps its secrets in the database, sealed under a key that is never in
the database and that every machine of the fleet is given: `$TOOLKILN_SECRET_KEY` (32 bytes in
URL-safe base64) or `$TOOLKILN_SECRET_KEY_FILE` (a file of those 32 bytes, like the state
folder's `secrets.key`). This process has neither, so it reads and sets no secret (the names
are still listed): give it the fleet's key. A key is never made at random for a database, since
the other machines could not read what it sealed.
""",
)

SECRETS_KEY_WRONG = register(
    "R0754",
    "secrets-key-wrong",
    "This process's secrets key is not the one the database's secrets are sealed under",
    """
The first secret set in a database's registry seals a check value with the fleet's key; a
process whose `$TOOLKILN_SECRET_KEY` (or `$TOOLKILN_SECRET_KEY_FILE`) is another key is refused
before it reads a value or writes one that the other machines could not read. Give it the
fleet's key. To change the key of a fleet, set every secret again under the new one after
emptying `toolkiln_secrets` and `toolkiln_secrets_key` (docs/fleets.md).
""",
)
