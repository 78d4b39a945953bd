"""A real HTTP server on 127.0.0.1 that speaks OpenAI's chat completions (`POST /v1/chat/completions`)
and Anthropic's messages (`POST /v1/messages`), replaying a script.

    with FakeLLMServer() as server:
        server.script(Text("hello"), Fail(429, "slow down", retry_after="0.01"), Calls([("add", {"a": 1})]))
        OpenAIChat(server.openai_url, KEY, "m") ...      # or AnthropicMessages(server.url, KEY, "m")
        server.hits, server.seen[0].body

Each step answers one request, in the wire format of the endpoint it arrived at. The server
also checks what it is sent, as the real APIs do (the key, the required fields, that every tool
call is answered by a tool result with its id, Anthropic's alternating turns) and answers a
wrong request with a 400 in the provider's error shape, so a client that sends nonsense fails.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "sk-test-9f3b2c"  # what the server accepts; tests look for it in errors and logs
MB = 1024 * 1024


@dataclass
class Text:
    text: str
    input_tokens: int = 12
    output_tokens: int = 7


@dataclass
class Calls:
    """Tool calls: (name, arguments); arguments as a str is sent as is (OpenAI only: bad JSON)."""

    calls: list[tuple[str, dict[str, Any] | str]]
    text: str = ""
    input_tokens: int = 20
    output_tokens: int = 9


@dataclass
class Fail:
    """An error in the provider's shape."""

    status: int
    message: str
    retry_after: str | None = None


@dataclass
class Raw:
    """Exactly these bytes, e.g. a proxy's HTML page or JSON of the wrong shape."""

    status: int
    body: bytes
    content_type: str = "application/json"


@dataclass
class Slow:
    """Wait, then answer with `then` (if the client is still there)."""

    seconds: float
    then: Any = field(default_factory=lambda: Text("late"))


@dataclass
class Huge:
    """A body of `size` bytes; `declared` sends Content-Length, else it is chunked. With
    `stall_after`, the server stops sending after that many bytes and waits until it is stopped:
    a client that reads the whole body before checking its size would hang there."""

    size: int = 20 * MB
    declared: bool = True
    stall_after: int | None = None


@dataclass
class Trickle:
    """A text reply sent a few bytes at a time, each piece `every` seconds after the last: every
    read is quick, the whole reply is slow."""

    text: str
    every: float = 0.1
    pieces: int = 10


@dataclass
class Drop:
    """Read the request, then close the connection without a word."""


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


class FakeLLMServer:
    def __init__(self, api_key: str = KEY) -> None:
        self.api_key = api_key
        self.seen: list[Seen] = []
        self.rejected: list[str] = []  # the 400s it answered, and why
        self.bytes_sent = 0
        self._steps: list[Any] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = 0
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def hits(self) -> int:
        return len(self.seen)

    def script(self, *steps: Any) -> None:
        with self._lock:
            self._steps.extend(steps)

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    # -- what the handler asks --------------------------------------------------------------

    def next_step(self) -> Any:
        with self._lock:
            return self._steps.pop(0) if self._steps else Fail(500, "fake server: the script has no more replies")

    def next_id(self, prefix: str) -> str:
        with self._lock:
            self._ids += 1
            return f"{prefix}{self._ids}"

    def wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


# -- wire formats ---------------------------------------------------------------------------


def openai_completion(server: FakeLLMServer, step: Text | Calls, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None, "refusal": None}
    if isinstance(step, Calls):
        message["tool_calls"] = [
            {
                "id": server.next_id("call_"),
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for name, args in step.calls
        ]
    return {
        "id": server.next_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if isinstance(step, Calls) else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": step.input_tokens,
            "completion_tokens": step.output_tokens,
            "total_tokens": step.input_tokens + step.output_tokens,
        },
    }


def anthropic_message(server: FakeLLMServer, step: Text | Calls, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": step.text}] if step.text else []
    if isinstance(step, Calls):
        content += [
            {"type": "tool_use", "id": server.next_id("toolu_"), "name": name, "input": args}
            for name, args in step.calls
        ]
    return {
        "id": server.next_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if isinstance(step, Calls) else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens},
    }


ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def error_body(path: str, status: int, message: str) -> dict[str, Any]:
    if path == "/v1/messages":
        kind = ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


# -- what the real APIs refuse ---------------------------------------------------------------


def openai_problem(body: Any) -> str | None:
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    pending: set[str] = set()
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages[{i}].role is invalid"
        if role == "tool":
            if m.get("tool_call_id") not in pending:
                return f"messages[{i}]: 'tool' must answer a preceding message with 'tool_calls'"
            pending.discard(m["tool_call_id"])
            if not isinstance(m.get("content"), str):
                return f"messages[{i}].content must be a string"
            continue
        if pending:
            return f"an assistant message with 'tool_calls' must be followed by tool messages: {sorted(pending)}"
        if role == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function", {})
                if call.get("type") != "function" or not isinstance(fn.get("arguments"), str):
                    return f"messages[{i}].tool_calls: arguments must be a string"
                pending.add(call["id"])
            if m.get("content") is None and not m.get("tool_calls"):
                return f"messages[{i}]: an assistant message needs content or tool_calls"
        elif not isinstance(m.get("content"), str | list):
            return f"messages[{i}].content must be a string or an array"
    names = []
    for tool in body.get("tools") or []:
        if tool.get("type") != "function" or not isinstance(tool.get("function", {}).get("name"), str):
            return "tools: each tool is {'type': 'function', 'function': {'name': ...}}"
        names.append(tool["function"]["name"])
    choice = body.get("tool_choice")
    named = isinstance(choice, dict) and choice.get("function", {}).get("name") in names
    if choice is not None and choice not in ("auto", "none", "required") and not named:
        return "tool_choice names no tool"
    return None


