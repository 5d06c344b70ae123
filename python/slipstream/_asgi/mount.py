"""`app.mount(path, asgi_app)`: an ASGI app (FastAPI, Starlette, a WSGI app in WSGIMiddleware, any ASGI 3
callable) served under `path` of a Slipstream App, with the scope Starlette's Mount gives it.

The engine routes every method of `path/...` to it (and `path` itself is answered 307 to `path/` by the engine's
slash redirect, as Starlette's router does); the app runs in the request's task on the executor's loop through
the same bridge as AsgiServer (http.py, websocket.py). Its scope: `root_path` is the app's root path plus `path`,
`path` and `raw_path` are whole (Starlette's rule since 0.33), `app_root_path` the app's root path. The mounted
app's own lifespan is not run (as under Starlette's Mount).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from .. import _server_errors, telemetry
from .._core.route_desc import ArgDesc, RouteDesc
from .._core.websocket import WebSocket
from .._route_misses import redirect_response
from ..datastructures import URLPath
from ..dependencies.runner import answer_through_chain
from ..exceptions import NoMatchFound
from ..middleware import MiddlewareChain, dispatcher
from ..responses import Response, StreamingResponse
from ..websockets import install_websockets
from .discover import METHODS, find_websocket_paths
from .http import HttpCycle, http_scope, run_http, split_headers
from .websocket import WebSocketCycle, run_websocket, websocket_scope

_REST = "{__slipstream_mount:path}"
logger = logging.getLogger("slipstream.error")


def _server_of(url: Any) -> tuple[str, int] | None:
    """The scope's `server` as the Host header names it (the TestClient's and a proxied server's view)."""
    host = url.hostname
    if not host:
        return None
    return host, url.port or (443 if url.scheme in ("https", "wss") else 80)


