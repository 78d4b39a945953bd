"""`wget(uri, timeoutMs)`: one HTTP GET for a model, guarded against server-side request forgery.

    wget("https://example.com", 5000)                    # the page's text
    wget("http://169.254.169.254/latest/meta-data", 500) # "wget failed: [E0907] ... link-local ..."
    wget("http://127.0.0.1:8000/", 500, allow=["127.0.0.1/32"])   # a test's own server

GET only, with a deadline for the whole exchange, a byte cap, text answers only, and at most
MAX_REDIRECTS redirects. The host is resolved here and every address it has is checked
(`public_addresses.refusal`: global unicast only, unless `allow` names the network). The
connection then goes to the checked address itself, whatever the name would resolve to next
(the name is kept for the Host header and TLS), so a DNS answer that changes between the
check and the connection (rebinding) cannot redirect it; each redirect's target is checked
the same way. Every connect, TLS handshake, read and write waits at most until the deadline,
so a server that drips its answer a byte at a time is cut off there too. Proxies from the
environment are ignored: a proxy would resolve the name itself.

A failure is never raised: it comes back as text starting with `wget failed:` and its code
(E0907 refused address, E0908 anything else), for the model.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
import time
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal

import httpcore
import httpx

from toolkiln.diagnostics import codes
from toolkiln.http.deadline import DeadlineBackend, within
from toolkiln.http.decoding import ACCEPTED, NotDecoded, decoded
from toolkiln.http.urls import shown_url
from toolkiln.llm.public_addresses import IPAddress, Network, refusal

DEFAULT_TIMEOUT_MS = 5000
MAX_TIMEOUT_MS = 60_000
DEFAULT_MAX_BYTES = 100_000
MAX_REDIRECTS = 3
FAILED = "wget failed: "

Allowed = Sequence[str | Network]
Resolver = Callable[[str, int], Sequence[str]]
_TEXT_TYPES = {"application/json", "application/xml", "application/javascript", "application/x-ndjson"}
_REDIRECTS = {301, 302, 303, 307, 308}
_ENCODINGS = [(b"Accept-Encoding", ACCEPTED.encode())]  # what http.decoding undoes
# What a hostile or broken server can make the HTTP stack raise, besides a timeout.
_TRANSPORT_ERRORS = (
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpx.HTTPError,
    httpx.StreamError,
    OSError,
)


class _Failed(Exception):
    """Why the fetch stopped: becomes the text the model reads."""

    def __init__(self, why: str, code: codes.Code = codes.WGET_FAILED) -> None:
        super().__init__(f"[{code.code}] {why}")


def wget(
    uri: object,
    timeout_ms: object = DEFAULT_TIMEOUT_MS,
    *,
    allow: Allowed = (),
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_redirects: int = MAX_REDIRECTS,
    resolve: Resolver | None = None,
) -> str:
    """The text at `uri`, or `wget failed: [code] <why>`. `timeout_ms` bounds the whole
    exchange (1 to MAX_TIMEOUT_MS; a hanging system resolver is not cut off); a body longer than `max_bytes`
    is cut there, with a note saying so. `resolve(host, port)` gives a host's addresses
    (default: the system resolver)."""
    try:
        networks = [ipaddress.ip_network(network) for network in allow]
    except ValueError as error:  # the caller's mistake, not the model's: say it loudly
        raise ValueError(f"wget: allow holds a bad network: {error}") from None
    try:
        return _fetch(uri, _seconds(timeout_ms), networks, max_bytes, max_redirects, resolve or _system_resolve)
    except _Failed as failure:
        return FAILED + str(failure)


def _seconds(timeout_ms: object) -> float:
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int | float | Decimal):
        raise _Failed(f"timeoutMs must be a number of milliseconds, not {type(timeout_ms).__name__}")
    milliseconds = float(timeout_ms)
    if not 1 <= milliseconds <= MAX_TIMEOUT_MS:  # NaN too
        raise _Failed(f"timeoutMs must be between 1 and {MAX_TIMEOUT_MS}, not {timeout_ms}")
    return milliseconds / 1000


def _fetch(
    uri: object, seconds: float, allowed: list[Network], max_bytes: int, max_redirects: int, resolve: Resolver
) -> str:
    with within(seconds):
        return _fetch_within(_Deadline(seconds), uri, allowed, max_bytes, max_redirects, resolve)


def _fetch_within(
    deadline: _Deadline, uri: object, allowed: list[Network], max_bytes: int, max_redirects: int, resolve: Resolver
) -> str:
    url = _checked_url(uri)
    for redirects in range(max_redirects + 1):
        answer = _get(url, _checked_address(url, allowed, resolve), max_bytes, deadline)
        if isinstance(answer, str):
            return answer
        if redirects == max_redirects:
            break
        url = answer
    raise _Failed(f"more than {max_redirects} redirects; the last one went to {_shown(url)}")


def _get(url: httpx.URL, address: IPAddress, max_bytes: int, deadline: _Deadline) -> str | httpx.URL:
    """The text at `url`, fetched from `address`; or where it redirects to (checked as a URL)."""
    left = deadline.left(url)
    pool = httpcore.ConnectionPool(
        ssl_context=_ssl_context(),
        network_backend=DeadlineBackend(httpcore.SyncBackend(), pinned=str(address)),
        max_connections=1,
    )
    try:
        with (
            pool,
            pool.stream(
                "GET",
                httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
                headers=[(b"Host", url.netloc), (b"Accept", b"text/*, application/json;q=0.9"), *_ENCODINGS],
                extensions={"timeout": {"connect": left, "read": left, "write": left, "pool": left}},
            ) as raw,
        ):
            response = httpx.Response(raw.status, headers=raw.headers, stream=_Body(raw), extensions=raw.extensions)
            location = response.headers.get("location")
            if response.status_code not in _REDIRECTS or location is None:
                return _text(response, url, max_bytes, deadline)
    except httpcore.TimeoutException:
        raise _Failed(f"no complete answer from {_shown(url)} within {deadline}") from None
    except _TRANSPORT_ERRORS as error:
        raise _Failed(f"{_shown(url)}: {str(error)[:200] or type(error).__name__}") from None
    try:
        target = str(url.join(location))
    except (httpx.InvalidURL, ValueError):  # ValueError: an IDNA host that does not encode
        raise _Failed(f"{_shown(url)} redirects to a bad address: {location[:80]!r}") from None
    return _checked_url(target, redirected_from=url)


@functools.cache  # loading the CA bundle costs milliseconds; the context is not changed after
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context(trust_env=False)


def _checked_url(uri: object, redirected_from: httpx.URL | None = None) -> httpx.URL:
    """`uri` as an http(s) URL with a host and a port that can be connected to."""
    where = "" if redirected_from is None else f"{_shown(redirected_from)} redirects to a bad address: "
    if not isinstance(uri, str):
        raise _Failed(f"uri must be a string, not {type(uri).__name__}")
    try:
        url = httpx.URL(uri.strip())
        host, port = url.host, url.port  # decoding an IDNA host can fail (`xn--`)
    except (httpx.InvalidURL, ValueError) as error:
        raise _Failed(f"{where}not a valid address: {str(error)[:120]}") from None
    if url.scheme not in ("http", "https"):
        raise _Failed(f"{where}only http and https addresses can be fetched, not {uri[:80]!r}")
    if not host:
        raise _Failed(f"{where}the address has no host: {uri[:80]!r}")
    if port is not None and not 0 < port < 65536:
        raise _Failed(f"{where}the port of {uri[:80]!r} is out of range")
    return url


def _checked_address(url: httpx.URL, allowed: list[Network], resolve: Resolver) -> IPAddress:
    """The address to connect to, once every address of the host has passed the check."""
    host = url.host
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        try:
            addresses = [ipaddress.ip_address(address.split("%")[0]) for address in resolve(host, port)]
        except (OSError, UnicodeError) as error:
            raise _Failed(f"cannot resolve {host[:80]}: {getattr(error, 'strerror', None) or error}") from None
        except ValueError as error:
            raise _Failed(f"{host[:80]} resolves to a bad address: {error}") from None
    if not addresses:
        raise _Failed(f"{host[:80]} has no address")
    for address in addresses:
        why = refusal(address, allowed)
        if why is not None:
            raise _Failed(
                f"{host[:80]} is at {address}, {why}: refused (server-side request forgery)", codes.WGET_REFUSED
            )
    return addresses[0]


def _system_resolve(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


class _Deadline:
    """The moment the whole exchange must be over; `str()` says how long it was given."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.at = seconds, time.monotonic() + seconds

    def left(self, url: httpx.URL | None = None) -> float:
        """Seconds left, or _Failed when none are."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise _Failed("no complete answer" + (f" from {_shown(url)}" if url else "") + f" within {self}")
        return left

    def __str__(self) -> str:
        return f"{round(self.seconds * 1000):,} ms"


class _Body(httpx.SyncByteStream):
    """httpcore's body as httpx reads it (http.decoding then undoes gzip or deflate)."""

    def __init__(self, response: httpcore.Response) -> None:
        self.response = response

    def __iter__(self) -> Iterator[bytes]:
        yield from self.response.iter_stream()


