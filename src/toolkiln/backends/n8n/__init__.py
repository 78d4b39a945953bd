"""The n8n backend. `catalog` holds the generated node catalog (types, typeVersions, parameters).

Nothing here is imported by `import toolkiln`; import `toolkiln.backends.n8n.catalog` when needed.
The default release is named here, so that a command line can say it without loading a catalog.
"""

# One catalog per n8n release, `data/catalog-<n8n version>.zip`: the release the
# integration tests run (the default) and the newest on the npm registry when it was extracted.
DEFAULT_N8N_VERSION = "2.41.1"
