"""AsgiServer: any ASGI 3 application served by the engine, as one App whose routes catch every path.

The engine parses, applies limits, CORS, auth, rate limits, access log and metrics, and answers /health,
/livez, /readyz and /metrics itself; every other request runs the app through its `http` or `websocket` scope
on the executor's loop (python/slipstream/README.md, "Where Python runs"). The app's `lifespan` runs as the
App's lifespan (startup before serving, shutdown after the drain).
"""

from __future__ import annotations

from typing import Any

from .._asgi.discover import METHODS, engine_pattern, find_websocket_paths, is_asgi3
from .._asgi.http import ASGI_VERSION, EXTENSIONS, ServerCycle, run_http
from .._asgi.websocket import WebSocketCycle, run_websocket, websocket_scope
from .._core.route_desc import ArgDesc, RouteDesc
from .._core.websocket import WebSocket
from ..app import App
from ..websockets import install_websockets
from ._lifespan import AsgiLifespan

__all__ = ["METHODS", "PATTERNS", "AsgiServer", "is_asgi3"]
# Every path: "/" and anything below it.
PATTERNS = ("/", "/{path:path}")


def resolve_loop(loop: str) -> str:
    """The executor's loop for `loop` ("auto": uvloop when it can be imported, else asyncio)."""
    if loop not in ("auto", "asyncio", "uvloop"):
        raise ValueError("loop must be 'auto', 'asyncio' or 'uvloop'")
    if loop == "asyncio":
        return loop
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if loop == "uvloop":
            raise ValueError("loop='uvloop' needs the uvloop package (pip install uvloop)") from None
        return "asyncio"
    return "uvloop"


class AsgiServer(App):
    """Serves `asgi_app` (FastAPI, Starlette, Litestar, any ASGI 3 callable) with `run(host, port, threads,
    **server options)`, like App.run. `root_path`: the prefix a proxy strips (scope root_path, and path/raw_path
    start with it, as under uvicorn). `lifespan`: "auto" (as uvicorn: an app that raises on the lifespan scope
    does not use it), "on" or "off". `loop`: the executor's event loop, "auto" (uvloop when installed, as
    uvicorn's), "asyncio" or "uvloop"."""

    def __init__(self, asgi_app: Any, *, root_path: str = "", lifespan: str = "auto", loop: str = "auto",
                 websocket_paths: list[str] | None = None, **server_options: Any) -> None:
        if lifespan not in ("auto", "on", "off"):
            raise ValueError("lifespan must be 'auto', 'on' or 'off'")
        self.event_loop = resolve_loop(loop)
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
        self.websocket_paths = [engine_pattern(p) for p in websocket_paths] if websocket_paths is not None \
            else find_websocket_paths(asgi_app)
        self._host = "127.0.0.1"
        self._native: Any = None
        self._server: tuple[str, int] | None = None
        if lifespan != "off":
            self.lifespan_context = lambda _app: AsgiLifespan(asgi_app, required=lifespan == "on")
        self._scheme = "http"
        self._scope_base: dict[str, Any] | None = None  # the keys every request's scope shares

    def build_native(self, *, late_changes: bool = False, **options: Any) -> tuple[Any, Any]:
        native, runtime = super().build_native(late_changes=late_changes, **options)
        merged = {**self.server_options, **{k: v for k, v in options.items() if v is not None}}
        self._scheme = "https" if merged.get("tls_cert_file") else "http"
        # The scope is built in C++ from the engine's request (PendingReply.asgi_scope), unless the client and
        # scheme come from proxy headers: those are read by the Request object (_proxy.RequestFactory).
        if merged.get("proxy_headers"):
            desc = RouteDesc(handler=self._http_proxied, is_coroutine=True, status_code=200,
                             args=(ArgDesc.request("request"), ArgDesc.reply()), params=(), body=(), path_params=())
        else:
            desc = RouteDesc(handler=self._http, is_coroutine=True, status_code=200, args=(ArgDesc.reply(),),
                             params=(), body=(), path_params=())
        taken = set(self.websocket_paths)
        for pattern in PATTERNS:
            for method in METHODS:
                if not (method == "GET" and pattern in taken):
                    native.add_route(method, pattern, desc)
        install_websockets(native, runtime, [(pattern, self._websocket, []) for pattern in self.websocket_paths])
        self.runtime = runtime
        self._native = native
        self._server = None
        self._scope_base = None
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

    def _base(self) -> dict[str, Any]:
        """The keys every request's scope shares (once the server's address is known)."""
        base = self._scope_base
        if base is None:
            base = {"type": "http", "asgi": ASGI_VERSION, "http_version": "1.1", "server": self.server_address,
                    "scheme": self._scheme, "root_path": self.asgi_root_path, "extensions": EXTENSIONS}
            if base["server"] is not None:
                self._scope_base = base
        return base

    async def _http(self, __reply__: Any) -> None:
        scope = __reply__.asgi_scope(self._scope_base or self._base(), self.runtime.lifespan_state)
        cycle = ServerCycle(__reply__, __reply__.body(), scope["method"] == "HEAD")
        await run_http(self.asgi_app, scope, cycle)

    async def _http_proxied(self, request: Any, __reply__: Any) -> None:
        """As _http, with the client and scheme the proxy headers gave (read by the Request)."""
        scope = __reply__.asgi_scope(self._scope_base or self._base(), self.runtime.lifespan_state)
        client = request.client
        scope["client"] = (client.host, client.port) if client is not None else None
        scope["scheme"] = request.scheme
        cycle = ServerCycle(__reply__, request.body_bytes, scope["method"] == "HEAD")
        await run_http(self.asgi_app, scope, cycle)

    async def _websocket(self, websocket: WebSocket) -> None:
        scheme = "wss" if self._scheme == "https" else "ws"
        state = self.runtime.lifespan_state if self.runtime is not None else None
        scope = websocket_scope(websocket, self.asgi_root_path, self.server_address, state, scheme)
        await run_websocket(self.asgi_app, scope, WebSocketCycle(websocket))
