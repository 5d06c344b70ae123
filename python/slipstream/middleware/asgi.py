"""Pure ASGI middleware (`class M: def __init__(self, app, **options); async def __call__(self, scope, receive,
send)`, or any factory `f(app, **options)` returning an ASGI callable) in an app's middleware stack, in Starlette's
order with the other middleware (the last added runs first).

The engine parses and routes the request as for any app with HTTP middleware (such an app's requests all enter
Python: middleware/__init__.py); AsgiMiddleware is one layer of that chain. It hands the middleware the request's
ASGI scope, a receive that gives the body the engine read, and a send that collects the response messages; the
app the middleware wraps (its `self.app`) is the rest of the chain: a Request made from the scope the middleware
passes on (its headers, query string, state and the body through its receive), run through the inner layers and
the route, and answered as `http.response.start` and `http.response.body`. What the middleware sent becomes the
response: its status, headers and body, with the inner response's background tasks. The middleware may read or
change the scope and wrap receive and send, answer by itself without calling its app, or raise (as in Starlette,
an exception raised by middleware reaches only the 500/Exception handler).

A middleware that changes the scope's path or method, or the body through a wrapped receive, routes the request
again (the route's body parameters are then validated from the body it gives): the request (scope, body, and
the layers inside this one) goes to the App's own ASGI entry (_asgi/entry.py), whose engine matches the new path;
the layers this request has already passed are not run again there (middleware/__init__.py, skip_marker). That
costs the loopback hop of an ASGI call.

A streamed response (StreamingResponse, EventSourceResponse) passes through as it is produced: each chunk reaches
the middleware's send as an `http.response.body` message with `more_body=True`, and what the middleware sends on
goes to the client at once (chunked), through a bounded queue (a middleware's send waits while the client is
STREAMED_CHUNKS chunks behind). A client that leaves cancels the middleware's call. A response whose first body
message ends it (`more_body` false), or whose start declares a Content-Length, is gathered and answered whole. A
FileResponse's file is read whole (it is finite).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import Any

from .._core.websocket import WebSocket, WebSocketState
from .._streaming_responses import StreamingResponse
from ..datastructures import Headers
from ..responses import Response
from . import BaseHTTPMiddleware

Scope = dict[str, Any]
Message = dict[str, Any]


class _Call:
    """One request passing one AsgiMiddleware layer: what its inner app needs."""

    __slots__ = ("call_next", "layer", "received", "request", "response", "scope")

    def __init__(self, layer: AsgiMiddleware, request: Any, call_next: Callable[[Any], Awaitable[Response]]) -> None:
        self.layer = layer
        self.request = request
        self.scope = request.scope
        self.call_next = call_next
        self.response: Response | None = None
        self.received = False

    async def receive(self) -> Message:
        """The body the engine read as one http.request message; then, as a server's receive, nothing until the
        exchange ends (the engine does not report a client that left while the app works)."""
        if not self.received:
            self.received = True
            # The engine's body, or what an outer layer's receive gave (read through it once).
            return {"type": "http.request", "body": await self.request.body() or b"", "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}


_CALL: contextvars.ContextVar[_Call] = contextvars.ContextVar("slipstream_asgi_middleware_call")
STREAMED_CHUNKS = 8  # messages a middleware may send ahead of the client before its send waits


async def _head_of(sent: asyncio.Queue[Message | None]) -> list[Message | None]:
    """The messages up to the first body message after http.response.start (or the end, None): enough to know
    whether the response is whole or streamed."""
    messages: list[Message | None] = []
    started = False
    while True:
        message = await sent.get()
        messages.append(message)
        if message is None:
            return messages
        if message.get("type") == "http.response.start":
            started = True
        elif started and message.get("type") == "http.response.body":
            return messages


def _declares_length(messages: list[Message | None]) -> bool:
    start = next(m for m in messages if m is not None and m.get("type") == "http.response.start")
    return any(bytes(k).lower() == b"content-length" for k, _ in start.get("headers", ()))


def _streamed_response(
    messages: list[Message | None], inner: Response | None, sent: asyncio.Queue[Message | None], task: Any
) -> Response:
    """A StreamingResponse with the status and headers the middleware sent, whose body follows its body
    messages until one ends it; the middleware's exception, if it raises later, cuts the stream."""
    start = next(m for m in messages if m is not None and m.get("type") == "http.response.start")
    first = messages[-1]
    assert first is not None

    async def body() -> Any:
        try:
            message: Message | None = first
            while message is not None:
                if message.get("type") == "http.response.body":
                    if chunk := bytes(message.get("body", b"")):
                        yield chunk
                    if not message.get("more_body", False):
                        break
                message = await sent.get()
            while (await sent.get()) is not None:  # what the middleware sends after the end is dropped
                pass
            await task
        finally:
            if not task.done():  # the client left: the middleware's call ends with it
                task.cancel()

    response = StreamingResponse(
        body(), status_code=int(start["status"]), background=getattr(inner, "background", None)
    )
    response.raw_headers = _headers_of(start)
    return response


