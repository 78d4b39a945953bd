"""The language server: pygls over standard input and output, its handlers thin over the
modules beside this one. Only documents the client opened are read (never a file a request
merely names), and each request's failure is answered as a JSON-RPC error without a traceback.

A change is checked once every message that has arrived is handled (standard input is read
ahead: toolkiln.lsp.transport), so a burst of changes is checked once, at its newest text, and
published with that text's version: a result is never older than one published before it."""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException, JsonRpcInternalError
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from toolkiln.diagnostics.model import Diagnostic
from toolkiln.documents import canonical_text, check_text, is_workflow_text
from toolkiln.lsp.actions import FIX_ALL, code_actions
from toolkiln.lsp.completion import completions
from toolkiln.lsp.definition import tool_file
from toolkiln.lsp.diagnostics import published
from toolkiln.lsp.hover import hover, hover_result
from toolkiln.lsp.positions import TextLines
from toolkiln.lsp.program import Understood, understand, word_at
from toolkiln.lsp.protocol import PARSE_ERROR, AnsweringProtocol
from toolkiln.lsp.transport import SKIPPED_MESSAGE, ReadAhead, skipped_message
from toolkiln.version import __version__

Result = TypeVar("Result")


@dataclass(frozen=True)
class Settings:
    """What the server is started with (`toolkiln lsp` options)."""

    registry: Path | None = None  # a registry folder, for go to definition
    strict: bool = False
    n8n_version: str | None = None


@dataclass
class Checked:
    """A document's text as last checked, with what its check found."""

    lines: TextLines
    diagnostics: list[Diagnostic]


class ToolkilnServer(LanguageServer):
    def __init__(self, settings: Settings) -> None:
        super().__init__(
            "toolkiln",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=AnsweringProtocol,
        )
        self.settings = settings
        self.checked: dict[str, Checked] = {}
        self.understood: dict[str, Understood] = {}  # the last text of each document that parsed
        self.due: dict[str, None] = {}  # documents changed since their diagnostics were published

    def serve_over(self, reader: ReadAhead, stdout: BinaryIO) -> None:
        """pygls's start_io, reading through `reader` (which reads ahead) instead of a thread
        hop per line."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout))
        loop = run_async(
            self._stop_event, reader, self.protocol, logging.getLogger("pygls.server"), self.report_server_error
        )
        try:
            asyncio.run(loop)
        except (BrokenPipeError, KeyboardInterrupt, SystemExit):
            pass  # the client has gone (or said exit): nothing is left to answer
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # (pygls)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A body that is not JSON (or not UTF-8) is answered as JSON-RPC says, not shown as a
        server error; anything else as pygls does."""
        protocol = self.protocol
        if isinstance(error, ValueError) and source is JsonRpcException and isinstance(protocol, AnsweringProtocol):
            protocol.answer_null(PARSE_ERROR, f"Parse error: {error}"[:200])
            return
        super().report_server_error(error, source)

    def opened(self, uri: str) -> TextDocument | None:
        """An open document; None for any other uri (a request never makes the server read a file)."""
        document: TextDocument | None = self.workspace.text_documents.get(uri)
        return document

    def lines_of(self, document: TextDocument) -> TextLines:
        encoding = self.workspace.position_encoding
        return TextLines(document.source, str(getattr(encoding, "value", encoding) or "utf-16"))

    def check(self, document: TextDocument) -> Checked:
        """The check of the document's current text (made again only when the text changed)."""
        known = self.checked.get(document.uri)
        if known is not None and known.lines.text == document.source:
            return known
        lines = self.lines_of(document)
        found = self.check_text(lines.text, name_of(document))
        known = self.checked[document.uri] = Checked(lines, found)
        return known

    def check_text(self, text: str, name: str) -> list[Diagnostic]:
        settings = self.settings
        return check_text(text, name, strict=settings.strict, n8n_version=settings.n8n_version)

    def publish_soon(self, uri: str) -> None:
        """Publish the document's diagnostics once the messages that have arrived are handled."""
        if not self.due:
            asyncio.get_running_loop().call_soon(self.publish_due)
        self.due[uri] = None

    def publish_due(self) -> None:
        due, self.due = self.due, {}
        for uri in due:
            try:
                self.publish(uri)
            except Exception as error:  # noqa: BLE001 - shown as pygls shows a handler's failure
                self.report_server_error(error, FeatureNotificationError)

    def publish(self, uri: str) -> None:
        document = self.opened(uri)
        if document is None:
            return
        checked = self.check(document)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=published(checked.diagnostics, checked.lines), version=document.version
            )
        )

    def understand(self, document: TextDocument, text: str) -> Understood | None:
        """What hover, completion and definition read of a tool's text: parsed and checked when
        first asked (not on every change), else what was understood of the last text that parsed."""
        known = self.understood.get(document.uri)
        if known is not None and known.text == text:
            return known
        name = name_of(document)
        fresh = None if is_workflow_text(name, text) else understand(text, name)
        if fresh is not None:
            self.understood[document.uri] = fresh
        return fresh or known

    def forget(self, uri: str) -> None:
        self.due.pop(uri, None)
        self.checked.pop(uri, None)
        self.understood.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def name_of(document: TextDocument) -> str:
    """The file name a document is checked under (its suffix says .tk, .json or .wf)."""
    return document.path or document.uri


