"""One ASGI `websocket` connection over the engine's WebSocket (the engine does the handshake and framing; the
handshake waits for websocket.accept, websocket.close, or a websocket.http.response denial)."""

from __future__ import annotations

import logging
from typing import Any

from .._core.websocket import WebSocket, WebSocketDisconnect, WebSocketState
from .http import connection_scope

logger = logging.getLogger("slipstream.error")


class ClientDisconnected(OSError):
    """Sent to a connection the client closed (uvicorn's; Starlette turns an OSError into a disconnect)."""


def websocket_scope(ws: WebSocket, root_path: str, server: tuple[str, int] | None, state: dict[str, Any] | None,
                    scheme: str) -> dict[str, Any]:
    native = ws._native
    headers = [(k.lower(), v) for k, v in ws._header_rows]
    scope = connection_scope("websocket", scheme, ws.client, ws.url_path, native.query, headers, root_path, server,
                             state)
    scope["subprotocols"] = list(ws._offered)
    scope["extensions"] = {"websocket.http.response": {}}
    return scope


class WebSocketCycle:
    """receive/send of one connection: websocket.connect first, then the client's messages."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self._connected = False
        self._denial: tuple[int, str | None] | None = None  # (status, content type) of a websocket.http.response
        self._denial_body: list[bytes] = []
        self.denied = False

    async def receive(self) -> dict[str, Any]:
        if not self._connected:
            self._connected = True
            return {"type": "websocket.connect"}
        ws = self.ws
        if ws.application_state == WebSocketState.CONNECTED:
            return await ws.receive()
        # Before accept (or after the app closed): only the client's close comes.
        message = await ws._inbox.get()
        if message["type"] == "websocket.disconnect":
            ws.client_state = WebSocketState.DISCONNECTED
        return message

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        ws = self.ws
        if kind.startswith("websocket.http.response."):
            self._deny(kind, message)
            return
        if self.denied:
            raise RuntimeError(f"Unexpected ASGI message '{kind}' after a websocket.http.response")
        if kind == "websocket.accept":
            headers = message.get("headers") or ()
            await ws.accept(message.get("subprotocol"), headers)
            return
        if kind == "websocket.close":
            if ws.application_state == WebSocketState.DISCONNECTED:
                raise RuntimeError(f"Unexpected ASGI message '{kind}', after sending 'websocket.close'.")
            await ws.close(message.get("code", 1000), message.get("reason"))
            return
        if kind != "websocket.send":
            raise RuntimeError(f"Unexpected ASGI message '{kind}'.")
        if ws.application_state == WebSocketState.CONNECTING:
            raise RuntimeError("Expected ASGI message 'websocket.accept' or 'websocket.close' before 'websocket.send'.")
        if ws.application_state == WebSocketState.DISCONNECTED:
            raise RuntimeError(f"Unexpected ASGI message '{kind}', after sending 'websocket.close'.")
        try:
            text = message.get("text")
            if text is not None:
                await ws.send_text(text)
            else:
                await ws.send_bytes(message.get("bytes") or b"")
        except WebSocketDisconnect as exc:
            raise ClientDisconnected(f"the client closed the connection ({exc.code})") from None

    def _deny(self, kind: str, message: dict[str, Any]) -> None:
        """websocket.http.response.start/body: the handshake answered with an HTTP response (status, the content
        type and the body; the engine sends no other header of it yet)."""
        ws = self.ws
        if ws.application_state != WebSocketState.CONNECTING or self.denied:
            raise RuntimeError(f"Unexpected ASGI message '{kind}' after the handshake was answered.")
        if kind == "websocket.http.response.start":
            if self._denial is not None:
                raise RuntimeError("websocket.http.response.start sent twice")
            content_type = None
            for name, value in message.get("headers") or ():
                if bytes(name).lower() == b"content-type":
                    content_type = bytes(value).decode("latin-1")
            self._denial = (int(message["status"]), content_type)
            return
        if kind != "websocket.http.response.body" or self._denial is None:
            raise RuntimeError(f"Unexpected ASGI message '{kind}'.")
        self._denial_body.append(bytes(message.get("body", b"")))
        if message.get("more_body", False):
            return
        status, content_type = self._denial
        body = b"".join(self._denial_body).decode("utf-8", "replace")
        self.denied = True
        ws.application_state = WebSocketState.DISCONNECTED
        ws._settled.set()
        ws._native.reject(status, body, content_type or "text/plain; charset=utf-8")

    def finish(self, error: BaseException | None) -> None:
        """After the app ended: an error before the handshake was answered is a 500, after it a 1011 close."""
        ws = self.ws
        if error is not None and not isinstance(error, ClientDisconnected):
            logger.error("Exception in ASGI application (websocket %s)", ws.url_path, exc_info=error)
        if self.denied or ws.application_state == WebSocketState.DISCONNECTED:
            return
        if ws.application_state == WebSocketState.CONNECTING:
            ws.application_state = WebSocketState.DISCONNECTED
            ws._settled.set()
            if error is not None:
                ws._native.reject(500, "Internal Server Error")
            else:
                ws._native.reject(403, "")
            return
        ws.application_state = WebSocketState.DISCONNECTED
        ws._native.close(1011 if error is not None else 1000, "")


async def run_websocket(app: Any, scope: dict[str, Any], cycle: WebSocketCycle) -> None:
    """Runs `app` on one `websocket` connection; its exception is a 500 before accept, a 1011 close after."""
    error: BaseException | None = None
    try:
        await app(scope, cycle.receive, cycle.send)
    except Exception as exc:  # noqa: BLE001 - the app's error: a 500 before accept, 1011 after
        error = exc
    finally:
        cycle.finish(error)

