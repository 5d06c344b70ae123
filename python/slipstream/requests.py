"""Request: what a handler gets when it declares a parameter of this type (a copy; safe to keep)."""

from __future__ import annotations

import json as _json
from collections.abc import AsyncIterator, Generator
from typing import Any

from ._core.connection import HTTPConnection, parse_cookies
from ._core.form_body import parse_body
from ._lifespan import State
from .datastructures import URL, Address, Headers, QueryParams


class Request(HTTPConnection):
    """One HTTP request. Built only for handlers that ask for it (and for exception handlers).

    `await request.body()` / `await request.json()` as in Starlette; `body_bytes` and `json_sync()` for def handlers.
    The engine reads the whole body before the handler runs: `stream()` and `receive()` give it in one chunk.
    """

    __slots__ = (
        "_cookies",
        "_form",
        "_headers",
        "_json",
        "_query",
        "_raw_headers",
        "_receive",
        "_received",
        "_scope",
        "_scopes",
        "_session",
        "_state",
        "app",
        "body_bytes",
        "client_address",
        "lifespan_state",
        "method",
        "path",
        "path_params",
        "principal",
        "query_string",
        "route_path",
    )

    def __init__(self, method: Any, path: Any = None, query_string: str = "", headers: Any = (), body: Any = b"",
                 path_params: dict[str, str] | None = None, client: str = "", route: str = "",
                 principal: str | None = None, scopes: str | None = None) -> None:
        """The engine's fields; or Starlette's `Request(scope, receive)` (a Request subclass made from another
        request in a custom route class, FastAPI's "Custom Request and APIRoute class")."""
        if isinstance(method, dict):
            _from_scope(self, method, path)
            return
        self.method = method
        self.path = path
        self.query_string = query_string
        self._raw_headers = headers
        self.body_bytes = body
        self.path_params = path_params
        self.client_address = client
        self.route_path = route
        # Who sent it, when the app authenticates requests (App(auth=..., api_keys_file=... or jwt_*)): the API
        # key's principal or the JWT's `sub`, checked in C++ before the handler; None when anonymous.
        self.principal = principal
        # The credential's scopes as the engine read them (space-separated): an issued token's, a JWT's `scope` or
        # `scopes` claim; None when the credential carries none.
        self._scopes = scopes
        self._headers: Headers | None = None
        self._query: QueryParams | None = None
        self._json: Any = _UNSET
        self._cookies: dict[str, str] | None = None
        self._form: Any = None
        self._state: Any = None
        self._scope: dict[str, Any] | None = None
        self._session: Any = None  # set by SessionMiddleware (slipstream.middleware.sessions)
        self._received = False
        self._receive: Any = None  # Starlette's receive, when made from a scope (the body is read through it)
        self.app: Any = None  # the App serving it
        self.lifespan_state: dict[str, Any] | None = None  # what the lifespan yielded (copied into `state`)

    @property
    def scopes(self) -> list[str]:
        """The principal's scopes (an issued API token's, or a JWT's `scope` / `scopes` claim), as C++
        Request::scopes(): ["admin"], ["read:acme", "write:beta"]; [] when the credential carries none or the
        request is anonymous. slipstream.security.RequireScopes checks them."""
        return self._scopes.split() if self._scopes else []

    @property
    def state(self) -> Any:
        """Per-request attributes (`request.state.user = ...`), starting from a copy of the lifespan's state."""
        if self._state is None:
            self._state = State(dict(self.lifespan_state or {}))
        return self._state

    @property
    def headers(self) -> Headers:
        if self._headers is None:
            self._headers = Headers(self._raw_headers)
        return self._headers

    @property
    def query_params(self) -> QueryParams:
        if self._query is None:
            self._query = QueryParams(self.query_string)
        return self._query

    # The scheme and root path of the app's URLs: "http" and "" here (a Request made from a scope: the scope's);
    # ProxiedRequest (_proxy.py) holds the scheme of TLS or X-Forwarded-Proto and the app's root_path.
    @property
    def scheme(self) -> str:
        return "http" if self._receive is None else self._scope.get("scheme", "http")  # type: ignore[union-attr]

    @property
    def root_path(self) -> str:
        return "" if self._receive is None else self._scope.get("root_path", "")  # type: ignore[union-attr]

    @property
    def url(self) -> URL:
        return URL(self.scheme, self.headers.get("host", ""), self.root_path + self.path, self.query_string)

    @property
    def base_url(self) -> URL:
        """The app's URL: scheme, host and root path, ending in "/" (Starlette's base_url)."""
        return URL(self.scheme, self.headers.get("host", ""), self.root_path.rstrip("/") + "/", "")

    def url_for(self, name: str, /, **path_params: Any) -> URL:
        """The absolute URL of the route called `name` with `path_params` (Starlette's url_for: the app's
        url_path_for under base_url); NoMatchFound when the app has no such route."""
        if self.app is None:
            raise RuntimeError("The `url_for` method can only be used inside a Starlette application or with a router.")
        return self.app.url_path_for(name, **path_params).make_absolute_url(self.base_url)

    @property
    def scope(self) -> dict[str, Any]:
        """An ASGI-like scope built from the request (the keys FastAPI code reads: type, http_version, method,
        scheme, path, raw_path, root_path, query_string, headers, client, server, app, route, path_params,
        state). Built on first use; changing it changes nothing else."""
        if self._scope is None:
            url = self.url
            host = url.hostname or ""
            port = url.port or (443 if self.scheme in ("https", "wss") else 80)
            self._scope = {
                "type": "http",
                "asgi": {"version": "3.0", "spec_version": "2.3"},
                "http_version": "1.1",
                "method": self.method,
                "scheme": self.scheme,
                "path": self.path,
                "raw_path": self.path.encode(),
                "root_path": self.root_path,
                "query_string": self.query_string.encode("latin-1", "replace"),
                "headers": [(k.lower().encode("latin-1", "replace"), v.encode("latin-1", "replace"))
                            for k, v in self._raw_headers],
                "client": self.client,
                "server": (host, port) if host else None,
                "app": self.app,
                "route": self._route(),
                "path_params": self.path_params,
                "state": self.lifespan_state if self.lifespan_state is not None else {},
                "extensions": {},
            }
            if self._session is not None:
                self._scope["session"] = self._session
        return self._scope

    @property
    def session(self) -> Any:
        """The signed-cookie session (a dict) that SessionMiddleware loaded; an AssertionError without it, as in
        Starlette."""
        if self._session is None:
            raise AssertionError("SessionMiddleware must be installed to access request.session")
        mark = getattr(self._session, "mark_accessed", None)
        if mark is not None:
            mark()
        return self._session

    def _route(self) -> Any:
        """The app's route this request matched (a RouteDef: `.path`, `.name`, `.methods`, `.endpoint`)."""
        for route in getattr(self.app, "routes", ()):
            if route.path == self.route_path and self.method in route.methods:
                return route
        for route in getattr(self.app, "routes", ()):
            if route.path == self.route_path:
                return route
        return None

    @property
    def cookies(self) -> dict[str, str]:
        """The first Cookie header parsed as Starlette's cookie_parser does (lenient; the last duplicate wins)."""
        if self._cookies is None:
            self._cookies = parse_cookies(self.headers.get("cookie", ""))
        return self._cookies

    @property
    def client(self) -> Address | None:
        """The peer's `Address(host, port)` (None when unknown), as Starlette's `request.client`."""
        host, sep, port = self.client_address.rpartition(":")
        if not sep or not port.isdigit():
            return None
        return Address(host.strip("[]"), int(port))

    async def body(self) -> bytes:
        if self.body_bytes is None:  # made from a scope whose receive is not a Request's
            chunks = []
            while True:
                message = await self._receive()
                chunks.append(message.get("body", b""))
                if message.get("type") != "http.request" or not message.get("more_body"):
                    break
            self.body_bytes = b"".join(chunks)
        return self.body_bytes

    async def stream(self) -> AsyncIterator[bytes]:
        """The body as Starlette streams it: its bytes (read whole by the engine already), then b"" to end."""
        if self.body_bytes:
            yield self.body_bytes
        yield b""

    async def receive(self) -> dict[str, Any]:
        """ASGI's receive: one http.request message with the whole body, then http.disconnect."""
        if self._received:
            return {"type": "http.disconnect"}
        self._received = True
        return {"type": "http.request", "body": self.body_bytes, "more_body": False}

    async def is_disconnected(self) -> bool:
        """Whether the client has gone (Starlette's is_disconnected). The engine answers a request whose client
        has gone by dropping the answer; this returns False (App(cancel_on_disconnect=True) cancels an async
        handler whose client disconnects instead)."""
        return False

    async def json(self) -> Any:
        return self.json_sync()

    def form(self, *, max_files: int | None = None, max_fields: int | None = None,
             max_part_size: int | None = None) -> _FormCall:
        """The body as FormData (urlencoded or multipart, parsed in C++; empty for other media types): `await
        request.form()`, or `async with request.form() as form:` to close its uploads after. A malformed or
        over-limit body raises HTTPException(400), as Starlette's does."""
        limits = {k: v for k, v in (("max_files", max_files), ("max_fields", max_fields),
                                    ("max_part_size", max_part_size)) if v is not None}
        return _FormCall(self, limits)

    def form_sync(self, **limits: int) -> Any:
        """form() for def handlers: parsed once per request (later calls return the same FormData)."""
        if self._form is None:
            app_limits = getattr(self.app, "form_limits", None) or {}
            self._form = parse_body(self, {**app_limits, **limits})
        return self._form

    async def close(self) -> None:
        """Closes the uploads of a form read with form() (Starlette's Request.close)."""
        if self._form is not None:
            await self._form.close()

    def json_sync(self) -> Any:
        """The body parsed as JSON (json.loads, as Starlette does); cached."""
        if self._json is _UNSET:
            self._json = _json.loads(self.body_bytes)
        return self._json

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.path}>"


