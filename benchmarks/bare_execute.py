"""The yardstick of bench_server.py: a bare FastAPI endpoint doing what an execute of the
benchmark's tool does, with nothing of toolkiln (issue 25, item 7).

    python benchmarks/bare_execute.py PORT      # the token in BARE_TOKEN

The same route and body as `POST /api/v1/tools/{name}/execute`, a bearer token compared as
toolkiln does (its SHA-256, in constant time), `round(x * 1.2 + 3.5, 2)` in Decimal, and the
answer toolkiln gives; a plain `def` endpoint (one worker thread hop, as a run takes), served by
uvicorn as `toolkiln serve` serves. A script, not a test.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import sys
from decimal import Decimal
from typing import Any

import uvicorn
from fastapi import FastAPI, Header, HTTPException
from pydantic import BaseModel

app = FastAPI()
_DIGEST = hashlib.sha256(os.environ.get("BARE_TOKEN", "").encode()).digest()


class Body(BaseModel):
    args: dict[str, Any]


@app.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/api/v1/tools/{name}/execute")
def execute(name: str, body: Body, authorization: str = Header("")) -> Any:
    presented = authorization.removeprefix("Bearer ").encode()
    if not hmac.compare_digest(hashlib.sha256(presented).digest(), _DIGEST):
        raise HTTPException(401)
    x = Decimal(str(body.args["x"]))
    return {"tool": name, "version": 1, "result": float(round(x * Decimal("1.2") + Decimal("3.5"), 2))}


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="info", access_log=False)
