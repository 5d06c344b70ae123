"""An App called as an ASGI 3 app (`await app(scope, receive, send)`), as FastAPI's is: httpx.ASGITransport, ASGI
servers and ASGI test tools drive it through the engine itself.

The engine answers, not a second implementation of routing and validation: the first call starts the App's engine
in background threads of this process (as a TestClient does: one I/O thread and the executor, listening on
127.0.0.1 on a free port), and each `http` scope becomes one HTTP/1.1 request on a pooled loopback connection to
it; the response's head and body come back as `http.response.start` and `http.response.body` messages as they
arrive. The scope's scheme, client and root_path travel in one header that only this engine reads, with its
random token (_proxy.ASGI_SCOPE_HEADER). `websocket` scopes are relayed frame by frame (entry_ws.py); `lifespan`
runs the App's lifespan on the engine's loop (lifespan.py). The cost is that loopback hop per request: the request
is written and parsed once more, and its bytes cross the kernel twice (docs/migrate-from-fastapi.md, "An App as
an ASGI app").
"""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import threading
import time
import weakref
from typing import Any
from urllib.parse import quote

from .. import _server_errors
from .._proxy import ASGI_SCOPE_HEADER
from . import wire

# Idle loopback connections kept per event loop (SLIPSTREAM_ASGI_POOL_SIZE); more concurrent requests open more.
POOL_SIZE = max(0, int(os.environ.get("SLIPSTREAM_ASGI_POOL_SIZE", "") or 32))
# Exceptions kept for the requests that re-raise them (a bound for a server nobody reads them from).
_MAX_ERRORS = 100
# How long the call waits for the work after a response (background tasks, dependency exits), as FastAPI's call
# returns only after it.
_AFTER_RESPONSE_S = 300.0

_create_lock = threading.Lock()
_open: weakref.WeakSet[AsgiEntry] = weakref.WeakSet()


@atexit.register
def _close_open_entries() -> None:
    for entry in list(_open):
        entry.close()


def entry_for(app: Any) -> AsgiEntry:
    """The running engine behind `app`'s ASGI calls, started on the first call."""
    entry = app.__dict__.get("_asgi_entry")
    if entry is not None and not entry.closed:
        return entry
    with _create_lock:
        entry = app.__dict__.get("_asgi_entry")
        if entry is None or entry.closed:
            entry = AsgiEntry(app)
            app.__dict__["_asgi_entry"] = entry
            _open.add(entry)
    return entry


class _Conn:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0


class _Relay:
    """What the response relay learned: its status, whether it was sent whole, whether the connection may be
    used again."""

    __slots__ = ("cut", "finished", "reusable", "status")

    def __init__(self) -> None:
        self.status = 0
        self.finished = False
        self.cut = False
        self.reusable = False