def _headers_of(start: Message) -> list[tuple[str, str]]:
    """The response start's headers as the Response keeps them (Content-Length set by the engine)."""
    return [
        (bytes(k).decode("latin-1"), bytes(v).decode("latin-1"))
        for k, v in start.get("headers", ())
        if bytes(k).lower() != b"content-length"
    ]


def is_asgi_middleware(middleware_class: Any) -> bool:
    """Whether `add_middleware(middleware_class, ...)` takes it as pure ASGI middleware: a callable that is not
    a BaseHTTPMiddleware subclass."""
    if isinstance(middleware_class, type) and issubclass(middleware_class, BaseHTTPMiddleware):
        return False
    return callable(middleware_class)


class AsgiMiddleware(BaseHTTPMiddleware):
    """One pure ASGI middleware made around the app's view once, as Starlette makes its stack: the instance's
    `app` is this layer's inner app."""

    def __init__(self, middleware_class: Any, *args: Any, **options: Any) -> None:
        super().__init__(None)
        self.cls = middleware_class
        self.instance = middleware_class(_inner_app, *args, **options)
        if not callable(self.instance):
            raise TypeError(f"{middleware_class!r}(app, ...) returned {self.instance!r}, which is not an ASGI app")

    def __repr__(self) -> str:
        return f"AsgiMiddleware({getattr(self.cls, '__name__', self.cls)!r})"

    async def dispatch(self, request: Any, call_next: Callable[[Any], Awaitable[Response]]) -> Response:
        call = _Call(self, request, call_next)
        sent: asyncio.Queue[Message | None] = asyncio.Queue(STREAMED_CHUNKS)

        async def run() -> None:
            _CALL.set(call)  # in this task's own context
            try:
                await self.instance(call.scope, call.receive, sent.put)
            except asyncio.CancelledError:  # the response's reader is gone: nobody waits for the end
                raise
            except BaseException:
                await sent.put(None)
                raise
            await sent.put(None)  # the end of what the middleware sends

        task = asyncio.ensure_future(run())
        try:
            messages = await _head_of(sent)
        except BaseException:
            task.cancel()
            raise
        last = messages[-1]
        if last is not None and last.get("more_body", False) and not _declares_length(messages):
            # A streamed body of unknown length: the response goes out now and follows what the middleware sends.
            return _streamed_response(messages, call.response, sent, task)
        while messages[-1] is not None:  # a whole body, or one whose Content-Length says it ends: gathered
            messages.append(await sent.get())
        await task  # the middleware's end (an exception it raised goes up from here)
        return _response_of([m for m in messages if m is not None], call.response)


async def _inner_app(scope: Scope, receive: Any, send: Any) -> None:
    """The app every AsgiMiddleware wraps: the rest of the chain for the request now passing that layer."""
    if scope.get("type") == "websocket":
        await _inner_websocket(scope, receive, send)
        return
    call = _CALL.get(None)
    if call is None:
        raise RuntimeError(
            "this ASGI middleware's app runs only inside a request of the slipstream App it was added to"
        )
    original = call.request
    if scope.get("type") != "http":
        raise RuntimeError(
            f"slipstream passes http and websocket scopes through ASGI middleware, not {scope.get('type')!r}"
        )
    body = None
    if receive != call.receive:  # a wrapped receive: the body it gives is the body the route validates
        body = await _body_through(receive)
        receive = _Replay(body).receive
    if (
        scope.get("path") != original.path
        or scope.get("method") != original.method
        or (body is not None and body != await original.body())
    ):
        from .._asgi.reroute import reroute  # the App's ASGI entry (imported on the first rerouted request)

        layers = getattr(original.app, "user_middleware", [])
        await reroute(original.app, layers.index(call.layer) + 1, scope, receive, send)
        return
    if scope is call.scope and body is None:
        request = original
    else:
        from ..requests import Request

        request = Request(scope, receive)
        request.route_path = original.route_path
        request.principal = original.principal
        request._scopes = original._scopes
        request._session = original._session
        request.body_bytes = original.body_bytes if body is None else body
    response = await call.call_next(request)
    call.response = response
    await send_response(response, send)


