"""wget against a real HTTP server on 127.0.0.1 (allowed explicitly, as only a test would):
text, timeouts, oversize and binary bodies, redirects (to a refused address, too many), and the
address checks that stop server-side request forgery, DNS rebinding included."""

from __future__ import annotations

import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkiln.llm.wget import wget

LOCAL = ["127.0.0.1/32"]


class Handler(BaseHTTPRequestHandler):
    hosts: list[str] = []

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        Handler.hosts.append(self.headers.get("Host", ""))
        route = {
            "/text": lambda: self.answer(200, b"hello, world", "text/plain; charset=utf-8"),
            "/json": lambda: self.answer(200, b'{"a": 1}', "application/json"),
            "/gzip": self.gzipped,
            "/gzip-twice": lambda: self.gzipped(gzip.compress(gzip.compress(b"\0" * 50_000_000)), "gzip, gzip"),
            "/gzip-bomb": lambda: self.gzipped(gzip.compress(b"z" * 50_000_000)),
            "/latin1": lambda: self.answer(200, "café".encode("latin-1"), "text/plain; charset=iso-8859-1"),
            "/odd-charset": lambda: self.answer(200, "café".encode(), "text/plain; charset=x-unheard-of"),
            "/image": lambda: self.answer(200, b"\x89PNG\r\n\x1a\n", "image/png"),
            "/binary": lambda: self.answer(200, b"\x00\x01\x02", None),
            "/big": lambda: self.answer(200, b"a" * 3_000_000, "text/plain"),
            "/slow": self.slow,
            "/trickle": self.trickle,
            "/missing": lambda: self.answer(404, b"no", "text/plain"),
            "/to-text": lambda: self.redirect("/text"),
            "/to-metadata": lambda: self.redirect("http://169.254.169.254/latest/meta-data/"),
            "/to-private": lambda: self.redirect("http://10.0.0.7/admin"),
            "/to-file": lambda: self.redirect("file:///etc/passwd"),
            "/loop": lambda: self.redirect("/loop"),
        }.get(self.path)
        if route is None:
            self.answer(404, b"unknown", "text/plain")
        else:
            route()

    def do_POST(self) -> None:  # wget must never send one
        self.answer(405, b"GET only", "text/plain")

    def answer(self, status: int, body: bytes, kind: str | None) -> None:
        self.send_response(status)
        if kind:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def gzipped(self, body: bytes = gzip.compress(b"unpacked " * 10), encoding: str = "gzip") -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def slow(self) -> None:
        time.sleep(2)
        self.answer(200, b"late", "text/plain")

    def trickle(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "40")
        self.end_headers()
        try:
            for _ in range(40):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_text_json_and_charsets(base: str) -> None:
    assert wget(f"{base}/text", 2000, allow=LOCAL) == "hello, world"
    assert wget(f"{base}/json", 2000, allow=LOCAL) == '{"a": 1}'
    assert wget(f"{base}/latin1", 2000, allow=LOCAL) == "café"
    assert wget(f"{base}/odd-charset", 2000, allow=LOCAL) == "café"
    assert wget(f"{base}/gzip", 2000, allow=LOCAL) == "unpacked " * 10


def test_loopback_is_refused_unless_allowed(base: str) -> None:
    answer = wget(f"{base}/text", 2000)
    assert answer.startswith("wget failed: [E0907] 127.0.0.1 is at 127.0.0.1, a loopback address: refused")
    assert wget(f"{base}/text", 2000, allow=["10.0.0.0/8"]).startswith("wget failed:")


def test_a_timeout_is_text_for_the_model_and_ends_in_time(base: str) -> None:
    started = time.monotonic()
    assert (
        wget(f"{base}/slow", 300, allow=LOCAL)
        == f"wget failed: [E0908] no complete answer from {base}/slow within 300 ms"
    )
    assert time.monotonic() - started < 1.5


def test_a_trickling_body_stops_at_the_deadline(base: str) -> None:
    started = time.monotonic()
    assert wget(f"{base}/trickle", 500, allow=LOCAL).startswith("wget failed: [E0908] no complete answer")
    assert time.monotonic() - started < 1.5  # the body alone takes 4 s


