"""Starlette's `WebSocket` API over one connection of the C++ engine (slipstream.websockets re-exports it, with the
routes that run handlers); the engine does the handshake and framing, this side sees whole messages."""

from __future__ import annotations

import asyncio
import enum
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..datastructures import URL, Address, Headers, QueryParams
from .connection import HTTPConnection, parse_cookies

# slipstream::SendStatus
_OK, _BACKPRESSURE, _DROPPED, _CLOSED = 0, 1, 2, 3
# Hub event kinds (python/bindings/py_websocket.cpp)
EVENT_OPEN, _TEXT, _BINARY, EVENT_CLOSE, _DRAIN = 0, 1, 2, 3, 4


class WebSocketDisconnect(Exception):
    """The client closed the connection (or it dropped: code 1006)."""

    def __init__(self, code: int = 1000, reason: str | None = None) -> None:
        self.code = code
        self.reason = reason or ""


class WebSocketException(Exception):
    """Raise it in a handler or a dependency to close the connection with `code` and `reason` (Starlette's)."""

    def __init__(self, code: int, reason: str | None = None) -> None:
        self.code = code
        self.reason = reason or ""


class WebSocketState(enum.Enum):
    CONNECTING = 0
    CONNECTED = 1
    DISCONNECTED = 2


class WebSocket(HTTPConnection):
    """One connection, as Starlette's WebSocket. Use it from the handler's task (the executor's loop)."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._drained = asyncio.Event()
        self._close_code: int | None = None
        self.client_state = WebSocketState.CONNECTING  # the handshake waits for accept()
        self.application_state = WebSocketState.CONNECTING
        self.path_params: dict[str, str] = dict(native.path_params)
        self._header_rows: list[tuple[str, str]] = list(native.headers)
        self.headers = Headers(self._header_rows)
        # "wss" on TLS, or when a trusted proxy or a TestClient on an https:// URL says so (websockets.py sets it).
        self.scheme = "ws"
        self.root_path = ""  # the server's root_path (a proxy prefix, a mount), as for a Request
        self._forwarded_client: Address | None = None  # set from a trusted proxy's X-Forwarded-For
        self.query_params = QueryParams(native.query)
        self.url_path: str = native.path
        self.client_address: str = native.client  # "host:port" as the engine gives it
        self.subprotocol: str | None = native.subprotocol or None
        self.state: dict[str, Any] = {}
        self._offered: list[str] = list(native.offered)
        self._refused: tuple[int, str] | None = None  # (code, reason) of a close before accept() (sent as 403)
        # Set once the handler accepted, closed or ended (the TestClient's websocket_connect waits for it).
        self._settled = asyncio.Event()
        self._accepted = False
        self._error: BaseException | None = None
        self._session: Any = None  # set by SessionMiddleware (slipstream.middleware.sessions) from the cookie

    @property
    def client(self) -> Address | None:
        """The peer's `Address(host, port)` (None when unknown), as Starlette's `websocket.client`."""
        if self._forwarded_client is not None:
            return self._forwarded_client
        host, sep, port = self.client_address.rpartition(":")
        if not sep or not port.isdigit():
            return None
        return Address(host.strip("[]"), int(port))

    @property
    def url(self) -> URL:
        return URL(self.scheme, self.headers.get("host", ""), self.root_path + self.url_path, self._native.query)

    @property
    def cookies(self) -> dict[str, str]:
        """The Cookie header parsed as Starlette's cookie_parser does."""
        return parse_cookies(self.headers.get("cookie", ""))

    @property
    def session(self) -> Any:
        """The session SessionMiddleware read from the handshake's cookie (read-only here: a WebSocket sends no
        Set-Cookie, as with Starlette); an AssertionError without the middleware."""
        if self._session is None:
            raise AssertionError("SessionMiddleware must be installed to access request.session")  # Starlette's words
        return self._session

    @property
    def scope(self) -> dict[str, Any]:
        """The ASGI scope of the connection (built on each access)."""
        client = self.client
        extra = {"session": self._session} if self._session is not None else {}
        return {
            "type": "websocket", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": self.scheme,
            "path": self.url_path, "raw_path": self.url_path.encode(), "root_path": self.root_path,
            "query_string": self._native.query.encode("latin-1"),
            "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self._header_rows],
            "client": tuple(client) if client is not None else None, "subprotocols": list(self._offered),
            "path_params": dict(self.path_params), "state": self.state, **extra,
        }

    # --- handshake and close ---
    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        """Answers the handshake (101) with `subprotocol` (one the client offered, or None) and `headers`
        (an iterable of (name, value) pairs, bytes or str)."""
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "accept" once a close message has been sent.')
        if self.application_state == WebSocketState.CONNECTED:
            raise RuntimeError('Cannot call "accept" twice.')
        if subprotocol is not None and subprotocol not in self._offered:
            raise RuntimeError(f"subprotocol {subprotocol!r} was not offered by the client (offered: {self._offered})")
        pairs = [(_text(k), _text(v)) for k, v in (headers or ())]
        if not self._native.accept(subprotocol or "", pairs):
            if not self._native.is_open:
                self.client_state = WebSocketState.DISCONNECTED
                raise WebSocketDisconnect(self._close_code or 1006)
            raise RuntimeError(f"invalid handshake header in {pairs!r}")
        self.subprotocol = subprotocol
        self.client_state = WebSocketState.CONNECTED
        self.application_state = WebSocketState.CONNECTED
        self._accepted = True
        self._settled.set()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Closes with `code`; before accept() the handshake is refused with HTTP 403 instead."""
        if self.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')
        close_socket(self, code, reason or "")

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
            await self.accept(message.get("subprotocol"), message.get("headers"))
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
        elif kind == EVENT_CLOSE:
            self._close_code = code
            self._inbox.put_nowait({"type": "websocket.disconnect", "code": code, "reason": payload})
            self._drained.set()


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, (bytes, bytearray)) else str(value)


def _raise_on_disconnect(message: dict[str, Any]) -> None:
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message["code"], message.get("reason"))


def close_socket(ws: WebSocket, code: int, reason: str) -> None:
    """Closes the connection unless the handler already did (a reason is cut to the 123 bytes a frame holds)."""
    if ws.application_state != WebSocketState.DISCONNECTED:
        if ws.application_state == WebSocketState.CONNECTING:
            ws._refused = (code, reason)  # the engine answers 403; a TestClient reports the code
        ws.application_state = WebSocketState.DISCONNECTED
        ws._settled.set()
        ws._native.close(code, reason.encode()[:123].decode("utf-8", "ignore"))


__all__ = ["WebSocket", "WebSocketDisconnect", "WebSocketException", "WebSocketState"]
