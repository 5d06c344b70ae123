"""AsgiServer: any ASGI 3 application served by the engine, as one App whose routes catch every path.

The engine parses, applies limits, CORS, auth, rate limits, access log and metrics, and answers /health,
/livez, /readyz and /metrics itself; every other request runs the app through its `http` or `websocket` scope
on the executor's loop (python/slipstream/README.md, "Where Python runs"). The app's `lifespan` runs as the
App's lifespan (startup before serving, shutdown after the drain).
"""

from __future__ import annotations

import asyncio
import inspect
import re
from typing import Any

from .._core.route_desc import ArgDesc, RouteDesc
from .._core.websocket import WebSocket
from ..app import App
from ..websockets import install_websockets
from ._http import HttpCycle, http_scope
from ._lifespan import AsgiLifespan
from ._websocket import WebSocketCycle, websocket_scope

# Every method the router can route (an unknown method token is answered by the engine: 405).
METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE")
# Every path: "/" and anything below it.
PATTERNS = ("/", "/{path:path}")


def is_asgi3(app: Any) -> bool:
    """Whether `app` is an ASGI 3 callable: app(scope, receive, send) returning an awaitable."""
    call = app if inspect.isfunction(app) or inspect.ismethod(app) else getattr(app, "__call__", None)  # noqa: B004
    if call is None:
        return False
    if inspect.iscoroutinefunction(call):
        return _positional_count(call) == 3
    return callable(app)


def _positional_count(func: Any) -> int:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return 3
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


_CONVERTORS = {"str", "int", "float", "uuid", "path"}
_PARAM = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)(?::([a-zA-Z_][a-zA-Z0-9_]*))?\}")


def find_websocket_paths(app: Any, prefix: str = "", depth: int = 0) -> list[str]:
    """The WebSocket paths an app declares (Starlette's and FastAPI's WebSocket routes, under their Mounts and
    included routers), in the engine's pattern syntax. The engine routes a WebSocket handshake only on a path
    registered for it."""
    if depth > 16:
        return []
    routes = getattr(app, "routes", None)
    if routes is None:
        inner = getattr(app, "app", None)  # an ASGI middleware around the app
        return find_websocket_paths(inner, prefix, depth + 1) if inner is not None and inner is not app else []
    return list(dict.fromkeys(_walk(routes, prefix, depth)))


def _walk(routes: Any, prefix: str, depth: int) -> list[str]:
    found: list[str] = []
    for route in routes:
        candidates = getattr(route, "effective_candidates", None)
        if callable(candidates):  # FastAPI's included router (its routes, with the include's prefix applied)
            low = getattr(route, "effective_low_priority_routes", None)
            inner = [*candidates(), *(low() if callable(low) else ())]
            found.extend(_walk([getattr(c, "starlette_route", c) for c in inner], prefix, depth + 1))
            continue
        path = getattr(route, "path", None)
        if not isinstance(path, str):
            continue
        if "WebSocket" in type(route).__name__:
            found.append(_engine_pattern(prefix + path))
        elif getattr(route, "routes", None) is not None or getattr(route, "app", None) is not None:
            found.extend(find_websocket_paths(getattr(route, "app", None) or route, prefix + path.rstrip("/"), depth + 1))
    return found


def _engine_pattern(path: str) -> str:
    def convert(match: re.Match[str]) -> str:
        name, convertor = match.group(1), match.group(2)
        return "{" + name + (":" + convertor if convertor in _CONVERTORS else "") + "}"

    return _PARAM.sub(convert, path or "/")


