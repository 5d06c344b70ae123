"""One ASGI `http` cycle over a self-replying engine route: the scope from the Request, receive and send.

The app runs in the handler's own task (its first step inline, python/bindings/README.md), so an app that never
really awaits costs no Task. The response goes to the engine as soon as it is known: a body sent whole (one
`http.response.body` without more_body) is one complete response; a body with more_body opens a StreamWriter
(chunked) whose queue pauses `send` above its high-water mark. The app then goes on in the same task (Starlette
runs background tasks after its last send), so anyio cancel scopes never change task.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from typing import Any
from urllib.parse import quote

from .. import _native
from .._streaming import wait_writable

logger = logging.getLogger("slipstream.error")

ASGI_VERSION = {"version": "3.0", "spec_version": "2.3"}
# Headers the engine writes itself: the framing of the body (Content-Length or chunked) and the connection.
_FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive"})
_FRAMING_BYTES = frozenset(name.encode() for name in _FRAMING)
# A decoded path with only these characters is its own raw path.
_UNRESERVED_PATH = re.compile(r"[A-Za-z0-9/\-._~!$&'()*+,;=:@]*")
_START, _BODY, _DONE = 0, 1, 2
# http.response.pathsend: a file body the engine sends itself (sendfile(2) on the I/O thread).
EXTENSIONS: dict[str, Any] = {"http.response.pathsend": {}}
_ERROR_BODY = b"Internal Server Error"
# A HEAD answer's Content-Length comes from the body the engine is given (it sends none of it): an app that
# declares the length and sends no body gets a stand-in body of that length, up to this size.
_HEAD_STAND_IN_MAX = 8 << 20


class WholeResponse:
    """A response whose body the app sent in one message: rendered for the engine as bytes."""

    __slots__ = ("body", "content_type", "headers", "status")

    def __init__(self, status: int, content_type: str | None, headers: tuple[tuple[str, str], ...],
                 body: bytes) -> None:
        self.status = status
        self.content_type = content_type
        self.headers = headers
        self.body = body

    def _slipstream_render(self) -> tuple[int, str | None, tuple[tuple[str, str], ...], bytes]:
        return self.status, self.content_type, self.headers, self.body


class _StreamedResponse:
    """A response whose body comes in several messages: the engine hands it a StreamWriter at once."""

    __slots__ = ("content_type", "cycle", "headers", "status")

    def __init__(self, cycle: HttpCycle, status: int, content_type: str | None,
                 headers: tuple[tuple[str, str], ...]) -> None:
        self.cycle = cycle
        self.status = status
        self.content_type = content_type
        self.headers = headers

    def _slipstream_render(self) -> tuple[int, str | None, tuple[tuple[str, str], ...], Any]:
        return self.status, self.content_type, self.headers, self

    def _slipstream_start(self, writer: Any) -> None:
        self.cycle.attach_writer(writer)


def split_headers(raw: Any) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """ASGI response headers (byte pairs) as the engine takes them: the content type apart, framing dropped."""
    content_type = None
    out = []
    for name, value in raw:
        key = name.decode("latin-1").lower() if isinstance(name, bytes) else str(name).lower()
        text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        if key == "content-type":
            if content_type is None:
                content_type = text
            continue
        if key in _FRAMING:
            continue
        out.append((key, text))
    return content_type, tuple(out)


def split_raw_headers(raw: Any) -> tuple[bytes | str | None, tuple[tuple[bytes, bytes], ...]]:
    """As split_headers, the names and values left as bytes (the engine takes them as they are): for the server's
    cycle (ServerCycle), whose responses go to the engine only."""
    content_type = None
    out = []
    for name, value in raw:
        key = (name if type(name) is bytes else _as_bytes(name)).lower()
        if key in _FRAMING_BYTES:
            continue
        if type(value) is not bytes:
            value = _as_bytes(value)
        if key == b"content-type":
            if content_type is None:
                content_type = value
            continue
        out.append((key, value))
    return content_type, tuple(out)


def _as_bytes(value: Any) -> bytes:
    return value.encode("latin-1") if isinstance(value, str) else bytes(value)


def _as_text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def declared_length(raw: Any) -> int:
    """The Content-Length among ASGI response headers (0 when absent or malformed)."""
    for name, value in raw:
        if bytes(name).lower() == b"content-length":
            try:
                return int(bytes(value))
            except ValueError:
                return 0
    return 0


def raw_path_of(path: str) -> bytes:
    """The path as sent, rebuilt from the engine's percent-decoded one (exact unless it held escaped reserved
    characters such as %2F: the engine does not pass the raw target to Python yet)."""
    if path.isascii() and _UNRESERVED_PATH.fullmatch(path):
        return path.encode("ascii")
    return quote(path, safe="/-._~!$&'()*+,;=:@").encode("ascii")


def connection_scope(kind: str, scheme: str, client: Any, path: str, query: str, headers: Any, root_path: str,
                     server: tuple[str, int] | None, state: dict[str, Any] | None) -> dict[str, Any]:
    """The keys an `http` and a `websocket` scope share (uvicorn's conventions: `path` and `raw_path` include
    root_path; header names lowercased, in the order received; `state` a copy of the lifespan's)."""
    raw = raw_path_of(path)
    return {
        "type": kind,
        "asgi": ASGI_VERSION,
        "http_version": "1.1",
        "server": server,
        "client": (client.host, client.port) if client is not None else None,
        "scheme": scheme,
        "root_path": root_path,
        "path": root_path + path if root_path else path,
        "raw_path": root_path.encode("latin-1") + raw if root_path else raw,
        "query_string": query.encode("latin-1"),
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers],
        "state": dict(state) if state else {},
    }


