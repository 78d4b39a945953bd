"""Workflow checking: the step graph, names, data flow, wiring and generic nodes against a
node catalog (handed in as a `NodeCatalog`). Returns diagnostics, never raises."""