class AsgiMount:
    """What App.mount registers for an ASGI app: its routes on the engine, once the App is built; the paths of its
    named routes (url_path_for, as Starlette's Mount gives them)."""

    def __init__(self, app: Any, name: str | None, path: str) -> None:
        self.app = app
        self.name = name
        self.path = "" if path == "/" else path.rstrip("/")
        self._owner: Any = None  # the App: its TestClient sees the mounted app's exceptions; scope["router"]
        self._state: Any = None
        self._chain: MiddlewareChain | None = None  # the App's HTTP middleware, when it has some

    def install_native(self, native: Any, runtime: Any, path: str) -> None:
        """Adds every method of `path/...` (and `path` itself: 307 to `path/`, or 404 without the App's
        redirect_slashes) and the app's WebSocket paths under `path` to `native`."""
        self.path = "" if path == "/" else path.rstrip("/")
        self._owner = getattr(runtime, "app", None)
        self._state = runtime
        user_middleware = getattr(self._owner, "user_middleware", None) or []
        traced = getattr(self._owner, "telemetry", None)  # the App's telemetry traces the mounted app's requests
        self._chain = (
            MiddlewareChain([dispatcher(m) for m in user_middleware], self._owner.exception_handlers, traced)
            if user_middleware or traced is not None
            else None
        )
        desc = RouteDesc(
            handler=self._http,
            is_coroutine=True,
            status_code=200,
            args=(ArgDesc.request("request"), ArgDesc.reply()),
            params=(),
            body=(),
            path_params=(),
        )
        pattern = f"{self.path}/{_REST}"
        for method in METHODS:
            native.add_route(method, pattern, desc)
        if self.path and getattr(self._owner, "redirect_slashes", True):
            redirect = RouteDesc(
                handler=self._redirect,
                is_coroutine=True,
                status_code=307,
                args=(ArgDesc.request("__request__"), ArgDesc.reply()),
                params=(),
                body=(),
                path_params=(),
            )
            for method in METHODS:
                native.add_route(method, self.path, redirect)
        sockets = find_websocket_paths(self.app, self.path)
        install_websockets(native, runtime, [(p, self._websocket, []) for p in sockets])

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """Starlette's Mount.url_path_for: `name` (the mount's own with `path=`), or a route of the mounted app,
        named `"<mount name>:<route name>"` when the mount has a name; NoMatchFound otherwise."""
        if self.name is not None and name == self.name and set(path_params) == {"path"}:
            return URLPath(self.path + "/" + str(path_params["path"]).lstrip("/"))
        if self.name is None or name.startswith(self.name + ":"):
            rest = name if self.name is None else name[len(self.name) + 1 :]
            finder = getattr(self.app, "url_path_for", None)
            if finder is not None:
                try:
                    found = finder(rest, **path_params)
                except Exception:  # noqa: BLE001 - the mounted framework's NoMatchFound: ours below
                    found = None
                if found is not None:
                    return URLPath(self.path + str(found), getattr(found, "protocol", "http"))
        raise NoMatchFound(name, path_params)

    def _report(self, exc: BaseException) -> None:
        if self._owner is not None:
            _server_errors.report(self._owner, exc)

    async def _http(self, request: Any, __reply__: Any) -> None:
        if self._chain is not None:  # the App's HTTP middleware around the mounted app, as in Starlette
            await answer_through_chain(
                self._chain, request, __reply__, self._state, lambda req, _after: self._captured(req)
            )
            return
        cycle = HttpCycle(__reply__, request.body_bytes, request.method == "HEAD")
        root = request.root_path
        scope = http_scope(request, root, _server_of(request.url))
        await run_http(self.app, self._child(scope, root), cycle, self._report)

    async def _redirect(self, __request__: Any, __reply__: Any) -> None:
        """`path` itself: 307 to `path/` (through the App's HTTP middleware, as Starlette's router answers it)."""
        chain = self._chain or MiddlewareChain([], getattr(self._owner, "exception_handlers", None))
        await answer_through_chain(chain, __request__, __reply__, self._state, lambda req, _after: _redirected(req))

    async def _captured(self, request: Any) -> Response:
        """The mounted app's answer as a Response for the middleware chain, as Starlette's BaseHTTPMiddleware gets
        it: the app runs in a task of its own; a body sent in one message is a whole Response, a longer one a
        StreamingResponse fed as the app sends. An exception before the head goes to the chain (exception
        handlers, 500); one after it ends the body and reaches the TestClient."""
        root = request.root_path
        scope = self._child(http_scope(request, root, _server_of(request.url)), root)
        if self._chain is not None and self._chain.telemetry is not None:
            telemetry.route_selected(self.path + "/{path}")  # Starlette's Mount path, as FastAPI's telemetry names it
            scope["fastapi.telemetry"] = None  # a mounted FastAPI app does not record the request a second time
        bridge = _Bridge(request.body_bytes)
        task = asyncio.get_running_loop().create_task(self._run_bridged(scope, bridge))
        head = await bridge.first
        if isinstance(head, BaseException):
            await task
            raise head
        content_type, headers = split_headers(bridge.headers)
        body, more = head
        if not more:
            response: Response = Response(body, status_code=bridge.status, media_type=content_type)
        else:
            response = StreamingResponse(bridge.rest(body), status_code=bridge.status, media_type=content_type)
        response.raw_headers = list(headers)
        return response

    async def _run_bridged(self, scope: dict[str, Any], bridge: _Bridge) -> None:
        try:
            await self.app(scope, bridge.receive, bridge.send)
        except Exception as exc:  # to the chain before the head, else reported and logged
            if not bridge.first.done():
                bridge.first.set_result(exc)
                return
            logger.error("Exception in ASGI application", exc_info=exc)
            self._report(exc)
        finally:
            if not bridge.first.done():
                bridge.first.set_result(RuntimeError("the mounted ASGI app returned without a response"))
            bridge.close()

    async def _websocket(self, websocket: WebSocket) -> None:
        url = websocket.url
        state = getattr(self._state, "lifespan_state", None)
        scope = websocket_scope(websocket, "", _server_of(url), state, url.scheme)
        await run_websocket(self.app, self._child(scope, ""), WebSocketCycle(websocket))

    def _child(self, scope: dict[str, Any], root: str) -> dict[str, Any]:
        """Starlette's Mount child scope: root_path extended by the mount path, app_root_path the app's."""
        scope["app_root_path"] = root
        scope["root_path"] = root + self.path
        scope["path_params"] = {}
        if self._owner is not None:  # request.url_for in the mounted app finds the App's routes and mounts
            scope["router"] = self._owner
        return scope


async def _redirected(request: Any) -> Response:
    return redirect_response(request)


class _Bridge:
    """receive/send of a mounted app run in its own task: `first` gets (first body chunk, more to come) once the
    head and a body message arrived (or the exception raised before), `rest()` the chunks after it."""

    def __init__(self, body: bytes) -> None:
        loop = asyncio.get_running_loop()
        self._body: bytes | None = body
        self._ended = asyncio.Event()
        self.first: asyncio.Future[Any] = loop.create_future()
        self.status = 500
        self.headers: Any = ()
        self._chunks: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def receive(self) -> dict[str, Any]:
        body, self._body = self._body, None
        if body is not None:
            return {"type": "http.request", "body": body, "more_body": False}
        await self._ended.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.status = int(message["status"])
            self.headers = message.get("headers") or ()
            return
        if kind == "http.response.pathsend":
            with open(message["path"], "rb") as file:  # noqa: ASYNC230 - the middleware sees the file's bytes
                message = {"type": "http.response.body", "body": file.read()}
        if kind not in ("http.response.body", "http.response.pathsend"):
            return
        chunk, more = bytes(message.get("body", b"")), bool(message.get("more_body", False))
        if not self.first.done():
            self.first.set_result((chunk, more))
        elif chunk:
            await self._chunks.put(chunk)
        if not more:
            self.close()

    def close(self) -> None:
        if not self._ended.is_set():
            self._ended.set()
            self._chunks.put_nowait(None)

    async def rest(self, first: bytes) -> AsyncIterator[bytes]:
        if first:
            yield first
        while (chunk := await self._chunks.get()) is not None:
            yield chunk


__all__ = ["AsgiMount"]
