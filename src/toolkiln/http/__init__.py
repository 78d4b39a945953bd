"""The one HTTP transport under toolkiln's clients of other servers (model providers, n8n).

`transport.Transport` sends a request and reads its answer: a deadline for each attempt's
whole exchange, retries with backoff (only failures before anything was sent, unless the
caller's `RetryPolicy` says the request may be sent again), a size cap checked while the body
streams in, and credentials kept out of every message, error and log line (`urls`). Its
failures are `errors.HTTPError`s; each client turns them into its own documented errors,
which share `errors.ServiceError`'s message and dictionary shape.
It knows nothing of the compiler: it imports only `toolkiln.errors` and httpx.
"""