_UNSET: Any = object()


async def _empty_receive() -> dict[str, Any]:
    raise RuntimeError("Receive channel has not been made available")


def _from_scope(request: Request, scope: dict[str, Any], receive: Any) -> None:
    """Fills `request` from an ASGI HTTP scope; the body from the Request whose `receive` is given (whole, as the
    engine read it), else through `receive` on the first `await body()`."""
    source = getattr(receive, "__self__", None)
    source = source if isinstance(source, Request) else None
    client = scope.get("client")
    route = scope.get("route")
    Request.__init__(
        request, scope.get("method", "GET"), scope.get("path", "/"),
        bytes(scope.get("query_string", b"")).decode("latin-1"),
        [(bytes(k).decode("latin-1"), bytes(v).decode("latin-1")) for k, v in scope.get("headers", ())],
        source.body_bytes if source is not None else None, dict(scope.get("path_params") or {}),
        f"{client[0]}:{client[1]}" if client else "", getattr(route, "path", "") if route is not None else "",
        source.principal if source is not None else None, source._scopes if source is not None else None)
    request._receive = receive if receive is not None else _empty_receive
    request._scope = scope
    request.app = scope.get("app")
    request.lifespan_state = scope.get("state")
    if source is not None:
        request.route_path = source.route_path
        request._session = source._session


class _FormCall:
    """What request.form() returns: awaitable, or an async context manager that closes the uploads on exit."""

    __slots__ = ("_limits", "_request")

    def __init__(self, request: Request, limits: dict[str, int]) -> None:
        self._request = request
        self._limits = limits

    def __await__(self) -> Generator[Any, None, Any]:
        return self._get().__await__()

    async def _get(self) -> Any:
        return self._request.form_sync(**self._limits)

    async def __aenter__(self) -> Any:
        return self._request.form_sync(**self._limits)

    async def __aexit__(self, *exc: object) -> None:
        await self._request.close()
