"""The REST and MCP servers (R05xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- server: requests and auth --------------------------------------------------------------
# The `type` and `code` of the problem+json bodies of `toolkiln serve` (src/toolkiln/server/).

MISSING_TOKEN = register(
    "R0501",
    "missing-token",
    "No bearer token",
    """
Every route of `toolkiln serve` but `GET /health` needs a token, sent as
`Authorization: Bearer <token>`. The answer is 401 with `WWW-Authenticate: Bearer`.
Create one with `toolkiln tokens create NAME --kind person|model|service --scope read|run|write|admin`.

    curl http://127.0.0.1:8765/api/v1/tools                               # error
    curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8765/api/v1/tools   # fixed
""",
)

INVALID_TOKEN = register(
    "R0502",
    "invalid-token",
    "Unknown or revoked token",
    """
The bearer token is not one the server knows: mistyped, from another registry folder, or
revoked (`toolkiln tokens revoke NAME` takes effect at once, on every server). The answer is
401. Tokens are stored only as their SHA-256, so a lost token cannot be shown again: create
a new one.
""",
)

INSUFFICIENT_SCOPE = register(
    "R0503",
    "insufficient-scope",
    "Token scope too narrow",
    """
The token is valid but its scope does not allow the route (403). Scopes include the ones
before them: `read` (list, show, export, check), `run` (execute and test tools), `write`
(create, change, delete, enable, disable, roll back, deploy), `admin` (approve, reject,
manage tokens). Use a token with a wider scope.
""",
)

RATE_LIMITED = register(
    "R0504",
    "rate-limited",
    "Too many requests",
    """
The token sent more requests than the server's rate limit allows (`toolkiln serve
--rate-limit`, 600 a minute by default, counted per token). The answer is 429 with a
`Retry-After` header giving the seconds to wait.
""",
)

REQUEST_TOO_LARGE = register(
    "R0505",
    "request-too-large",
    "Request body too large",
    """
The request body is larger than the server accepts (`toolkiln serve --max-body-bytes`,
1 MiB by default). The server stops reading at the limit and answers 413. A tool
definition may be at most 256 KB anyway (E0401).
""",
)

INVALID_BODY = register(
    "R0506",
    "invalid-body",
    "Request does not match the API",
    """
The request's body, query or path does not have the shape the route takes: not JSON, a
missing or unknown field, a wrong type, a value out of range. The answer is 422 and each
diagnostic's `path` names the field (`body.args`, `query.limit`). The OpenAPI document
(`GET /openapi.json`) gives every route's shape.

    {"arguments": {"x": 1}}     # error: execute takes `args`
    {"args": {"x": 1}}          # fixed
""",
)

NO_SUCH_ROUTE = register(
    "R0507",
    "no-such-route",
    "No such route",
    """
No route has this path (404), or the path does not take this method (405). The routes
are listed in docs/server.md and in `GET /openapi.json`; the toolkiln API is under
`/api/v1`, the seed-compatible one under `/api/tools`.
""",
)

INTERNAL_ERROR = register(
    "R0508",
    "internal-error",
    "Internal server error",
    """
The server failed in a way it does not expect (a bug). The answer is 500 with no stack
trace; the server's log has the details. Please report it with the request that caused it.
A meta-tool call or an Outcome that met such a failure has this code too, with the error's
type and text.
""",
)

TOKEN_EXISTS = register(
    "R0509",
    "token-exists",
    "Token name taken",
    """
A token of that name exists already. Token names identify tokens in audit lines, so each
is used once at a time: revoke the old token first, or choose another name.
""",
)

TOKEN_NOT_FOUND = register(
    "R0510",
    "token-not-found",
    "No such token",
    """
No token has that name. `toolkiln tokens list` (or `GET /api/v1/tokens`) shows them.
""",
)

TOKEN_NAME_INVALID = register(
    "R0511",
    "invalid-token-name",
    "Invalid token name or scope",
    """
A token name is 1 to 64 letters, digits, `_`, `.` or `-`, starting with a letter or digit;
a scope is `read`, `run`, `write` or `admin`.

    toolkiln tokens create "my token" --kind service --scope run     # error: a space
    toolkiln tokens create ci-runner --kind service --scope run      # fixed
""",
)

TOKEN_STORE_ERROR = register(
    "R0512",
    "token-store-error",
    "Token file unusable",
    """
The server's token file (`tokens.json` in the server's state folder, see `toolkiln serve
--state-dir`) cannot be read or written: it was edited by hand into something that is not the
file toolkiln writes, it is a symbolic link (never followed), its folder is not writable, or
its lock was held for more than 10 seconds. Fix or delete the file (then create the tokens
again).
""",
)

TOO_MANY_EVENT_STREAMS = register(
    "R0519",
    "too-many-event-streams",
    "Too many event streams",
    """
`/api/v1/events` holds a connection open for as long as its client listens, so a server keeps
at most 8 streams at once (Server-Sent Events and WebSockets, every client together). The
ninth is refused with 503 and `Retry-After`; a stream's slot is freed when its client goes.
Close streams you no longer read, or share one stream between the parts of a program.
""",
)

STATE_FOLDER_UNSAFE = register(
    "R0530",
    "state-folder-unsafe",
    "Server state folder not private",
    """
A server keeps its tokens, its web page's secret and its request log in a state folder of its
operator's (by default `$XDG_STATE_HOME/toolkiln/servers/<hash of the registry's path>/`, or
`--state-dir DIR`), never in the registry folder. The folder must be a real folder (not a
symbolic link), owned by the user the server runs as, and writable by no one else; it is made
with mode 0700. Whoever could write it could give themselves a token.

    toolkiln serve --state-dir /tmp                    # error: /tmp is writable by everyone
    toolkiln serve --state-dir ~/.local/state/my-srv   # fixed: made 0700 on first use
""",
)

CANNOT_LISTEN = register(
    "R0531",
    "cannot-listen",
    "Server cannot listen",
    """
`toolkiln serve` (and `toolkiln mcp --http`) binds its address and port before it starts, and
stops with exit code 1 when it cannot: another program (often another `toolkiln serve`)
listens on the port already, or `--host` names an address this machine does not have. Stop
the other server, or choose another port.

    toolkiln serve --port 8765   # error: a server already listens on 8765
    toolkiln serve --port 8800   # fixed
""",
)

MALFORMED_REQUEST = register(
    "R0532",
    "malformed-request",
    "Request is not readable HTTP",
    """
The HTTP server could not read the request itself: a header name or value with characters
HTTP does not allow (a control character, a space in a name), a broken request line or
chunk. It answers 400 before any route sees the request, and closes the connection. Send
headers as HTTP/1.1 defines them; a client library does.

    Authorization: Bearer tk_...\x01   # error: a control character in a header
    Authorization: Bearer tk_...       # fixed
""",
)