class AsgiEntry:
    """One App's engine for its ASGI calls: the loopback connections per event loop, and the exceptions the app
    raised (re-raised by the call whose request failed, as Starlette's ServerErrorMiddleware re-raises)."""

    def __init__(self, app: Any) -> None:
        options = getattr(app, "server_options", {})
        if any(k.startswith("tls_") for k in options):
            raise ValueError(
                "an App with TLS options cannot be called as an ASGI app: TLS is the ASGI server's "
                "(the App's engine listens on 127.0.0.1 only)"
            )
        self.app = app
        self.token = secrets.token_hex(16)
        defaults = {"access_log": False, "threads": 1}
        given = {k: v for k, v in defaults.items() if k not in options}
        self.native, self.runtime = app.build_native(late_changes=True, asgi_scope_token=self.token, **given)
        self.native.listen("127.0.0.1", 0)
        self.native.start()
        self.port = self.native.port
        self.watch = _server_errors.watch(app)
        # Idle connections older than half the engine's keep-alive are not reused (it may be closing them).
        self.max_idle_s = max(0.05, float(options.get("keepalive_timeout_ms", 30_000)) / 2000)
        self._idle: dict[asyncio.AbstractEventLoop, list[_Conn]] = {}
        self.closed = False

    def close(self) -> None:
        """Stops the engine (the lifespan's shutdown, or the interpreter's exit)."""
        if self.closed:
            return
        self.closed = True
        for conns in self._idle.values():
            for conn in conns:
                _drop(conn)
        self._idle.clear()
        _server_errors.unwatch(self.app, self.watch)
        native, self.native = self.native, None
        native.stop()
        if not native.on_executor_thread:
            native.wait()
        # Else closed by its own executor thread, which cannot wait for itself: dropping the last reference there
        # hands the wait to a thread of the extension (as TestClient.close).

    # --- the scope's facts for the engine ---
    def marker(self, scope: dict[str, Any]) -> tuple[bytes, bytes]:
        """The header that hands the engine the scope's scheme, client and root_path."""
        client = scope.get("client")
        host, port = (str(client[0]), str(int(client[1] or 0))) if client else ("-", "0")
        root = quote(scope.get("root_path") or "", safe="/") or "-"
        value = f"{self.token} {scope.get('scheme') or 'http'} {host.replace(' ', '')} {port} {root}"
        return ASGI_SCOPE_HEADER.encode(), value.encode("latin-1")

    # --- connections ---
    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.port, limit=wire.MAX_HEAD_BYTES)

    async def checkout(self, fresh: bool = False) -> tuple[_Conn, bool]:
        """An idle connection of the running loop (True) or a new one (False; always when `fresh`)."""
        loop = asyncio.get_running_loop()
        idle = self._idle.get(loop)
        if idle is None:
            self._forget_closed_loops()
            idle = self._idle.setdefault(loop, [])
        now = time.monotonic()
        while idle and not fresh:
            conn = idle.pop()
            if conn.reader.at_eof() or conn.writer.is_closing() or now - conn.idle_since > self.max_idle_s:
                _drop(conn)
                continue
            return conn, True
        return _Conn(*await self.connect()), False

    def checkin(self, conn: _Conn) -> None:
        idle = self._idle.get(asyncio.get_running_loop())
        if self.closed or idle is None or len(idle) >= POOL_SIZE:
            _drop(conn)
            return
        conn.idle_since = time.monotonic()
        idle.append(conn)

    def _forget_closed_loops(self) -> None:
        """The connections of loops that have closed (asyncio.run ended) are shut down and let go."""
        for loop in [lp for lp in list(self._idle) if lp.is_closed()]:
            for conn in self._idle.pop(loop):
                _drop(conn)

    # --- after the response ---
    async def after_response(self, relay: _Relay, wait: bool = True) -> None:
        """Waits for the work after the response (unless not `wait`); then raises the exception the app raised
        for it, if any."""
        had_work = wait and not self.runtime.wait_idle(0)
        if had_work:
            await self._idle_wait()
        if relay.status >= 500 or relay.cut or had_work:
            error = self.take_error()
            if error is not None:
                raise error
        if relay.cut:
            raise wire.CutShort("the app failed in the middle of the response body")

    async def _idle_wait(self) -> None:
        """Until the engine has no work after a response left (its count is the process's, not this request's:
        concurrent requests' work is waited for too), polled without holding a thread: every 1 ms at first, then
        up to every 50 ms."""
        deadline = time.monotonic() + _AFTER_RESPONSE_S
        pause = 0.001
        while not self.runtime.wait_idle(0) and time.monotonic() < deadline:
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)

    def take_error(self) -> BaseException | None:
        errors = self.watch.errors
        if len(errors) > _MAX_ERRORS:
            del errors[:-_MAX_ERRORS]
        return errors.pop(0) if errors else None

    # --- http ---
    async def http(self, scope: dict[str, Any], receive: Any, send: Any, *, pooled: bool = True) -> None:
        """Relays one http scope; `pooled=False`: on a connection of its own, closed after (a request an ASGI
        middleware routes again from inside one of this engine's requests: middleware/asgi.py)."""
        message = await receive()
        while message["type"] not in ("http.request", "http.disconnect"):
            message = await receive()
        if message["type"] == "http.disconnect":
            return
        body = bytes(message.get("body") or b"")
        more = bool(message.get("more_body"))
        while more and not body:  # empty first messages (httpx's for a request without a body)
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = bytes(message.get("body") or b"")
            more = bool(message.get("more_body"))
        head, chunked = self._head(scope, body, more)
        first = _frame(body, chunked) if body or not chunked else b""
        if not more and chunked:
            first += b"0\r\n\r\n"
        relay = _Relay()
        conn = await self._send_request(head + first, more, chunked, receive, relay, pooled)
        if conn is None:
            return  # the client left while its body was being sent
        try:
            if not await self._relay_response(conn, scope, receive, send, relay):
                return  # the client left during the response: the engine sees its connection close
        except BaseException:
            _drop(conn)
            raise
        if relay.reusable and pooled:
            self.checkin(conn)
        else:
            _drop(conn)
        # A request routed again from inside one of this engine's requests does not wait for the engine to be idle:
        # the request it came from is work of that engine (the wait would last until its deadline).
        await self.after_response(relay, wait=pooled)

    def _head(self, scope: dict[str, Any], body: bytes, more: bool) -> tuple[bytes, bool]:
        """The request head, and whether the body goes chunked."""
        root = scope.get("root_path") or ""
        headers = [(bytes(k).lower(), bytes(v)) for k, v in scope.get("headers") or ()]
        names = {k for k, _ in headers}
        chunked = any(k == b"transfer-encoding" and b"chunked" in v.lower() for k, v in headers)
        if not chunked and b"content-length" not in names:
            if more:  # a body of unknown length (HTTP/2 without content-length): sent chunked
                headers.append((b"transfer-encoding", b"chunked"))
                chunked = True
            elif body:
                headers.append((b"content-length", str(len(body)).encode()))
        if b"host" not in names:
            server = scope.get("server")
            host = f"{server[0]}:{server[1]}" if server and server[1] is not None else (server or ["testserver"])[0]
            headers.insert(0, (b"host", str(host).encode("latin-1")))
        headers.append(self.marker(scope))
        method = scope.get("method") or "GET"
        line = f"{method} {wire.request_target(scope, root)} HTTP/1.1"
        return wire.head_bytes(line, headers), chunked

    async def _send_request(self, start: bytes, more: bool, chunked: bool, receive: Any, relay: _Relay,
                            pooled: bool = True) -> _Conn | None:
        """Writes the request (the rest of a streamed body from `receive`); a reused connection the engine had
        closed is replaced by a new one (on a new one, what the engine answered is read as the response)."""
        conn, reused = await self.checkout(fresh=not pooled)
        try:
            conn.writer.write(start)
            await conn.writer.drain()
            stale = conn.reader.at_eof()
        except ConnectionError:
            stale = True
        if stale and reused:  # the engine had closed the idle connection: nothing was read from `receive` yet
            _drop(conn)
            conn, _ = await self.checkout(fresh=True)
            conn.writer.write(start)
            await conn.writer.drain()
        try:
            return await self._send_rest(conn, more, chunked, receive, relay)
        except BaseException:
            _drop(conn)
            raise

    async def _send_rest(self, conn: _Conn, more: bool, chunked: bool, receive: Any, relay: _Relay) -> _Conn | None:
        relay.reusable = not more
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                _drop(conn)
                return None
            if message["type"] != "http.request":
                continue
            more = bool(message.get("more_body"))
            data = bytes(message.get("body") or b"")
            out = _frame(data, chunked) if data else b""
            if not more and chunked:
                out += b"0\r\n\r\n"
            try:
                conn.writer.write(out)
                await conn.writer.drain()
            except ConnectionError:  # the engine answered before the whole body (413): read that answer
                break
        else:
            relay.reusable = True
        return conn

    async def _relay_response(self, conn: _Conn, scope: dict[str, Any], receive: Any, send: Any, relay: _Relay) -> bool:
        """The engine's response to `send`, while `receive` is watched for the client's http.disconnect; False
        when the client left first."""
        relaying = asyncio.ensure_future(self._relay(conn, scope.get("method") == "HEAD", send, relay))
        watching = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait((relaying, watching), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            relaying.cancel()
            watching.cancel()
            raise
        if not relaying.done() and not relay.finished:
            relaying.cancel()
            _drop(conn)
            return False
        watching.cancel()
        await relaying
        return True

    async def _relay(self, conn: _Conn, is_head: bool, send: Any, relay: _Relay) -> None:
        status, headers = await wire.read_head(conn.reader)
        relay.status = status
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k, v) for k, v in headers if k not in wire.HOP_HEADERS],
            }
        )
        no_body = is_head or status in (204, 304)
        framed = (
            no_body
            or wire.header(headers, b"content-length") is not None
            or wire.header(headers, b"transfer-encoding") is not None
        )
        closing = (wire.header(headers, b"connection") or b"").lower() == b"close"
        try:
            async for chunk, more in wire.body_chunks(conn.reader, headers, no_body):
                if not more:
                    relay.finished = True
                await send({"type": "http.response.body", "body": chunk, "more_body": more})
        except wire.CutShort:
            relay.cut = True
            relay.reusable = False
            return
        relay.reusable = relay.reusable and framed and not closing


def _frame(data: bytes, chunked: bool) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data


async def _disconnected(receive: Any) -> None:
    """Returns when the client's http.disconnect arrives (a body the engine did not read is skipped)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _drop(conn: _Conn) -> None:
    """Closes a connection; one of a loop that has closed is shut down at the socket (its transport cannot be
    closed any more) and freed with it."""
    try:
        conn.writer.transport.abort()
    except RuntimeError:
        sock = conn.writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.shutdown(2)
            except OSError:
                pass