def _text(response: httpx.Response, url: httpx.URL, max_bytes: int, deadline: _Deadline) -> str:
    if response.status_code >= 400:
        raise _Failed(f"{_shown(url)} answered HTTP {response.status_code} {response.reason_phrase}")
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind and not _is_text(kind):
        raise _Failed(f"{_shown(url)} sent {kind}, not text")
    body, cut = bytearray(), False
    try:  # gzip undone a cap's worth at a time: two layers of it made 200 MB of 500 bytes
        for chunk in decoded(response, max_bytes):
            body += chunk
            if len(body) > max_bytes:
                del body[max_bytes:]
                cut = True
                break
            deadline.left(url)
    except NotDecoded as error:
        raise _Failed(f"{_shown(url)}: {error}") from None
    if not kind and b"\0" in body:
        raise _Failed(f"{_shown(url)} sent binary data, not text")
    try:
        text = body.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know: read it as UTF-8, as browsers guess
        text = body.decode("utf-8", errors="replace")
    if cut:
        text += f"\n[wget: the answer was cut at {max_bytes:,} bytes; the rest was not read]"
    return text


def _is_text(kind: str) -> bool:
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml"))


def _shown(url: httpx.URL) -> str:
    text = shown_url(str(url.copy_with(query=None, fragment=None)))
    return text if len(text) <= 100 else text[:97] + "..."
