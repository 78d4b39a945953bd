"""The management web page of `toolkiln serve` (R0513-R0529)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- web page: sessions, forms ---------------------------------------------------------------
# Shown on the page (src/toolkiln/server/web/), never as a stack trace.

SIGN_IN_FAILED = register(
    "R0513",
    "sign-in-failed",
    "Sign-in refused",
    """
The token pasted into the web page's sign-in form is not one the server knows: mistyped,
from another registry folder, or revoked. The page signs in with a token of the REST API;
create one with `toolkiln tokens create NAME --kind person --scope admin` (admin approves and rejects
tools; `write` edits them; `read` only looks).
""",
)

SESSION_EXPIRED = register(
    "R0514",
    "session-expired",
    "Web session ended",
    """
The web page's session is over: it lasted its 8 hours, or the token it was made with was
revoked (or revoked and created again). Sign in again with a valid token.
""",
)

SESSION_TAMPERED = register(
    "R0515",
    "session-tampered",
    "Web session cookie not valid",
    """
The session cookie was not signed by this registry's servers: it was changed, or it was
made for another registry folder (each folder has its own secret, `.server/web-secret`,
read when a server starts). The cookie is dropped; sign in again.
""",
)

CSRF_FAILED = register(
    "R0516",
    "csrf-failed",
    "Form without its CSRF token",
    """
A form of the web page was posted without the anti-forgery token the page put in it, or
with another session's. Each form carries a token tied to the session (the synchronizer
pattern), so another site cannot post forms in a signed-in person's name. Reload the page
and post the form again; a form kept open across a sign-out needs a reload.
""",
)

FORM_VALUE_INVALID = register(
    "R0517",
    "form-value-invalid",
    "Test form value not valid",
    """
A value typed into the web page's test form cannot be the parameter's type: `abc` for a
number, `1.5` for an integer, text that is not JSON in a JSON field. The message names the
field (`weight_kg`, `items[2].qty`).

    weight_kg: twelve      # error
    weight_kg: 12          # fixed
""",
)

REASON_MISSING = register(
    "R0518",
    "reason-missing",
    "Rejection without a reason",
    """
Rejecting a tool on the web page needs a reason (up to 500 characters): it is kept in the
registry's audit line, so whoever wrote the tool (a person or a model) learns what to change.
""",
)
