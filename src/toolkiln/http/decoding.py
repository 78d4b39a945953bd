"""An answer's Content-Encoding undone within the size cap. httpx decodes each chunk whole
before anyone counts it, and decodes stacked encodings (`gzip, gzip`) one after the other: a
500-byte answer became 200 MB in one step, whatever the cap. Here one gzip or deflate layer
is undone at most `limit` + 1 bytes at a time, and anything else is refused unread."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx

ACCEPTED = "gzip, deflate"  # what the transport asks for: the encodings undone here
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class NotDecoded(Exception):
    """An encoding this module does not undo, or bytes that do not decode as it says."""


def decoded(response: httpx.Response, limit: int) -> Iterator[bytes]:
    """The chunks of `response` with its Content-Encoding undone, none longer than `limit` + 1
    bytes (the caller counts them against its cap and stops reading past it)."""
    content_encoding = response.headers.get("Content-Encoding", "")
    layers = [part.strip().lower() for part in content_encoding.split(",") if part.strip()]
    layers = [layer for layer in layers if layer != "identity"]
    if not layers:
        yield from response.iter_bytes()  # nothing to decode
        return
    if len(layers) > 1 or layers[0] not in _WBITS:
        raise NotDecoded(f"the answer is encoded as {content_encoding[:60]!r}; toolkiln asks for {ACCEPTED}")
    inflate = zlib.decompressobj(_WBITS[layers[0]])
    try:
        for chunk in response.iter_raw():
            while chunk:
                yield inflate.decompress(chunk, limit + 1)
                chunk = inflate.unconsumed_tail
        yield inflate.flush()
    except zlib.error as error:
        raise NotDecoded(f"the answer's {layers[0]} does not decode: {error}") from None
