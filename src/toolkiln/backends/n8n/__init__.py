"""The n8n backend. `catalog` holds the generated node catalog (types, typeVersions, parameters).

Nothing here is imported by `import toolkiln`; import `toolkiln.backends.n8n.catalog` when needed.
"""