class AsgiServer(App):
    """Serves `asgi_app` (FastAPI, Starlette, Litestar, any ASGI 3 callable) with `run(host, port, threads,
    **server options)`, like App.run. `root_path`: the prefix a proxy strips (scope root_path, and path/raw_path
    start with it, as under uvicorn). `lifespan`: "auto" (as uvicorn: an app that raises on the lifespan scope
    does not use it), "on" or "off"."""

    def __init__(self, asgi_app: Any, *, root_path: str = "", lifespan: str = "auto",
                 websocket_paths: list[str] | None = None, **server_options: Any) -> None:
        if lifespan not in ("auto", "on", "off"):
            raise ValueError("lifespan must be 'auto', 'on' or 'off'")
        # No OpenAPI document or docs pages of its own: those paths belong to the app.
        # The app's responses go out as it made them: compression is the app's (GZipMiddleware), unless asked.
        server_options.setdefault("compression", False)
        super().__init__(title=getattr(asgi_app, "title", None) or type(asgi_app).__name__, openapi_url=None,
                         redirect_slashes=False, **server_options)
        self.asgi_app = asgi_app
        self.asgi_root_path = root_path.rstrip("/")
        self.asgi_lifespan = lifespan
        self.runtime: Any = None  # the AppRuntime, once built
        # Paths whose GET with an Upgrade is a WebSocket (the engine routes one kind of GET per pattern): given,
        # or found in the app's routes.
        self.websocket_paths = [_engine_pattern(p) for p in websocket_paths] if websocket_paths is not None \
            else find_websocket_paths(asgi_app)
        self._host = "127.0.0.1"
        self._native: Any = None
        self._server: tuple[str, int] | None = None
        if lifespan != "off":
            self.lifespan_context = lambda _app: AsgiLifespan(asgi_app, required=lifespan == "on")
        self._scheme = "http"

    def build_native(self, *, late_changes: bool = False, **options: Any) -> tuple[Any, Any]:
        native, runtime = super().build_native(late_changes=late_changes, **options)
        merged = {**self.server_options, **{k: v for k, v in options.items() if v is not None}}
        self._scheme = "https" if merged.get("tls_cert_file") else "http"
        desc = RouteDesc(handler=self._http, is_coroutine=True, status_code=200,
                         args=(ArgDesc.request("request"), ArgDesc.reply()), params=(), body=(), path_params=())
        taken = set(self.websocket_paths)
        for pattern in PATTERNS:
            for method in METHODS:
                if not (method == "GET" and pattern in taken):
                    native.add_route(method, pattern, desc)
        install_websockets(native, runtime, [(pattern, self._websocket, []) for pattern in self.websocket_paths])
        self.runtime = runtime
        self._native = native
        self._server = None
        return native, runtime

    @property
    def server_address(self) -> tuple[str, int] | None:
        """The scope's `server`: the address run() listens on (its port once bound)."""
        if self._server is None and self._native is not None:
            port = self._native.port
            if port:
                self._server = (self._host, port)
        return self._server

    def run(self, host: str | None = None, port: int | None = None, threads: int | None = None,
            **options: Any) -> int:
        self._host = host or "127.0.0.1"
        return super().run(host=host, port=port, threads=threads, **options)

    async def _http(self, request: Any, __reply__: Any) -> None:
        cycle = HttpCycle(__reply__, request.body_bytes, request.method == "HEAD")
        scope = http_scope(request, self.asgi_root_path, self.server_address)
        error: BaseException | None = None
        try:
            await self.asgi_app(scope, cycle.receive, cycle.send)
        except asyncio.CancelledError as exc:
            error = exc
            raise
        except Exception as exc:  # noqa: BLE001 - the app's error: a 500 or a cut connection, logged
            error = exc
        finally:
            if error is not None or not cycle.complete:
                cycle.finish(error, request.path, request.method)

    async def _websocket(self, websocket: WebSocket) -> None:
        cycle = WebSocketCycle(websocket)
        scheme = "wss" if self._scheme == "https" else "ws"
        state = self.runtime.lifespan_state if self.runtime is not None else None
        scope = websocket_scope(websocket, self.asgi_root_path, self.server_address, state, scheme)
        error: BaseException | None = None
        try:
            await self.asgi_app(scope, cycle.receive, cycle.send)
        except Exception as exc:  # noqa: BLE001 - the app's error: a 500 before accept, 1011 after
            error = exc
        finally:
            cycle.finish(error)
