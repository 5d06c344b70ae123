"""TestClient.websocket_connect(): Starlette's WebSocketTestSession over a real socket to the engine (RFC 6455
client framing: masked frames, no extensions), blocking, for tests."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from typing import Any

from ._asgi.ws_frames import BINARY as _BINARY
from ._asgi.ws_frames import CLOSE as _CLOSE
from ._asgi.ws_frames import CONT as _CONT
from ._asgi.ws_frames import PING as _PING
from ._asgi.ws_frames import PONG as _PONG
from ._asgi.ws_frames import TEXT as _TEXT
from ._asgi.ws_frames import accept_value, client_frame, new_key
from ._asgi.ws_frames import mask as _mask
from .websockets import WebSocketDisconnect

_WAIT_S = 30.0


class WebSocketTestSession:
    """One client connection: send_*/receive_* as Starlette's; use it as a context manager.

    Entering performs the handshake and waits until the handler accepted: a handler that closes first (or a
    path with no WebSocket route) raises WebSocketDisconnect there, as Starlette's TestClient does. Leaving
    closes with 1000 and waits for the handler to end; with raise_server_exceptions=True an exception the
    handler raised is raised again here."""

    __test__ = False

    def __init__(self, client: Any, target: str, headers: dict[str, str], subprotocols: list[str] | None) -> None:
        self._client = client
        self._target = target
        self._headers = headers
        self._subprotocols = subprotocols or []
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._sent_close = False
        self._closed = False  # the peer's close frame was received
        self.accepted_subprotocol: str | None = None
        self.extra_headers: list[tuple[bytes, bytes]] = []
        self._error_raised = False
        self._handler: tuple[Any, Any] | None = None  # (WebSocket, its handler's task) on the server side

    # --- context manager ---
    def __enter__(self) -> WebSocketTestSession:  # noqa: PYI034
        dispatcher = getattr(self._client._runtime, "websocket_dispatcher", None)
        if dispatcher is not None:
            dispatcher.tracking = True  # before the handshake: the connection is recorded when it opens
        status = self._handshake()
        port = self._sock.getsockname()[1]  # type: ignore[union-attr]
        if status != 101:
            self._refused(dispatcher, port)
        ws, task = self._client._runtime.call_on_loop(lambda: dispatcher.connection(port))
        self._handler = (ws, task)
        return self

    def _refused(self, dispatcher: Any, port: int) -> None:
        """The handshake was answered with an HTTP status: raise what Starlette's TestClient raises."""
        self._shutdown()
        found = None
        if dispatcher is not None:
            # A handler's refusal (close before accept) is answered after its connection was recorded.
            async def take() -> Any:
                return dispatcher.by_port.pop(port, None)

            found = self._client._runtime.call_on_loop(take)
        if found is None:
            raise WebSocketDisconnect(1000, "")  # no WebSocket route took the path (or C++ refused it)
        self._handler = found
        ws = found[0]
        if ws._error is not None and self._client.raise_server_exceptions:
            self._wait_handler()
        code, reason = ws._refused or (1000, "")
        raise WebSocketDisconnect(code, reason)

    def __exit__(self, *exc: object) -> None:
        try:
            if not self._closed:
                if not self._sent_close:
                    self.close(1000)
                self._drain_until_close()
        finally:
            self._shutdown()
        self._wait_handler()

    def _fail_connect(self, code: int, reason: str) -> None:
        self._shutdown()
        raise WebSocketDisconnect(code, reason)

    def _shutdown(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _wait_handler(self) -> None:
        """Starlette's session leaves once the app finished; a handler's exception is raised again here."""
        if self._handler is None:
            return
        ws, task = self._handler

        async def finished() -> None:
            await asyncio.wait([task], timeout=_WAIT_S)

        self._client._runtime.call_on_loop(finished)
        if ws._error is not None and self._client.raise_server_exceptions and not self._error_raised:
            self._error_raised = True
            raise ws._error

    # --- handshake ---
    def _handshake(self) -> int:
        """Sends the upgrade request and reads the answer's head; returns its status."""
        key = new_key()
        headers = {"host": self._client._host_header, "upgrade": "websocket", "connection": "Upgrade",
                   "sec-websocket-key": key, "sec-websocket-version": "13", "user-agent": "testclient"}
        if self._subprotocols:
            headers["sec-websocket-protocol"] = ", ".join(self._subprotocols)
        headers.update({k.lower(): v for k, v in self._headers.items()})
        lines = [f"GET {self._target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
        self._sock = socket.create_connection(("127.0.0.1", self._client.port), timeout=_WAIT_S)
        self._sock.sendall("\r\n".join(lines).encode("latin-1"))
        while b"\r\n\r\n" not in self._buffer:
            self._fill()
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        response_headers = [tuple(h.split(":", 1)) for h in header_lines if ":" in h]
        self.extra_headers = [(k.strip().lower().encode(), v.strip().encode()) for k, v in response_headers]
        if status != 101:
            return status
        expected = accept_value(key)
        found = {k.decode(): v.decode() for k, v in self.extra_headers}
        if found.get("sec-websocket-accept") != expected:
            self._fail_connect(1002, "bad Sec-WebSocket-Accept")
        self.accepted_subprotocol = found.get("sec-websocket-protocol") or None
        return status

    # --- sending ---
    def send(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "websocket.receive":
            if message.get("text") is not None:
                self.send_text(message["text"])
            else:
                self.send_bytes(message.get("bytes") or b"")
        elif kind == "websocket.disconnect":
            self.close(message.get("code", 1000), message.get("reason"))
        else:
            raise RuntimeError(f"unexpected message type {kind!r}")

    def send_text(self, data: str) -> None:
        self._send_frame(_TEXT, data.encode("utf-8"))

    def send_bytes(self, data: bytes) -> None:
        self._send_frame(_BINARY, bytes(data))

    def send_json(self, data: Any, mode: str = "text") -> None:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        if mode == "text":
            self.send_text(text)
        else:
            self.send_bytes(text.encode("utf-8"))

    def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Sends a close frame (the handler sees websocket.disconnect with `code`)."""
        if self._sent_close:
            return
        self._sent_close = True
        self._send_frame(_CLOSE, struct.pack("!H", code) + (reason or "").encode("utf-8"))

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        if self._sock is None:
            raise RuntimeError("the WebSocket session is closed")
        self._sock.sendall(client_frame(opcode, payload))

    # --- receiving ---
    def receive(self) -> dict[str, Any]:
        """The next message from the handler: websocket.send (text or bytes) or websocket.close."""
        if self._closed:
            raise WebSocketDisconnect(1006, "")
        parts: list[bytes] = []
        first = None
        while True:
            fin, opcode, payload = self._read_frame()
            if opcode == _PING:
                if not self._sent_close:
                    self._send_frame(_PONG, payload)
                continue
            if opcode == _PONG:
                continue
            if opcode == _CLOSE:
                return self._on_close(payload)
            if opcode != _CONT:
                first = opcode
            parts.append(payload)
            if fin:
                break
        data = b"".join(parts)
        if first == _TEXT:
            return {"type": "websocket.send", "text": data.decode("utf-8")}
        return {"type": "websocket.send", "bytes": data}

    def _on_close(self, payload: bytes) -> dict[str, Any]:
        self._closed = True
        code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
        reason = payload[2:].decode("utf-8", "replace")
        if not self._sent_close and self._sock is not None:
            self._sent_close = True
            try:
                self._send_frame(_CLOSE, payload[:2])
            except OSError:
                pass
        return {"type": "websocket.close", "code": code, "reason": reason}

    def _raise_on_close(self, message: dict[str, Any]) -> None:
        if message["type"] == "websocket.close":
            error = self._handler_error()
            if error is not None:
                raise error
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason", ""))

    def _handler_error(self) -> BaseException | None:
        if not self._client.raise_server_exceptions:
            return None
        if self._handler is None:
            return None
        self._wait_handler()
        self._error_raised = True
        return self._handler[0]._error

    def receive_text(self) -> str:
        message = self.receive()
        self._raise_on_close(message)
        return message["text"]

    def receive_bytes(self) -> bytes:
        message = self.receive()
        self._raise_on_close(message)
        return message["bytes"]

    def receive_json(self, mode: str = "text") -> Any:
        message = self.receive()
        self._raise_on_close(message)
        return json.loads(message["text"] if mode == "text" else message["bytes"].decode("utf-8"))

    def _drain_until_close(self) -> None:
        try:
            while not self._closed:
                self.receive()
        except (OSError, WebSocketDisconnect, ConnectionError):
            pass

    def _read_frame(self) -> tuple[bool, int, bytes]:
        b0, b1 = self._take(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._take(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._take(8))[0]
        key = self._take(4) if b1 & 0x80 else b""
        payload = self._take(n)
        return bool(b0 & 0x80), b0 & 0x0F, _mask(payload, key) if key else payload

    def _take(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._fill()
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _fill(self) -> None:
        if self._sock is None:
            raise WebSocketDisconnect(1006, "")
        chunk = self._sock.recv(65536)
        if not chunk:
            self._closed = True
            raise WebSocketDisconnect(1006, "")
        self._buffer += chunk


__all__ = ["WebSocketTestSession"]