async def _body_through(receive: Any) -> bytes:
    """The whole body a (wrapped) receive gives."""
    chunks = []
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunks.append(bytes(message.get("body", b"")))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


class _Replay:
    """A receive that gives `body` once, then waits as a server's does."""

    def __init__(self, body: bytes) -> None:
        self.body: bytes | None = body

    async def receive(self) -> Message:
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}


async def send_response(response: Response, send: Any) -> None:
    """`response` as ASGI messages: a whole body in one message with its Content-Length; a streamed one
    (`body_iterator`) chunk by chunk as it is produced (`more_body=True`, then an empty last message)."""
    iterator = getattr(response, "body_iterator", None)
    if getattr(response, "_take_background", None) is not None:
        status, content_type, others, _ = Response._slipstream_render(_Head(response))
        body = b"" if iterator is not None else await _file_body(response)
    else:
        status, content_type, others, body = response._slipstream_render()
        iterator = None
    headers = [(k.lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in others]
    if content_type is not None:
        headers.append((b"content-type", content_type.encode("latin-1")))
    if iterator is None and status >= 200 and status not in (204, 304):
        headers.insert(0, (b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    if iterator is None:
        await send({"type": "http.response.body", "body": body, "more_body": False})
        return
    charset = getattr(response, "charset", "utf-8")
    async for chunk in _chunks(iterator):
        data = chunk if isinstance(chunk, (bytes, bytearray, memoryview)) else str(chunk).encode(charset)
        if data:
            await send({"type": "http.response.body", "body": bytes(data), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _chunks(iterator: Any) -> Any:
    """An async or a sync body iterator as an async one (a sync one stepped in a worker thread, as Starlette's
    iterate_in_threadpool)."""
    if hasattr(iterator, "__aiter__"):
        async for chunk in iterator:
            yield chunk
        return
    it = iter(iterator)
    done = object()
    while (chunk := await asyncio.to_thread(next, it, done)) is not done:
        yield chunk


class _Head:
    """A streamed response's status and headers for Response._slipstream_render (its body read apart)."""

    def __init__(self, response: Any) -> None:
        self.status_code = response.status_code
        self.raw_headers = list(response.raw_headers)
        self.body = b""
        self._content_type = response._content_type


async def _file_body(response: Any) -> bytes:
    """A FileResponse's file, whole."""
    path = getattr(response, "path", None)
    if path is None:
        raise TypeError(f"{type(response).__name__} cannot pass through ASGI middleware")
    return await asyncio.to_thread(_read_file, path)


def _read_file(path: Any) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _response_of(messages: list[Message], inner: Response | None) -> Response:
    """The Response the middleware sent as ASGI messages; the inner response's background tasks carried over."""
    start = next((m for m in messages if m.get("type") == "http.response.start"), None)
    if start is None:
        raise RuntimeError("No response returned.")
    body = b"".join(bytes(m.get("body", b"")) for m in messages if m.get("type") == "http.response.body")
    response = Response(
        body,
        status_code=int(start["status"]),
        background=getattr(inner, "background", None) if inner is not None else None,
    )
    response.raw_headers = _headers_of(start)
    return response


# --- websocket scopes ---


class _Connection:
    """One WebSocket connection passing the app's ASGI middleware layers (`at`: the layer it is in)."""

    __slots__ = ("at", "cycle", "layers", "run_endpoint", "ws")

    def __init__(
        self, layers: list[AsgiMiddleware], ws: Any, cycle: Any, run_endpoint: Callable[[Any], Any], at: int = 0
    ) -> None:
        self.layers = layers
        self.ws = ws
        self.cycle = cycle
        self.run_endpoint = run_endpoint
        self.at = at


_CONNECTION: contextvars.ContextVar[_Connection] = contextvars.ContextVar("slipstream_asgi_middleware_ws")


async def websocket_through(layers: list[AsgiMiddleware], ws: Any, run_endpoint: Callable[[Any], Any]) -> None:
    """Runs a WebSocket connection through the app's ASGI middleware `layers` (outermost first) to
    `run_endpoint(websocket)`: the scope is the connection's, receive and send are the engine's (_asgi/websocket.py);
    a layer may refuse the handshake (websocket.close or websocket.http.response before accept) or raise (a 500
    before accept, a 1011 close after)."""
    from .._asgi.websocket import WebSocketCycle

    cycle = WebSocketCycle(ws)
    token = _CONNECTION.set(_Connection(layers, ws, cycle, run_endpoint))
    error: BaseException | None = None
    try:
        await layers[0].instance(ws.scope, cycle.receive, cycle.send)
    except Exception as exc:  # noqa: BLE001 - a layer's error: a 500 before accept, 1011 after
        error = exc
        ws._error = exc  # a TestClient raises it, as Starlette's does
    finally:
        _CONNECTION.reset(token)
        ws._settled.set()
        cycle.finish(error)


async def _inner_websocket(scope: Scope, receive: Any, send: Any) -> None:
    conn = _CONNECTION.get(None)
    if conn is None:
        raise RuntimeError(
            "this ASGI middleware's app runs only inside a connection of the slipstream App it was added to"
        )
    inner = conn.at + 1
    if inner < len(conn.layers):
        token = _CONNECTION.set(_Connection(conn.layers, conn.ws, conn.cycle, conn.run_endpoint, inner))
        try:
            await conn.layers[inner].instance(scope, receive, send)
        finally:
            _CONNECTION.reset(token)
        return
    ws = conn.ws
    if receive != conn.cycle.receive or send != conn.cycle.send or scope.get("headers") != ws.scope["headers"]:
        ws = _ThroughMiddleware(ws, scope, receive, send)
    await conn.run_endpoint(ws)


class _ThroughMiddleware(WebSocket):
    """The endpoint's WebSocket when a layer wrapped receive or send or changed the headers: its messages go
    through the receive and send that layer passed on (the handshake too)."""

    def __init__(self, ws: Any, scope: Scope, receive: Any, send: Any) -> None:
        self.__dict__.update(ws.__dict__)
        self._asgi_receive = receive
        self._asgi_send = send
        self._header_rows = [
            (bytes(k).decode("latin-1"), bytes(v).decode("latin-1")) for k, v in scope.get("headers") or ()
        ]
        self.headers = Headers(self._header_rows)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        if self.application_state != WebSocketState.CONNECTING:
            raise RuntimeError(
                'Cannot call "accept" twice.'
                if self.application_state == WebSocketState.CONNECTED
                else 'Cannot call "accept" once a close message has been sent.'
            )
        pairs = [
            (
                k.encode("latin-1") if isinstance(k, str) else bytes(k),
                v.encode("latin-1") if isinstance(v, str) else bytes(v),
            )
            for k, v in (headers or ())
        ]
        await self._asgi_send({"type": "websocket.accept", "subprotocol": subprotocol, "headers": pairs})
        self.subprotocol = subprotocol
        self.client_state = WebSocketState.CONNECTED
        self.application_state = WebSocketState.CONNECTED

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')
        await self._asgi_send({"type": "websocket.close", "code": code, "reason": reason or ""})
        self.application_state = WebSocketState.DISCONNECTED

    async def receive(self) -> dict[str, Any]:
        if self.application_state == WebSocketState.CONNECTING:
            raise RuntimeError('WebSocket is not connected. Need to call "accept" first.')
        message = await self._asgi_receive()
        while message.get("type") == "websocket.connect":  # the first message, when no layer read it
            message = await self._asgi_receive()
        if message.get("type") == "websocket.disconnect":
            self.client_state = WebSocketState.DISCONNECTED
        return message

    async def send_text(self, data: str) -> None:
        await self._checked_send({"type": "websocket.send", "text": data})

    async def send_bytes(self, data: bytes) -> None:
        await self._checked_send({"type": "websocket.send", "bytes": bytes(data)})

    async def _checked_send(self, message: Message) -> None:
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')
        await self._asgi_send(message)