def test_an_oversize_body_is_cut_at_the_cap_and_says_so(base: str) -> None:
    answer = wget(f"{base}/big", 5000, allow=LOCAL, max_bytes=1000)
    text, note = answer.split("\n", 1)
    assert text == "a" * 1000
    assert note == "[wget: the answer was cut at 1,000 bytes; the rest was not read]"


def test_a_compressed_body_is_cut_at_the_cap_and_stacked_encodings_are_refused(base: str) -> None:
    # Two gzip layers of 50 MB are 1 KB on the wire; httpx undid both before the cap was seen.
    twice = wget(f"{base}/gzip-twice", 5000, allow=LOCAL, max_bytes=1000)
    assert twice.startswith("wget failed: [E0908] ") and "encoded as 'gzip, gzip'" in twice, twice
    text, note = wget(f"{base}/gzip-bomb", 5000, allow=LOCAL, max_bytes=1000).split("\n", 1)
    assert (text, note) == ("z" * 1000, "[wget: the answer was cut at 1,000 bytes; the rest was not read]")


def test_non_text_is_refused(base: str) -> None:
    assert wget(f"{base}/image", 2000, allow=LOCAL) == f"wget failed: [E0908] {base}/image sent image/png, not text"
    assert wget(f"{base}/binary", 2000, allow=LOCAL) == f"wget failed: [E0908] {base}/binary sent binary data, not text"


def test_http_errors_are_text(base: str) -> None:
    assert (
        wget(f"{base}/missing", 2000, allow=LOCAL) == f"wget failed: [E0908] {base}/missing answered HTTP 404 Not Found"
    )


def test_an_address_with_a_password_is_quoted_without_it(base: str) -> None:
    with_password = base.replace("http://", "http://ada:pw-do-not-quote@")
    answer = wget(f"{with_password}/missing", 2000, allow=LOCAL)
    assert answer == f"wget failed: [E0908] {base}/missing answered HTTP 404 Not Found"


def test_redirects_are_followed_and_each_target_is_checked(base: str) -> None:
    assert wget(f"{base}/to-text", 2000, allow=LOCAL) == "hello, world"
    metadata = wget(f"{base}/to-metadata", 2000, allow=LOCAL)
    assert metadata.startswith("wget failed: [E0907] 169.254.169.254 is at 169.254.169.254, a link-local address")
    assert "a private address" in wget(f"{base}/to-private", 2000, allow=LOCAL)
    assert "only http and https" in wget(f"{base}/to-file", 2000, allow=LOCAL)
    assert wget(f"{base}/loop", 2000, allow=LOCAL).startswith("wget failed: [E0908] more than 3 redirects")


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.2", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.100.100.200", "not a public address"),  # shared space (Alibaba's metadata)
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "not a public address"),
        ("::1", "loopback"),
        ("fd00:ec2::254", "private"),  # AWS's IPv6 metadata
        ("fe80::1", "link-local"),
        ("::ffff:127.0.0.1", "which carries 127.0.0.1"),
        ("64:ff9b::a9fe:a9fe", "which carries 169.254.169.254"),
        ("2002:a9fe:a9fe::1", "which carries 169.254.169.254"),
        ("::10.0.0.1", "which carries 10.0.0.1"),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "which carries 10.0.0.1"),  # Teredo
    ],
)
def test_refused_ranges(address: str, why: str) -> None:
    host = f"[{address}]" if ":" in address else address
    answer = wget(f"http://{host}/", 500)
    assert answer.startswith("wget failed:") and why in answer and "refused" in answer


def test_every_address_of_a_name_is_checked() -> None:
    answer = wget("http://mixed.test/", 500, resolve=lambda host, port: ["93.184.216.34", "10.0.0.1"])
    assert (
        answer
        == "wget failed: [E0907] mixed.test is at 10.0.0.1, a private address: refused (server-side request forgery)"
    )


def test_the_request_goes_to_the_checked_address_with_the_name_in_host(base: str) -> None:
    """DNS rebinding: the name is resolved once, checked, and that address is connected to."""
    port = int(base.rsplit(":", 1)[1])
    answers = iter([["127.0.0.1"], ["10.9.9.9"]])  # a second lookup would give a refused one
    Handler.hosts.clear()
    assert wget(f"http://rebind.test:{port}/text", 2000, allow=LOCAL, resolve=lambda h, p: next(answers)) == (
        "hello, world"
    )
    assert Handler.hosts == [f"rebind.test:{port}"]


