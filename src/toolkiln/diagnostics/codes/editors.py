"""Editors: the language server, `toolkiln lsp` (R08xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

LSP_EXTRA_MISSING = register(
    "R0801",
    "lsp-extra-missing",
    "`toolkiln lsp` needs the lsp extra",
    """
The language server is built on pygls, an optional dependency: install toolkiln with the `lsp`
extra, `pip install 'toolkiln[lsp]'` (in a clone: `pip install -e '.[lsp]'`), then start it
again. Everything else toolkiln does works without it.
""",
)

LSP_MESSAGE_TOO_LARGE = register(
    "R0802",
    "lsp-message-too-large",
    "A message to the language server was too large and skipped",
    """
A message from the editor over 64 MiB (its `Content-Length` header) is read in chunks and
dropped unread, and the server goes on; a request in it gets no answer. The largest document
toolkiln checks is 1 MiB (E0401), so only a broken or hostile client sends such a message.
""",
)
