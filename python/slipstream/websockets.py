"""WebSocket routes: FastAPI's `@app.websocket(path)` and Starlette's `WebSocket` API over the C++ engine.

The C++ engine does the handshake, framing, fragmentation, UTF-8 checks, permessage-deflate, pings and the
close handshake on its I/O threads. Python sees whole messages: the I/O threads hand events to the executor's
asyncio loop through one eventfd (a `WebSocketHub`), and each connection's handler runs as a task there.

Differences from Starlette: the handshake is answered (101) before the handler runs, so `accept()` cannot
choose a subprotocol or add headers, and closing before `accept()` sends a close frame with the code given
rather than an HTTP 403.
"""

from __future__ import annotations

import asyncio
import enum
import inspect
import json
import logging
import typing
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["WebSocket", "WebSocketDisconnect", "WebSocketState", "install_websockets"]

logger = logging.getLogger("slipstream.error")

# slipstream::SendStatus
_OK, _BACKPRESSURE, _DROPPED, _CLOSED = 0, 1, 2, 3
# Hub event kinds (python/bindings/py_websocket.cpp)
_OPEN, _TEXT, _BINARY, _CLOSE, _DRAIN = 0, 1, 2, 3, 4


class WebSocketDisconnect(Exception):
    """The client closed the connection (or it dropped: code 1006)."""

    def __init__(self, code: int = 1000, reason: str | None = None) -> None:
        self.code = code
        self.reason = reason or ""


class WebSocketState(enum.Enum):
    CONNECTING = 0
    CONNECTED = 1
    DISCONNECTED = 2


class WebSocket:
    """One connection, as Starlette's WebSocket. Use it from the handler's task (the executor's loop)."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._drained = asyncio.Event()
        self._close_code: int | None = None
        self.client_state = WebSocketState.CONNECTED  # the 101 was sent by the engine
        self.application_state = WebSocketState.CONNECTING
        self.path_params: dict[str, str] = dict(native.path_params)
        self.headers: dict[str, str] = {k.lower(): v for k, v in reversed(native.headers)}
        self.query_params: dict[str, str] = _parse_query(native.query)
        self.url_path: str = native.path
        self.client: str = native.client
        self.subprotocol: str | None = native.subprotocol or None
        self.state: dict[str, Any] = {}

    # --- handshake and close ---
    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        """Marks the connection accepted (the engine already answered the handshake)."""
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "accept" once a close message has been sent.')
        self.application_state = WebSocketState.CONNECTED

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')
        self.application_state = WebSocketState.DISCONNECTED
        self._native.close(code, reason or "")

    # --- receiving ---
    async def receive(self) -> dict[str, Any]:
        """The next ASGI-style message: websocket.receive (text or bytes) or websocket.disconnect."""
        if self.application_state == WebSocketState.CONNECTING:
            raise RuntimeError('WebSocket is not connected. Need to call "accept" first.')
        if self.client_state == WebSocketState.DISCONNECTED and self._inbox.empty():
            raise RuntimeError('Cannot call "receive" once a disconnect message has been received.')
        message = await self._inbox.get()
        if message["type"] == "websocket.disconnect":
            self.client_state = WebSocketState.DISCONNECTED
        else:
            data = message.get("text")
            self._native.consumed(len(data.encode()) if data is not None else len(message["bytes"]))
        return message

    async def receive_text(self) -> str:
        message = await self.receive()
        _raise_on_disconnect(message)
        if message.get("text") is None:
            raise RuntimeError("expected a text message, got a binary one")
        return message["text"]

    async def receive_bytes(self) -> bytes:
        message = await self.receive()
        _raise_on_disconnect(message)
        if message.get("bytes") is None:
            raise RuntimeError("expected a binary message, got a text one")
        return message["bytes"]

    async def receive_json(self, mode: str = "text") -> Any:
        if mode not in ("text", "binary"):
            raise RuntimeError('The "mode" argument should be "text" or "binary".')
        message = await self.receive()
        _raise_on_disconnect(message)
        text = message.get("text") if mode == "text" else (message.get("bytes") or b"").decode()
        return json.loads(text if text is not None else message["bytes"])

    async def iter_text(self) -> AsyncIterator[str]:
        try:
            while True:
                yield await self.receive_text()
        except WebSocketDisconnect:
            pass

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        try:
            while True:
                yield await self.receive_bytes()
        except WebSocketDisconnect:
            pass

    async def iter_json(self) -> AsyncIterator[Any]:
        try:
            while True:
                yield await self.receive_json()
        except WebSocketDisconnect:
            pass

    # --- sending (waits while the connection's send queue is over half full) ---
    async def send(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "websocket.accept":
            await self.accept(message.get("subprotocol"))
        elif kind == "websocket.close":
            await self.close(message.get("code", 1000), message.get("reason"))
        elif kind == "websocket.send":
            if message.get("text") is not None:
                await self.send_text(message["text"])
            else:
                await self.send_bytes(message.get("bytes") or b"")
        else:
            raise RuntimeError(f"unexpected ASGI message type {kind!r}")

    async def send_text(self, data: str) -> None:
        await self._send(self._native.send_text, data)

    async def send_bytes(self, data: bytes) -> None:
        await self._send(self._native.send_bytes, bytes(data))

    async def send_json(self, data: Any, mode: str = "text") -> None:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        if mode == "binary":
            await self.send_bytes(text.encode())
        else:
            await self.send_text(text)

    async def _send(self, fn: Callable[[Any], int], data: Any) -> None:
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')
        while True:
            self._drained.clear()
            status = fn(data)
            if status == _OK:
                return
            if status == _CLOSED:
                raise WebSocketDisconnect(self._close_code or 1006)
            await self._drained.wait()  # backpressure (queued) or dropped (retry once drained)
            if status == _BACKPRESSURE:
                return

    # --- events from the hub ---
    def _deliver(self, kind: int, payload: Any, code: int) -> None:
        if kind == _TEXT:
            self._inbox.put_nowait({"type": "websocket.receive", "text": payload})
        elif kind == _BINARY:
            self._inbox.put_nowait({"type": "websocket.receive", "bytes": payload})
        elif kind == _DRAIN:
            self._drained.set()
        elif kind == _CLOSE:
            self._close_code = code
            self._inbox.put_nowait({"type": "websocket.disconnect", "code": code, "reason": payload})
            self._drained.set()


def _raise_on_disconnect(message: dict[str, Any]) -> None:
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message["code"], message.get("reason"))


def _parse_query(query: str) -> dict[str, str]:
    from urllib.parse import parse_qsl

    out: dict[str, str] = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        out.setdefault(k, v)
    return out


class _Endpoint:
    """A handler and how to call it: the WebSocket, then path and query parameters by name."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        self.params: list[tuple[str, Any, Any]] = []  # (name, converter or None for the socket, default)
        try:
            hints = typing.get_type_hints(func)
        except Exception:  # noqa: BLE001 - unresolvable annotations: treat them as text
            hints = {}
        for name, p in inspect.signature(func).parameters.items():
            ann = hints.get(name, p.annotation)
            if ann is WebSocket or name == "websocket" or (isinstance(ann, str) and ann.endswith("WebSocket")):
                self.params.append((name, None, p.default))
            else:
                convert = ann if ann in (int, float, str) else (_to_bool if ann is bool else str)
                self.params.append((name, convert, p.default))

    def arguments(self, ws: WebSocket) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for name, convert, default in self.params:
            if convert is None:
                kwargs[name] = ws
            elif name in ws.path_params:
                kwargs[name] = convert(ws.path_params[name])
            elif name in ws.query_params:
                kwargs[name] = convert(ws.query_params[name])
            elif default is not inspect.Parameter.empty:
                kwargs[name] = default
            else:
                raise TypeError(f"missing parameter {name!r} for WebSocket handler {self.func.__qualname__}")
        return kwargs


