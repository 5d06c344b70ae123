"""`app.mount(path, asgi_app)`: an ASGI app (FastAPI, Starlette, a WSGI app in WSGIMiddleware, any ASGI 3
callable) served under `path` of a Slipstream App, with the scope Starlette's Mount gives it.

The engine routes every method of `path/...` to it (and `path` itself is answered 307 to `path/` by the engine's
slash redirect, as Starlette's router does); the app runs in the request's task on the executor's loop through
the same bridge as AsgiServer (http.py, websocket.py). Its scope: `root_path` is the app's root path plus `path`,
`path` and `raw_path` are whole (Starlette's rule since 0.33), `app_root_path` the app's root path. The mounted
app's own lifespan is not run (as under Starlette's Mount).
"""

from __future__ import annotations

from typing import Any

from .. import _server_errors
from .._core.route_desc import ArgDesc, RouteDesc
from .._core.websocket import WebSocket
from .._route_misses import make_redirect_runner
from ..datastructures import URLPath
from ..exceptions import NoMatchFound
from ..websockets import install_websockets
from .discover import METHODS, find_websocket_paths
from .http import HttpCycle, http_scope, run_http
from .websocket import WebSocketCycle, run_websocket, websocket_scope

_REST = "{__slipstream_mount:path}"


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

    def install_native(self, native: Any, runtime: Any, path: str) -> None:
        """Adds every method of `path/...` (and `path` itself: 307 to `path/`, or 404 without the App's
        redirect_slashes) and the app's WebSocket paths under `path` to `native`."""
        self.path = "" if path == "/" else path.rstrip("/")
        self._owner = getattr(runtime, "app", None)
        self._state = runtime
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
                handler=make_redirect_runner(runtime),
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
        cycle = HttpCycle(__reply__, request.body_bytes, request.method == "HEAD")
        root = request.root_path
        scope = http_scope(request, root, _server_of(request.url))
        await run_http(self.app, self._child(scope, root), cycle, request, self._report)

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


__all__ = ["AsgiMount"]