def answered(handler: Callable[..., Result]) -> Callable[..., Result]:
    """A request handler whose failure (a bug) is answered as an internal error naming it, not
    with the traceback pygls would attach."""

    @functools.wraps(handler)
    def guarded(*args: Any) -> Result:
        try:
            return handler(*args)
        except Exception as error:  # noqa: BLE001 - answered, the server goes on
            raise JsonRpcInternalError(message=f"toolkiln: internal error: {type(error).__name__}: {error}") from None

    return guarded


def build_server(settings: Settings) -> ToolkilnServer:
    server = ToolkilnServer(settings)
    _document_sync(server)
    _requests(server)
    return server


def _document_sync(server: ToolkilnServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ToolkilnServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish_soon(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ToolkilnServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish_soon(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ToolkilnServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(SKIPPED_MESSAGE)
    def skipped(ls: ToolkilnServer, params: Any) -> None:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=skipped_message(params)))


def _requests(server: ToolkilnServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    @answered
    def code_action(ls: ToolkilnServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        document = ls.opened(params.text_document.uri)
        if document is None:
            return None
        checked = ls.check(document)
        check = functools.partial(ls.check_text, name=name_of(document))
        return code_actions(document.uri, checked.lines, checked.diagnostics, params.range, check)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @answered
    def on_hover(ls: ToolkilnServer, params: types.HoverParams) -> types.Hover | None:
        at = _at(ls, params.text_document.uri, params.position)
        if at is None:
            return None
        word = word_at(at.lines.text, at.offset)
        where = None if word is None else types.Range(start=at.lines.position(word[1]), end=at.lines.position(word[2]))
        return hover_result(hover(at.lines.text, at.offset, at.understood), where)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions())
    @answered
    def on_completion(ls: ToolkilnServer, params: types.CompletionParams) -> list[types.CompletionItem] | None:
        at = _at(ls, params.text_document.uri, params.position)
        return None if at is None else completions(at.offset, at.understood)

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    @answered
    def on_formatting(ls: ToolkilnServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        document = ls.opened(params.text_document.uri)
        if document is None:
            return None
        lines = ls.lines_of(document)
        formatted, _ = canonical_text(lines.text, name_of(document))  # (the diagnostics say why not)
        if formatted is None or formatted == lines.text:
            return []
        return [types.TextEdit(range=lines.whole(), new_text=formatted)]

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @answered
    def on_definition(ls: ToolkilnServer, params: types.DefinitionParams) -> types.Location | None:
        at = _at(ls, params.text_document.uri, params.position)
        word = None if at is None else word_at(at.lines.text, at.offset)
        if at is None or word is None or at.understood is None or word[0] not in at.understood.called_tools:
            return None
        here = Path(at.document.path) if at.document.path else None
        target = tool_file(word[0], here, ls.settings.registry)
        if target is None:
            return None
        start = types.Position(line=0, character=0)
        return types.Location(uri=target.as_uri(), range=types.Range(start=start, end=start))


@dataclass(frozen=True)
class At:
    """Where a request points: an open document, its text, the offset and what is understood of it."""

    document: TextDocument
    lines: TextLines
    offset: int
    understood: Understood | None


def _at(ls: ToolkilnServer, uri: str, position: types.Position) -> At | None:
    document = ls.opened(uri)
    if document is None:
        return None
    lines = ls.lines_of(document)
    return At(document, lines, lines.offset(position), ls.understand(document, lines.text))


def serve(settings: Settings, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Serve over standard input and output until the client says exit (or closes them).
    Whatever toolkiln would print goes to standard error: standard output carries the protocol."""
    reader = ReadAhead(stdin or sys.stdin.buffer)
    writer = stdout or sys.stdout.buffer
    sys.stdout = sys.stderr
    build_server(settings).serve_over(reader, writer)
