"""The `websocket` scope of an App called as an ASGI app: a WebSocket client connection to the App's engine (which
does the handshake, routing and the handler) relayed message by message to the ASGI server.

websocket.connect opens the connection and sends the handshake; the engine's 101 (sent when the handler accepts)
becomes websocket.accept with its subprotocol and headers. A refusal becomes websocket.close before accept with the
handler's code and reason (the server answers 403), or 1000 on a path without a WebSocket route, as Starlette's
router; an exception in the handler is raised out of the call, before accept (the server answers 500) or after it
(the engine closed with 1011). The handler's WebSocket is found by this side's port (the dispatcher records
connections by client port, as for the TestClient). Then the client's messages go to the engine as frames and the
engine's frames come back as websocket.send and websocket.close (with the handler's code and reason)."""

from __future__ import annotations

import asyncio
from typing import Any

from . import wire, ws_frames
from .entry import AsgiEntry

# Handshake headers the relay writes itself (its own key; no compression extension between it and the engine).
_HANDSHAKE = frozenset({b"sec-websocket-key", b"sec-websocket-extensions", b"sec-websocket-accept"})
# Headers of the engine's 101 that are the handshake's, not the app's.
_ACCEPT_HEADERS = frozenset(
    {
        b"upgrade",
        b"connection",
        b"sec-websocket-accept",
        b"sec-websocket-protocol",
        b"sec-websocket-extensions",
        b"date",
        b"server",
    }
)
_CLOSE_WAIT_S = 10.0
# Close codes that no close frame may carry (RFC 6455 7.4.1): a client that dropped is cut off instead.
_NOT_SENT = frozenset({1005, 1006, 1015})


async def websocket(entry: AsgiEntry, scope: dict[str, Any], receive: Any, send: Any) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return  # the client left before connecting
    dispatcher = getattr(entry.runtime, "websocket_dispatcher", None)
    if dispatcher is not None:
        dispatcher.tracking = True  # each connection is recorded by its client port (this side's)
    reader, writer = await entry.connect()
    port = writer.get_extra_info("sockname")[1]
    try:
        status, headers = await _handshake(entry, scope, reader, writer)
        handler = await _handler(entry, dispatcher, port)
        if status != 101:
            await _refused(reader, headers, handler, send)
            return
        subprotocol = wire.header(headers, b"sec-websocket-protocol")
        await send(
            {
                "type": "websocket.accept",
                "subprotocol": subprotocol.decode() if subprotocol else None,
                "headers": [(k, v) for k, v in headers if k not in _ACCEPT_HEADERS],
            }
        )
        await _relay(reader, writer, receive, send, handler)
    finally:
        writer.transport.abort()
    if handler is not None and handler._error is not None:
        raise handler._error  # the handler raised after accept (closed 1011): raised out of the call, as Starlette


async def _handler(entry: AsgiEntry, dispatcher: Any, port: int) -> Any:
    """The WebSocket the engine opened for this connection (None when no route took it), taken off the
    dispatcher's record on its loop."""
    if dispatcher is None:
        return None

    async def take() -> Any:
        found = dispatcher.by_port.pop(port, None)
        return found[0] if found is not None else None

    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(take(), entry.runtime.loop))