def http_scope(request: Any, root_path: str, server: tuple[str, int] | None) -> dict[str, Any]:
    """The ASGI `http` scope of an engine Request (its header names arrive lowercased)."""
    scope = connection_scope("http", request.scheme, request.client, request.path, request.query_string,
                             request._raw_headers, root_path, server, request.lifespan_state)
    scope["method"] = request.method
    scope["extensions"] = EXTENSIONS
    return scope


class HttpCycle:
    """receive/send of one request; answers through the engine's PendingReply (`reply`)."""

    __slots__ = ("_body", "_content_type", "_ended", "_head_length", "_headers", "_state", "_status", "disconnected",
                 "head", "reply", "writer")
    # How the app's response headers become the engine's: (str, str) pairs here (App.mount: its middleware may
    # read them), bytes as they are in ServerCycle.
    _split = staticmethod(split_headers)

    def __init__(self, reply: Any, body: bytes, head: bool = False) -> None:
        self.reply = reply
        self.head = head  # a HEAD request
        self._head_length = 0  # the Content-Length the app declared on a HEAD answer
        self._body: bytes | None = body
        self._state = _START
        self._status = 200
        self._content_type: Any = None  # str, or bytes (ServerCycle)
        self._headers: tuple[tuple[Any, Any], ...] = ()
        self.writer: Any = None
        self.disconnected = False
        self._ended: asyncio.Future[None] | None = None  # what a receive() after the body waits on

    @property
    def started(self) -> bool:
        return self._state != _START

    @property
    def complete(self) -> bool:
        return self._state == _DONE

    async def receive(self) -> dict[str, Any]:
        body = self._body
        if body is not None:
            self._body = None
            return {"type": "http.request", "body": body, "more_body": False}
        # As uvicorn: after the body, http.disconnect once the response is complete or the client left.
        if self._state != _DONE and not self.disconnected:
            if self._ended is None:
                self._ended = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._ended)
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if self._state == _START:
            if kind != "http.response.start":
                raise RuntimeError(f"Expected ASGI message 'http.response.start', but got '{kind}'.")
            self._status = int(message["status"])
            self._content_type, self._headers = self._split(message.get("headers") or ())
            if self.head:
                self._head_length = declared_length(message.get("headers") or ())
            self._state = _BODY
            return
        if self._state == _DONE:
            if self.disconnected:
                return
            raise RuntimeError(f"Unexpected ASGI message '{kind}' sent, after response already completed.")
        if kind != "http.response.body":
            if kind == "http.response.trailers":  # no trailers on the wire yet: dropped
                return
            if kind == "http.response.pathsend" and self.writer is None:
                self._send_path(message["path"])
                return
            raise RuntimeError(f"Expected ASGI message 'http.response.body', but got '{kind}'.")
        body = message.get("body", b"")
        more = message.get("more_body", False)
        writer = self.writer
        if writer is None:
            if not more:
                self._state = _DONE
                if not body and 0 < self._head_length <= _HEAD_STAND_IN_MAX:
                    body = bytes(self._head_length)
                self.reply.send(WholeResponse(self._status, self._content_type, self._headers, bytes(body)))
                self._wake()
                return
            self.reply.send(_StreamedResponse(self, self._status, self._content_type, self._headers))
            writer = self.writer
            if writer is None:  # the engine answered already (the client left)
                self._gone()
                return
            if not writer.start():
                self._gone()
                return
        if self.disconnected:
            return  # as uvicorn: sends after the client left are dropped
        if body and not writer.head_only and not writer.write(bytes(body)):
            self._gone()
            return
        if not more:
            self._state = _DONE
            writer.end()
            self._release()
            self._wake()
        elif not writer.writable:
            await wait_writable(writer)  # back-pressure: the app pauses until the client read the queue down
            if writer.cancelled:
                self._gone()

    def _send_path(self, path: str) -> None:
        """The whole body is the file at `path` (the pathsend extension): the engine opens and sends it."""
        size = os.stat(path).st_size  # an error here is the app's, before anything was sent
        self.reply.send(_StreamedResponse(self, self._status, self._content_type, self._headers))
        self._state = _DONE
        writer = self.writer
        if writer is not None:
            self._release()
            content_type = None if self._content_type is None else _as_text(self._content_type)
            headers = [(_as_text(k), _as_text(v)) for k, v in self._headers]
            if not _native.send_file(writer, self._status, content_type, headers, os.fsencode(path), 0, size):
                self.disconnected = True
        self._wake()

    def attach_writer(self, writer: Any) -> None:
        """The engine's StreamWriter for a streamed body; the client leaving wakes a pending receive()."""
        self.writer = writer
        loop = asyncio.get_running_loop()
        loop.add_reader(writer.cancel_fd(), self._gone)

    def _gone(self) -> None:
        """The client left during a streamed body."""
        if not self.disconnected:
            self.disconnected = True
            self._release()
            self._wake()

    def _release(self) -> None:
        if self.writer is not None:
            try:
                asyncio.get_running_loop().remove_reader(self.writer.cancel_fd())
            except (RuntimeError, ValueError, OSError):
                pass

    def _wake(self) -> None:
        if self._ended is not None and not self._ended.done():
            self._ended.set_result(None)

    def finish(self, error: BaseException | None, path: str, method: str) -> None:
        """After the app returned (or raised): a 500 when nothing was sent, a cut connection when a body was
        left unfinished (a truncated body never looks complete)."""
        if error is not None and not isinstance(error, asyncio.CancelledError):  # cancelled: the server stops
            logger.error("Exception in ASGI application (%s %s)", method, path, exc_info=error)
        elif self._state == _START:
            logger.error("ASGI callable returned without starting response (%s %s).", method, path)
        elif self._state == _BODY and not self.disconnected:
            logger.error("ASGI callable returned without completing response (%s %s).", method, path)
        if self._state == _DONE:
            return
        if self.writer is not None:
            self._release()
            if not self.disconnected:
                self.writer.abort()
            self._state = _DONE
            self._wake()
            return
        if not self.reply.done:
            if self._state == _START:
                self.reply.send(WholeResponse(500, "text/plain; charset=utf-8", (), _ERROR_BODY))
            else:  # the head was given but no body: as uvicorn, the client gets no complete response
                self.reply.send(_StreamedResponse(self, self._status, self._content_type, self._headers))
                if self.writer is not None:
                    self._release()
                    self.writer.start()
                    self.writer.abort()
            self._state = _DONE
        self._wake()


async def run_http(app: Any, scope: dict[str, Any], cycle: HttpCycle, on_error: Any = None) -> None:
    """Runs `app` on one `http` cycle: its exception (passed to `on_error`, then logged) or a response it left
    unfinished ends the cycle as uvicorn ends it (cycle.finish)."""
    error: BaseException | None = None
    try:
        await app(scope, cycle.receive, cycle.send)
    except asyncio.CancelledError as exc:
        error = exc
        raise
    except Exception as exc:  # noqa: BLE001 - the app's error: a 500 or a cut connection, logged
        error = exc
        if on_error is not None:
            on_error(exc)
    finally:
        if error is not None or not cycle.complete:
            cycle.finish(error, scope["path"], scope["method"])



class ServerCycle(HttpCycle):
    """The cycle of AsgiServer's requests: the app's response headers go to the engine as bytes, as they are."""

    __slots__ = ()
    _split = staticmethod(split_raw_headers)