def anthropic_problem(body: Any) -> str | None:
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        return "model: Field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] <= 0:
        return "max_tokens: Field required"
    if "system" in body and not isinstance(body["system"], str | list):
        return "system: Input should be a valid string"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    asked: set[str] = set()
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role != ("user" if i % 2 == 0 else "assistant"):
            return f"messages.{i}: roles must alternate between 'user' and 'assistant', starting with 'user'"
        blocks = m["content"] if isinstance(m.get("content"), list) else [{"type": "text", "text": m.get("content")}]
        if not blocks:
            return f"messages.{i}: all messages must have non-empty content"
        kinds = [b.get("type") for b in blocks]
        allowed = {"text", "tool_result"} if role == "user" else {"text", "tool_use"}
        if not set(kinds) <= allowed:
            return f"messages.{i}: unexpected block types {kinds}"
        if role == "user":
            answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
            if answered != asked:
                return (
                    f"messages.{i}: tool_result blocks must answer each tool_use of the previous turn: {sorted(asked)}"
                )
            results = kinds.count("tool_result")
            if kinds[:results] != ["tool_result"] * results:
                return f"messages.{i}: tool_result blocks must come first"
            asked = set()
        else:
            asked = {b["id"] for b in blocks if b.get("type") == "tool_use"}
        for b in blocks:
            if b.get("type") == "text" and not (isinstance(b.get("text"), str) and b["text"]):
                return f"messages.{i}: text content blocks must be non-empty"
            if b.get("type") == "tool_use" and not isinstance(b.get("input"), dict):
                return f"messages.{i}: tool_use.input must be an object"
    if messages[-1]["role"] != "user":
        return "the final message must be from the user"
    names = []
    for tool in body.get("tools") or []:
        if not isinstance(tool.get("name"), str) or not isinstance(tool.get("input_schema"), dict):
            return "tools: each tool has name and input_schema"
        names.append(tool["name"])
    choice = body.get("tool_choice")
    if choice is not None:
        if choice.get("type") not in ("auto", "any", "none", "tool"):
            return "tool_choice.type is invalid"
        if choice["type"] == "tool" and choice.get("name") not in names:
            return "tool_choice names no tool"
    return None


# -- the HTTP side ----------------------------------------------------------------------------


def _handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            try:
                self._post()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (size cap, timeout): nothing to do

        def _post(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            path = self.path.split("?")[0]
            server.seen.append(Seen(path, {k.lower(): v for k, v in self.headers.items()}, body))
            if path not in ("/v1/chat/completions", "/v1/messages"):
                return self._json(404, error_body(path, 404, f"Not found: {path}"))
            if not self._authorized(path):
                key = self.headers.get("x-api-key") or self.headers.get("Authorization", "").removeprefix("Bearer ")
                # Real providers echo (part of) a wrong key; clients must not repeat it.
                return self._json(401, error_body(path, 401, f"Incorrect API key provided: {key}"))
            problem = (anthropic_problem if path == "/v1/messages" else openai_problem)(body)
            if problem:
                server.rejected.append(problem)
                return self._json(400, error_body(path, 400, problem))
            self._answer(server.next_step(), path, body)

        def _authorized(self, path: str) -> bool:
            if path == "/v1/messages":
                # The API takes the key as x-api-key (toolkiln) or as a Bearer token (the newest SDK).
                keys = (self.headers.get("x-api-key"), self.headers.get("Authorization", "").removeprefix("Bearer "))
                return server.api_key in keys and bool(self.headers.get("anthropic-version"))
            return self.headers.get("Authorization") == f"Bearer {server.api_key}"

        def _answer(self, step: Any, path: str, body: dict[str, Any]) -> None:
            match step:
                case Text() | Calls():
                    render = anthropic_message if path == "/v1/messages" else openai_completion
                    self._json(200, render(server, step, body["model"]))
                case Fail(status, message, retry_after):
                    headers = {"Retry-After": retry_after} if retry_after is not None else {}
                    self._json(status, error_body(path, status, message), headers)
                case Raw(status, data, content_type):
                    self._send(status, data, {"Content-Type": content_type})
                case Slow(seconds, then):
                    server.wait(seconds)
                    self._answer(then, path, body)
                case Huge():
                    self._huge(step)
                case Trickle(text, every, pieces):
                    render = anthropic_message if path == "/v1/messages" else openai_completion
                    self._trickle(json.dumps(render(server, Text(text), body["model"])).encode(), every, pieces)
                case Drop():
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                case _:
                    raise AssertionError(step)

        def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(data).encode(), {"Content-Type": "application/json", **(headers or {})})

        def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            server.bytes_sent += len(data)

        def _trickle(self, data: bytes, every: float, pieces: int) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            size = -(-len(data) // pieces)
            for start in range(0, len(data), size):
                self.wfile.write(data[start : start + size])
                self.wfile.flush()
                server.wait(every)

        def _huge(self, step: Huge) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if step.declared:
                self.send_header("Content-Length", str(step.size))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b'{"pad": "' + b"x" * (MB - 9)
            sent = 0
            while sent < step.size:
                if step.stall_after is not None and sent >= step.stall_after:
                    server.wait(30)
                    return
                piece = chunk[: step.size - sent]
                self.wfile.write(piece if step.declared else b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
                server.bytes_sent += len(piece)
            if not step.declared:
                self.wfile.write(b"0\r\n\r\n")

    return Handler