async def _handshake(
    entry: AsgiEntry, scope: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> tuple[int, list[tuple[bytes, bytes]]]:
    key = ws_frames.new_key()
    headers = [(bytes(k).lower(), bytes(v)) for k, v in scope.get("headers") or ()]
    headers = [(k, v) for k, v in headers if k not in _HANDSHAKE]
    names = {k for k, _ in headers}
    if b"host" not in names:
        server = scope.get("server")
        headers.insert(0, (b"host", str(server[0] if server else "testserver").encode("latin-1")))
    for name, value in ((b"upgrade", b"websocket"), (b"connection", b"Upgrade"), (b"sec-websocket-version", b"13")):
        if name not in names:
            headers.append((name, value))
    if b"sec-websocket-protocol" not in names and scope.get("subprotocols"):
        headers.append((b"sec-websocket-protocol", ", ".join(scope["subprotocols"]).encode("latin-1")))
    headers.append((b"sec-websocket-key", key.encode()))
    headers.append(entry.marker(scope))
    line = f"GET {wire.request_target(scope, scope.get('root_path') or '')} HTTP/1.1"
    writer.write(wire.head_bytes(line, headers))
    await writer.drain()
    status, answer = await wire.read_head(reader)
    if status == 101 and wire.header(answer, b"sec-websocket-accept") != ws_frames.accept_value(key).encode():
        raise wire.CutShort("the engine's WebSocket handshake answer does not match its key")
    return status, answer


async def _refused(reader: asyncio.StreamReader, headers: list[tuple[bytes, bytes]], handler: Any, send: Any) -> None:
    """The handshake was refused: the handler's exception is raised (the server answers 500), else its close
    (code and reason) is sent before accept (the server answers 403); a path without a WebSocket route closes
    with 1000, as Starlette's router does."""
    async for _chunk, _more in wire.body_chunks(reader, headers, False):
        pass
    if handler is not None and handler._error is not None:
        raise handler._error
    code, reason = (handler._refused if handler is not None else None) or (1000, "")
    await send({"type": "websocket.close", "code": code, "reason": reason})


async def _relay(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receive: Any, send: Any, handler: Any
) -> int:
    """Both directions until a close; returns the close code."""
    gone: list[int] = []  # the client's close code, once it left (nothing is sent to it after that)
    to_client = asyncio.ensure_future(_engine_to_client(reader, writer, send, gone, handler))
    to_engine = asyncio.ensure_future(_client_to_engine(receive, writer, gone))
    try:
        done, _ = await asyncio.wait((to_client, to_engine), return_when=asyncio.FIRST_COMPLETED)
        if to_client in done:
            to_engine.cancel()
            return to_client.result()
        code = to_engine.result()
        if code in _NOT_SENT:
            return code  # dropped, not closed: the connection is cut and the handler sees 1006
        try:  # the client closed: the engine answers with its close frame
            await asyncio.wait_for(asyncio.shield(to_client), _CLOSE_WAIT_S)
        except (asyncio.TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        return code
    finally:
        to_client.cancel()
        to_engine.cancel()


async def _engine_to_client(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, send: Any, gone: list[int], handler: Any
) -> int:
    parts: list[bytes] = []
    kind = ws_frames.TEXT
    while True:
        try:
            fin, opcode, payload = await ws_frames.read_frame(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            if not gone:
                await send({"type": "websocket.close", "code": 1006, "reason": ""})
            return 1006
        if opcode == ws_frames.PING:
            writer.write(ws_frames.client_frame(ws_frames.PONG, payload))
            continue
        if opcode == ws_frames.PONG:
            continue
        if opcode == ws_frames.CLOSE:
            code, reason = ws_frames.parse_close(payload)
            try:
                writer.write(ws_frames.client_frame(ws_frames.CLOSE, payload[:2]))
            except (ConnectionError, RuntimeError):
                pass
            # A handler that raised is not closed from here: its exception leaves the call (the server closes 1011).
            if not gone and not (handler is not None and handler._error is not None):
                await send({"type": "websocket.close", "code": code, "reason": reason})
            return code
        if opcode != ws_frames.CONT:
            kind = opcode
        parts.append(payload)
        if not fin:
            continue
        data, parts = b"".join(parts), []
        if kind == ws_frames.TEXT:
            await send({"type": "websocket.send", "text": data.decode("utf-8")})
        else:
            await send({"type": "websocket.send", "bytes": data})


async def _client_to_engine(receive: Any, writer: asyncio.StreamWriter, gone: list[int]) -> int:
    while True:
        message = await receive()
        kind = message["type"]
        if kind == "websocket.receive":
            if message.get("text") is not None:
                writer.write(ws_frames.client_frame(ws_frames.TEXT, message["text"].encode("utf-8")))
            else:
                writer.write(ws_frames.client_frame(ws_frames.BINARY, bytes(message.get("bytes") or b"")))
            await writer.drain()
        elif kind == "websocket.disconnect":
            code = int(message.get("code") or 1000)
            gone.append(code)
            if code in _NOT_SENT:
                return code
            payload = ws_frames.close_payload(code, message.get("reason"))
            try:
                writer.write(ws_frames.client_frame(ws_frames.CLOSE, payload))
                await writer.drain()
            except ConnectionError:
                pass
            return code
