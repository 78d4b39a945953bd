"""Talking to a running n8n: `client` (its public API and webhooks), `deploy` (by name, or a
tool's own workflow by id), `errors` (one hierarchy under `N8nError`).

This is infrastructure, not a backend: it knows nothing of the compiler and sits low in the
layers (see ARCHITECTURE.md). The n8n backend (`toolkiln.backends.n8n`) writes and reads the
workflow JSON these modules send. `import toolkiln` does not load it.
"""
