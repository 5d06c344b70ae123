"""WSGIMiddleware: a WSGI application (Flask, Django, any PEP 3333 callable) as an ASGI app, to mount beside an
App's routes (`app.mount("/legacy", WSGIMiddleware(flask_app))`), as fastapi.middleware.wsgi / a2wsgi do.

The WSGI call runs in the app's thread pool (slipstream._threads: a blocking app never stalls the loop). The
environ follows PEP 3333 as Starlette's middleware builds it: SCRIPT_NAME is the scope's root_path (the mount's
path), PATH_INFO the rest of the path, headers as HTTP_* (Content-Type and Content-Length without the prefix,
repeated headers joined by ","). A body the app returns as a list or tuple is sent in one message (the engine
sets its Content-Length); any other iterable is streamed, one chunk per item, each sent before the next is read.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable, Iterable
from typing import Any

from .. import _threads

# Bytes of a request body read into wsgi.input at most (the engine's max_body_bytes is checked before this).
DEFAULT_MAX_BODY = 64 << 20


def build_environ(scope: dict[str, Any], body: bytes) -> dict[str, Any]:
    """The WSGI environ of an ASGI `http` scope and its whole body."""
    script_name = scope.get("root_path", "").encode("utf-8").decode("latin-1")
    path_info = scope["path"].encode("utf-8").decode("latin-1")
    path_info = path_info.removeprefix(script_name)
    server = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path_info,
        "QUERY_STRING": scope.get("query_string", b"").decode("ascii", "replace"),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stdout,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"] = client[0]
        environ["REMOTE_PORT"] = str(client[1])
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1")
        key = name.upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        value = raw_value.decode("latin-1")
        environ[key] = environ[key] + "," + value if key in environ else value
    return environ


class _Exchange:
    """One WSGI call's response: start_response's status and headers, and the sends it makes from its thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, send: Callable[[dict[str, Any]], Any]) -> None:
        self.loop = loop
        self.send = send
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.called = False  # start_response was called
        self.started = False  # the head went to the server

    def start_response(self, status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[..., Any]:
        if exc_info is not None and self.started:
            raise exc_info[1].with_traceback(exc_info[2])
        if self.called and exc_info is None:
            raise RuntimeError("start_response called twice without exc_info")
        self.called = True
        code = status.split(" ", 1)[0]
        if not code.isdigit():
            raise ValueError(f"WSGI status must start with a 3-digit code: {status!r}")
        self.status = int(code)
        self.headers = [
            (name.strip().lower().encode("latin-1"), value.strip().encode("latin-1")) for name, value in headers
        ]
        return self.write

    def write(self, data: bytes) -> None:
        """The legacy write() callable: a chunk before the iterable's."""
        if data:
            self.emit(bytes(data), True)

    def _post(self, message: dict[str, Any]) -> None:
        asyncio.run_coroutine_threadsafe(self.send(message), self.loop).result()

    def emit(self, body: bytes, more: bool) -> None:
        """Sends the head (once) and a body chunk, from the WSGI thread, waiting until the server took it."""
        if not self.called:
            raise RuntimeError("the WSGI app returned a body before calling start_response")
        if not self.started:
            self.started = True
            self._post({"type": "http.response.start", "status": self.status, "headers": self.headers})
        self._post({"type": "http.response.body", "body": body, "more_body": more})

    def run(self, app: Callable[..., Iterable[bytes]], environ: dict[str, Any]) -> None:
        result = app(environ, self.start_response)
        try:
            if isinstance(result, (list, tuple)):
                self.emit(b"".join(result), False)
                return
            for chunk in result:
                if chunk:
                    self.emit(bytes(chunk), True)
            self.emit(b"", False)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()


class WSGIMiddleware:
    """`WSGIMiddleware(wsgi_app)`: an ASGI app serving `http` requests with `wsgi_app`. `max_body`: the largest
    request body given to it (a larger one is answered 413 before the app runs)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], *, max_body: int = DEFAULT_MAX_BODY) -> None:
        if not isinstance(max_body, int) or max_body < 0:
            raise ValueError(f"max_body must be a non-negative integer, not {max_body!r}")
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1000})
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 413,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")],
                    }
                )
                await send({"type": "http.response.body", "body": b"Request body too large"})
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        exchange = _Exchange(asyncio.get_running_loop(), send)
        await _threads.run_sync(exchange.run, self.app, build_environ(scope, b"".join(chunks)))


__all__ = ["WSGIMiddleware", "build_environ"]
