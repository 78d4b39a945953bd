"""`toolkiln lsp`: a language server for tool files (.tk, .json) and workflows (.wf), on pygls.

It reports what `toolkiln check` reports as the document is edited (toolkiln.documents, the one
function both call), offers each certain fix as a quick fix, hovers builtins and variables,
completes builtins and names in scope, formats as `toolkiln fmt` does and goes to the file of a
called tool. It reads files and a registry folder; it never runs a tool or anything a document
says (docs/editors.md#the-language-server).

Only `server` imports pygls; the other modules take the document's text and answer lsprotocol
types, so they are tested without a client.
"""
