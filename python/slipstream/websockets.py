"""WebSocket routes: FastAPI's `@app.websocket(path)` and Starlette's `WebSocket` API over the C++ engine.

The C++ engine does the handshake, framing, fragmentation, UTF-8 checks, permessage-deflate, pings and the
close handshake on its I/O threads. Python sees whole messages: the I/O threads hand events to the executor's
asyncio loop through one eventfd (a `WebSocketHub`), and each connection's handler runs as a task there.

The handshake waits for the handler, as with Starlette: `await websocket.accept(subprotocol=..., headers=...)`
sends the 101 with the chosen subprotocol (one the client offered) and headers; closing before `accept()`, or a
handler that ends without accepting, answers HTTP 403.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from . import _native
from ._core.websocket import (
    EVENT_CLOSE,
    EVENT_OPEN,
    WebSocket,
    WebSocketDisconnect,
    WebSocketException,
    WebSocketState,
    close_socket,
)
from ._ws_endpoint import WebSocketValidationError, WsEndpoint
from .middleware.asgi import AsgiMiddleware, websocket_through

__all__ = ["WebSocket", "WebSocketDisconnect", "WebSocketException", "WebSocketState", "install_websockets"]

logger = logging.getLogger("slipstream.error")


class _Dispatcher:
    """Reads the hub on the executor's loop and routes events to each connection's WebSocket and task."""

    def __init__(self, hub: Any, endpoints: list[WsEndpoint], prepare: list[Callable[[WebSocket], None]],
                 layers: list[Any] | None = None, telemetry: Any = None) -> None:
        self.hub = hub
        self.telemetry = telemetry  # the app's slipstream.telemetry, or None
        self.endpoints = endpoints
        self.prepare = prepare
        # The app's pure ASGI middleware (middleware/asgi.py), outermost first: each connection passes them.
        self.layers = layers or []
        self.sockets: dict[int, WebSocket] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        # Client port -> (socket, its task), kept only while a TestClient tracks connections (it takes its own).
        self.tracking = False
        self.by_port: dict[int, tuple[WebSocket, asyncio.Task[None]]] = {}
        self._opened: asyncio.Event | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.add_reader(self.hub.fileno(), self.on_ready)

    def on_ready(self) -> None:
        for kind, conn_id, payload, code in self.hub.drain():
            if kind == EVENT_OPEN:
                self._open(conn_id, payload)
                continue
            ws = self.sockets.get(conn_id)
            if ws is None:
                continue
            if kind == EVENT_CLOSE:
                del self.sockets[conn_id]
            ws._deliver(kind, payload, code)

    def _open(self, conn_id: int, native: Any) -> None:
        ws = WebSocket(native)
        for prepare in self.prepare:
            prepare(ws)
        self.sockets[conn_id] = ws
        endpoint = self.endpoints[native.route]
        if self.layers:
            work = websocket_through(self.layers, ws, lambda target: self.run(endpoint, target))
        else:
            work = self.run(endpoint, ws)
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        port = _port_of(ws.client_address) if self.tracking else None
        if port is not None:
            self.by_port[port] = (ws, task)
        if self._opened is not None:
            self._opened.set()

    async def connection(self, port: int) -> tuple[WebSocket, asyncio.Task[None]]:
        """The connection from client port `port` once its handler accepted, closed or ended."""
        while port not in self.by_port:
            if self._opened is None:
                self._opened = asyncio.Event()
            self._opened.clear()
            await self._opened.wait()
        ws, task = self.by_port.pop(port)
        settled = asyncio.ensure_future(ws._settled.wait())
        await asyncio.wait([settled, task], return_when=asyncio.FIRST_COMPLETED)
        settled.cancel()
        return ws, task

    async def run(self, endpoint: WsEndpoint, ws: WebSocket) -> None:
        record = self.telemetry.start_websocket(ws, endpoint.path) if self.telemetry is not None else None
        failure: BaseException | None = None
        try:
            await endpoint.call(ws)
        except WebSocketDisconnect as exc:
            if exc.code not in (1000, 1001):  # FastAPI's telemetry: only a normal close is no failure
                failure = exc
        except WebSocketException as exc:
            close_socket(ws, exc.code, exc.reason)
        except WebSocketValidationError as exc:
            if record is not None:
                record.validation_failed(exc)
            close_socket(ws, 1008, str(exc.errors))  # FastAPI's WS_1008_POLICY_VIOLATION with the errors as the reason
        except Exception as exc:
            logger.error("Exception in WebSocket handler", exc_info=exc)
            ws._error = failure = exc
            if record is not None:
                record.exception(exc)
            close_socket(ws, 1011, "")
        except BaseException as exc:
            failure = exc
            raise
        finally:
            ws._settled.set()
            if record is not None:
                record.finish(error=failure)
                record.detach()
        close_socket(ws, 1000, "")


def _port_of(client: str) -> int | None:
    _, sep, port = client.rpartition(":")
    return int(port) if sep and port.isdigit() else None


def install_websockets(native: Any, runtime: Any, routes: list[tuple[str, Callable[..., Any], list[Any]]]) -> None:
    """Registers `routes` ((path, handler, dependencies)) on the native app and reads their events on the
    executor's loop once it starts."""
    if not routes:
        return
    hub = _native.WebSocketHub()
    app = getattr(runtime, "app", None)
    overrides = (lambda: app.dependency_overrides) if app is not None and hasattr(app, "dependency_overrides") \
        else dict
    endpoints = []
    for index, (path, func, dependencies) in enumerate(routes):
        endpoints.append(WsEndpoint(func, path, dependencies, overrides))
        _native.add_websocket_route(native, path, hub, index)
    # Middleware that prepares a connection (SessionMiddleware: websocket.session), outermost first.
    prepare = [m.prepare_websocket for m in getattr(app, "user_middleware", ()) if hasattr(m, "prepare_websocket")]
    # First the scheme ("wss" on TLS, behind a trusted proxy, for a TestClient's wss:// URL) and client (_proxy.py).
    requests = getattr(runtime, "_make_request", None)
    if hasattr(requests, "prepare_websocket"):
        prepare.insert(0, requests.prepare_websocket)
    layers = [m for m in getattr(app, "user_middleware", ()) if isinstance(m, AsgiMiddleware)]
    dispatcher = _Dispatcher(hub, endpoints, prepare, layers, getattr(app, "telemetry", None))
    started = runtime._loop_started

    def loop_started(loop: asyncio.AbstractEventLoop) -> None:
        started(loop)
        dispatcher.attach(loop)

    runtime._loop_started = loop_started
    runtime.websocket_dispatcher = dispatcher
