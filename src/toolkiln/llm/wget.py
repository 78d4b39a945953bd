"""`wget(uri, timeoutMs)`: one HTTP GET for a model, guarded against server-side request forgery.

    wget("https://example.com", 5000)                    # the page's text
    wget("http://169.254.169.254/latest/meta-data", 500) # "wget failed: ... link-local ..."
    wget("http://127.0.0.1:8000/", 500, allow=["127.0.0.1/32"])   # a test's own server

GET only, with a deadline for the whole exchange, a byte cap, text answers only, and at most
MAX_REDIRECTS redirects. The host is resolved here and every address it has is checked:
loopback, private, link-local (cloud metadata), shared, multicast and reserved ranges are
refused, as are public IPv6 forms that embed such an IPv4 address, unless `allow` names
their network. The request then goes to the checked address itself (the name is kept for
the Host header and TLS), so a DNS answer that changes between the check and the connection
(rebinding) cannot redirect it; each redirect's target is checked the same way. Proxies from
the environment are ignored: a proxy would resolve the name itself.

A failure is never raised: it comes back as text starting with `wget failed:`, for the model.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal

import httpx

DEFAULT_TIMEOUT_MS = 5000
MAX_TIMEOUT_MS = 60_000
DEFAULT_MAX_BYTES = 100_000
MAX_REDIRECTS = 3
FAILED = "wget failed: "

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Allowed = Sequence[str | Network]
Resolver = Callable[[str, int], Sequence[str]]
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # public in Python's tables, yet it reaches IPv4
_TEXT_TYPES = {"application/json", "application/xml", "application/javascript", "application/x-ndjson"}
_REDIRECTS = {301, 302, 303, 307, 308}


class _Failed(Exception):
    """Why the fetch stopped: becomes the text the model reads."""


def wget(
    uri: object,
    timeout_ms: object = DEFAULT_TIMEOUT_MS,
    *,
    allow: Allowed = (),
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_redirects: int = MAX_REDIRECTS,
    resolve: Resolver | None = None,
) -> str:
    """The text at `uri`, or `wget failed: <why>`. `timeout_ms` bounds the whole exchange
    (1 to MAX_TIMEOUT_MS); a body longer than `max_bytes` is cut there, with a note saying so.
    `resolve(host, port)` gives a host's addresses (default: the system resolver)."""
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
    deadline = time.monotonic() + seconds
    url = _checked_url(uri)
    with httpx.Client(trust_env=False, follow_redirects=False) as client:
        for redirects in range(max_redirects + 1):
            answer = _get(client, url, _checked_address(url, allowed, resolve), max_bytes, deadline, seconds)
            if isinstance(answer, str):
                return answer
            if redirects == max_redirects:
                break
            url = answer
    raise _Failed(f"more than {max_redirects} redirects; the last one went to {_shown(url)}")


def _get(
    client: httpx.Client, url: httpx.URL, address: IPAddress, max_bytes: int, deadline: float, seconds: float
) -> str | httpx.URL:
    """The text at `url`, fetched from `address`; or where it redirects to (checked as a URL)."""
    request = client.build_request(
        "GET",
        url.copy_with(host=str(address)),
        headers={"Host": url.netloc.decode("ascii"), "Accept": "text/*, application/json;q=0.9"},
        extensions={"sni_hostname": url.raw_host.decode("ascii")} if url.scheme == "https" else {},
        timeout=_left(deadline, seconds),
    )
    try:
        response = client.send(request, stream=True)
        try:
            location = response.headers.get("location")
            if response.status_code not in _REDIRECTS or location is None:
                return _text(response, url, max_bytes, deadline, seconds)
        finally:
            response.close()
    except httpx.TimeoutException:
        raise _Failed(f"no complete answer from {_shown(url)} within {_ms(seconds)}") from None
    except httpx.HTTPError as error:
        raise _Failed(f"{_shown(url)}: {error or type(error).__name__}") from None
    try:
        target = url.join(location)
    except httpx.InvalidURL:
        raise _Failed(f"{_shown(url)} redirects to a bad address: {location[:80]!r}") from None
    return _checked_url(str(target))


def _checked_url(uri: object) -> httpx.URL:
    if not isinstance(uri, str):
        raise _Failed(f"uri must be a string, not {type(uri).__name__}")
    try:
        url = httpx.URL(uri.strip())
    except httpx.InvalidURL as error:
        raise _Failed(f"not a valid address: {error}") from None
    if url.scheme not in ("http", "https"):
        raise _Failed(f"only http and https addresses can be fetched, not {uri[:80]!r}")
    if not url.host:
        raise _Failed(f"the address has no host: {uri[:80]!r}")
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
        refusal = _refusal(address, allowed)
        if refusal is not None:
            raise _Failed(f"{host[:80]} is at {address}, {refusal}: refused (server-side request forgery)")
    return addresses[0]


def _refusal(address: IPAddress, allowed: list[Network]) -> str | None:
    """Why `address` must not be reached, or None."""
    if any(address in network for network in allowed if network.version == address.version):
        return None
    for inner in _embedded(address):
        if any(inner in network for network in allowed if network.version == 4):
            return None
        if _refusal(inner, allowed) is not None:
            return f"which carries {inner}, {_refusal(inner, allowed)}"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    if address.is_private:
        return "a private address"
    if address.is_multicast or address.is_reserved or address.is_unspecified or not address.is_global:
        return "not a public address"
    return None


def _embedded(address: IPAddress) -> Iterator[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address reaches: mapped, 6to4 and NAT64 forms."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            yield address.ipv4_mapped
        if address.sixtofour is not None:
            yield address.sixtofour
        if address in _NAT64:
            yield ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)


def _system_resolve(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def _text(response: httpx.Response, url: httpx.URL, max_bytes: int, deadline: float, seconds: float) -> str:
    if response.status_code >= 400:
        raise _Failed(f"{_shown(url)} answered HTTP {response.status_code} {response.reason_phrase}")
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind and not _is_text(kind):
        raise _Failed(f"{_shown(url)} sent {kind}, not text")
    body, cut = bytearray(), False
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            del body[max_bytes:]
            cut = True
            break
        if time.monotonic() > deadline:
            raise _Failed(f"no complete answer from {_shown(url)} within {_ms(seconds)}")
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


def _left(deadline: float, seconds: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Failed(f"no complete answer within {_ms(seconds)}")
    return left


def _shown(url: httpx.URL) -> str:
    text = str(url.copy_with(query=None, fragment=None))
    return text if len(text) <= 100 else text[:97] + "..."


def _ms(seconds: float) -> str:
    return f"{round(seconds * 1000):,} ms"