@pytest.mark.parametrize(
    ("uri", "timeout", "expected"),
    [
        ("ftp://example.com/x", 500, "only http and https"),
        ("not a url at all", 500, "only http and https"),
        (42, 500, "uri must be a string, not int"),
        ("http:///path", 500, "has no host"),
        ("https://example.com", 0, "timeoutMs must be between 1 and 60000, not 0"),
        ("https://example.com", 10**9, "timeoutMs must be between 1 and 60000"),
        ("https://example.com", "5000", "timeoutMs must be a number of milliseconds, not str"),
        ("https://example.com", True, "not bool"),
    ],
)
def test_bad_arguments_are_text(uri: object, timeout: object, expected: str) -> None:
    answer = wget(uri, timeout)
    assert answer.startswith("wget failed:") and expected in answer


def test_an_unresolvable_name_is_text() -> None:
    def fail(host: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    assert wget("http://nowhere.test/", 500, resolve=fail) == (
        "wget failed: [E0908] cannot resolve nowhere.test: Name or service not known"
    )


def test_proxies_from_the_environment_are_ignored(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("http_proxy", "http://10.0.0.1:3128")
    assert wget(f"{base}/text", 2000, allow=LOCAL) == "hello, world"


def test_a_bad_allow_list_is_the_callers_error() -> None:
    with pytest.raises(ValueError, match="bad network"):
        wget("http://example.com", 500, allow=["not a network"])


class RawServer:
    """A socket server on 127.0.0.1 that answers each connection with `answer(connection)`
    (raw bytes, at its own pace) and keeps what each request sent."""

    def __init__(self, answer: Callable[[socket.socket], None]) -> None:
        self.answer, self.requests = answer, []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()

    def handle(self, connection: socket.socket) -> None:
        with connection:
            self.requests.append(connection.recv(65536))
            try:
                self.answer(connection)
            except OSError:  # the client hung up, as it should at its deadline
                pass

    def close(self) -> None:
        self.listener.close()


def drip(connection: socket.socket) -> None:
    for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok":
        connection.sendall(bytes([byte]))
        time.sleep(1)


def test_a_server_that_drips_its_headers_is_cut_off_at_the_deadline() -> None:
    """Each byte comes within any per-read timeout; only a deadline for the whole exchange
    ends it (the headers alone take 60 s here)."""
    server = RawServer(drip)
    try:
        started = time.monotonic()
        answer = wget(f"{server.url}/", 1500, allow=LOCAL)
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert answer == f"wget failed: [E0908] no complete answer from {server.url}/ within 1,500 ms"
    assert elapsed < 1.5 + 0.5  # the limit itself, plus a margin for a loaded machine


def redirect_to(location: bytes) -> Callable[[socket.socket], None]:
    def answer(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n")

    return answer


@pytest.mark.parametrize(
    ("location", "why"),
    [
        (b"http:x", "more than 3 redirects"),  # the same host, path x: httpx raised InvalidURL on it
        (b"https:x", "the address has no host"),
        (b"http://[::1", "redirects to a bad address"),
        (b"http://xn--/", "not a valid address"),  # IDNA that does not decode
        (b"http://example.test:99999/", "port of 'http://example.test:99999/' is out of range"),
        (b"http://example.test:0/", "out of range"),
        (b"ftp://example.test/", "only http and https"),
        (b"file:///etc/passwd", "only http and https"),
        (b"\x7f", "redirects to a bad address"),
        (b"http://exa\xc3\xa9mple.test/", "is at 10.0.0.1"),
        (b"//[fe80::1%25eth0]/", "link-local"),
    ],
)
def test_a_bad_redirect_target_is_a_coded_failure_never_an_exception(location: bytes, why: str) -> None:
    server = RawServer(redirect_to(location))
    try:
        answer = wget(f"{server.url}/", 2000, allow=LOCAL, resolve=lambda host, port: ["10.0.0.1"])
    finally:
        server.close()
    assert answer.startswith(("wget failed: [E0907] ", "wget failed: [E0908] ")) and why in answer, answer


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab",  # cut short
        b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/9 200 OK\r\n\r\n",
        b"garbage\r\n\r\n",
        b"",
        b"HTTP/1.1 302 Found\r\nLocation: \xff\xfe\r\nContent-Length: 0\r\n\r\n",
    ],
)
def test_a_broken_answer_is_a_coded_failure_never_an_exception(answer: bytes) -> None:
    server = RawServer(lambda connection: connection.sendall(answer))
    try:
        found = wget(f"{server.url}/", 2000, allow=LOCAL, resolve=lambda host, port: ["10.0.0.1"])
    finally:
        server.close()
    assert found.startswith(("wget failed: [E0907] ", "wget failed: [E0908] ")), found


def test_the_request_names_the_host_once_and_goes_to_the_checked_address() -> None:
    server = RawServer(lambda connection: connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
    port = server.url.rsplit(":", 1)[1]
    try:
        assert wget(f"http://pinned.test:{port}/a?b=1", 2000, allow=LOCAL, resolve=lambda h, p: ["127.0.0.1"]) == "ok"
    finally:
        server.close()
    head = server.requests[0].split(b"\r\n\r\n")[0].split(b"\r\n")
    assert head[0] == b"GET /a?b=1 HTTP/1.1"
    assert [line for line in head if line.lower().startswith(b"host:")] == [f"Host: pinned.test:{port}".encode()]


@pytest.mark.parametrize("uri", ["http://xn--/", "http://[::1", "http://example.test:70000/", "http://\x00/"])
def test_a_bad_address_from_the_model_is_a_coded_failure(uri: str) -> None:
    assert wget(uri, 500, resolve=lambda host, port: ["10.0.0.1"]).startswith("wget failed: [E0908] ")


@pytest.mark.parametrize(("address", "why"), [("fec0::1", "site-local"), ("192.88.99.1", "6to4 relay anycast")])
def test_ranges_python_calls_global_are_refused_before_any_connection(address: str, why: str) -> None:
    """Both were let through before (issue 24): the name's checked address is refused here."""
    answer = wget("http://special.test/", 500, resolve=lambda host, port: [address])
    assert answer.startswith(f"wget failed: [E0907] special.test is at {address}, a ") and why in answer


def test_a_tls_handshake_that_never_comes_ends_at_the_deadline() -> None:
    server = RawServer(lambda connection: time.sleep(3))  # reads the ClientHello, answers nothing
    port = server.url.rsplit(":", 1)[1]
    try:
        started = time.monotonic()
        answer = wget(f"https://silent.test:{port}/", 800, allow=LOCAL, resolve=lambda host, port: ["127.0.0.1"])
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert answer == f"wget failed: [E0908] no complete answer from https://silent.test:{port}/ within 800 ms"
    assert elapsed < 0.8 + 0.5


PIECES = [
    b"HTTP/1.1 200 OK\r\n",
    b"HTTP/1.1 302 Found\r\n",
    b"HTTP/1.0 301 X\r\n",
    b"Location: http:x\r\n",
    b"Location: //\xff\xfe\r\n",
    b"Location: http://[::1\r\n",
    b"Location: http://xn--/\r\n",
    b"Location: https://a:99999/\r\n",
    b"Content-Type: text/plain; charset=\xff\r\n",
    b"Content-Encoding: gzip\r\n",
    b"Content-Encoding: deflate\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Content-Length: 3\r\n",
    b"Content-Length: -1\r\n",
    b"X: \x80\x81\r\n",
    b" folded\r\n",
    b":\r\n",
    b"\r\n",
    b"abc",
    b"\x00\x01",
    b"5\r\nhello\r\n0\r\n\r\n",
]


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[RawServer]:
    server = RawServer(lambda connection: None)
    yield server
    server.close()


@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=9))
def test_whatever_a_server_sends_wget_answers_text(fuzzed: RawServer, pieces: list[bytes]) -> None:
    """Status lines, headers, redirects and bodies in any order: text or a coded failure, never
    an exception (a redirect's target resolves to a refused address: nothing leaves 127.0.0.1)."""
    fuzzed.answer = lambda connection: connection.sendall(b"".join(pieces))
    answer = wget(f"{fuzzed.url}/", 1000, allow=LOCAL, resolve=lambda host, port: ["10.0.0.1"])
    assert isinstance(answer, str)
    assert not answer.startswith("wget failed") or answer.startswith(("wget failed: [E0907] ", "wget failed: [E0908] "))
