"""`toolkiln serve`: the registry over HTTP (docs/server.md).

    from toolkiln.server.app import create_app
    from toolkiln.server.services import Settings
    app = create_app(Settings(registry=Path("tools")))   # any ASGI server runs it

The REST API (routes/), bearer tokens stored hashed (tokens.py), scopes and rate limits
(auth.py, ratelimit.py), problem+json errors (problems.py).
"""