def _to_bool(value: str) -> bool:
    return value.lower() in ("1", "true", "yes", "on")


class _Dispatcher:
    """Reads the hub on the executor's loop and routes events to each connection's WebSocket and task."""

    def __init__(self, hub: Any, endpoints: list[_Endpoint]) -> None:
        self.hub = hub
        self.endpoints = endpoints
        self.sockets: dict[int, WebSocket] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.add_reader(self.hub.fileno(), self.on_ready)

    def on_ready(self) -> None:
        for kind, conn_id, payload, code in self.hub.drain():
            if kind == _OPEN:
                ws = WebSocket(payload)
                self.sockets[conn_id] = ws
                task = asyncio.get_running_loop().create_task(self.run(self.endpoints[payload.route], ws))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
                continue
            ws = self.sockets.get(conn_id)
            if ws is None:
                continue
            if kind == _CLOSE:
                del self.sockets[conn_id]
            ws._deliver(kind, payload, code)

    async def run(self, endpoint: _Endpoint, ws: WebSocket) -> None:
        try:
            result = endpoint.func(**endpoint.arguments(ws))
            if inspect.isawaitable(result):
                await result
        except WebSocketDisconnect:
            pass
        except Exception as exc:
            logger.error("Exception in WebSocket handler", exc_info=exc)
            if ws.application_state != WebSocketState.DISCONNECTED:
                ws.application_state = WebSocketState.DISCONNECTED
                ws._native.close(1011, "")
            return
        if ws.application_state != WebSocketState.DISCONNECTED:
            ws.application_state = WebSocketState.DISCONNECTED
            ws._native.close(1000, "")


def install_websockets(native: Any, runtime: Any, routes: list[tuple[str, Callable[..., Any]]]) -> None:
    """Registers `routes` ((path, handler) pairs) on the native app and reads their events on the executor's
    loop once it starts."""
    if not routes:
        return
    from . import _native

    hub = _native.WebSocketHub()
    endpoints = []
    for index, (path, func) in enumerate(routes):
        _native.add_websocket_route(native, path, hub, index)
        endpoints.append(_Endpoint(func))
    dispatcher = _Dispatcher(hub, endpoints)
    started = runtime._loop_started

    def loop_started(loop: asyncio.AbstractEventLoop) -> None:
        started(loop)
        dispatcher.attach(loop)

    runtime._loop_started = loop_started
    runtime.websocket_dispatcher = dispatcher
