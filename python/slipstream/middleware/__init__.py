"""HTTP middleware: `@app.middleware("http")` functions and BaseHTTPMiddleware classes around every request;
`Middleware(cls, **options)` for `App(middleware=[...])`; CORSMiddleware (slipstream.middleware.cors) and
GZipMiddleware (slipstream.middleware.gzip), which the engine runs in C++ and which therefore never make a request
enter Python; TrustedHostMiddleware, HTTPSRedirectMiddleware and SessionMiddleware (slipstream.middleware.trustedhost,
.httpsredirect, .sessions), BaseHTTPMiddleware subclasses with Starlette's answers.

Only an app that registers an HTTP middleware pays for it: its routes then run through `make_runner` below (the Request object
is built for each request), and requests that match no route reach Python too (a catch-all route per method),
so middleware sees 404s and 405s as in FastAPI. The layers are Starlette's: the middleware (last added runs
first) around the exception handlers around the route; an exception no handler takes leaves the middleware
and becomes a 500 (or the app's 500/Exception handler's response).
"""

from __future__ import annotations

import inspect
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .. import _error_responses, telemetry
from .._route_misses import redirect_response, toggled
from ..dependencies.runner import RouteInfo, answer_through_chain, endpoint_response
from ..exceptions import HTTP_EXCEPTION, RequestValidationError
from ..responses import Response
from .cors import CORSMiddleware

__all__ = ["BaseHTTPMiddleware", "CORSMiddleware", "Middleware"]

Dispatch = Callable[[Any, Callable[[Any], Awaitable[Response]]], Awaitable[Response]]
_METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT")
CATCH_ALL_METHODS = _METHOD_ORDER
CATCH_ALL_PATTERN = "/{__slipstream_path:path}"
# "<token> <layers>": a request an ASGI middleware rerouted (_asgi/reroute.py) enters the chain past the layers it
# has passed already; read only with the random token of the App's ASGI entry.
SKIP_HEADER = "x-slipstream-asgi-skip"


class BaseHTTPMiddleware:
    """Subclass and override `dispatch(request, call_next)`; add with `app.add_middleware(Class, **options)`."""

    def __init__(self, app: Any = None, dispatch: Dispatch | None = None) -> None:
        self.app = app
        self.dispatch_func = dispatch if dispatch is not None else self.dispatch

    async def dispatch(self, request: Any, call_next: Callable[[Any], Awaitable[Response]]) -> Response:
        raise NotImplementedError


class Middleware:
    """One entry of `App(middleware=[...])`, as Starlette's: a middleware class and the options that
    `app.add_middleware(cls, *args, **kwargs)` would take."""

    def __init__(self, cls: type, *args: Any, **kwargs: Any) -> None:
        self.cls = cls
        self.args = args
        self.kwargs = kwargs

    def __iter__(self) -> Any:
        return iter((self.cls, self.args, self.kwargs))

    def __repr__(self) -> str:
        options = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"Middleware({', '.join([getattr(self.cls, '__name__', repr(self.cls)), *options])})"


class _Body:
    """`response.body_iterator` of a response handed to middleware: its body in one chunk."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def __aiter__(self) -> _Body:
        return self

    async def __anext__(self) -> bytes:
        if self._body is None:
            raise StopAsyncIteration
        body, self._body = self._body, None
        return body


class MiddlewareChain:
    """The app's dispatch functions, outermost first, with Starlette's exception layers; `telemetry` (the app's
    slipstream.telemetry, or None) outside them all, as FastAPI's."""

    def __init__(self, dispatchers: Sequence[Dispatch], errors: Any, telemetry: Any = None) -> None:
        self.dispatchers = tuple(dispatchers)
        self.errors = errors
        self.telemetry = telemetry

    async def run(self, request: Any, endpoint: Callable[[Any], Awaitable[Response]]) -> Response:
        try:
            response = await self._call(skipped_layers(request, len(self.dispatchers)), request, endpoint)
        except Exception as exc:  # noqa: BLE001 - ServerErrorMiddleware
            if self.telemetry is not None:
                self.telemetry.exception(exc)
            return await _error_responses.server_error_response(self.errors, request, exc)
        return await _collect(response)

    async def _call(self, i: int, request: Any, endpoint: Callable[[Any], Awaitable[Response]]) -> Response:
        if i == len(self.dispatchers):
            try:
                return await endpoint(request)
            except Exception as exc:  # ExceptionMiddleware
                if isinstance(exc, RequestValidationError):
                    telemetry.validation_failed(exc)
                response = await _error_responses.handled_error_response(self.errors, request, exc)
                if response is None:
                    raise
                return response

        async def call_next(req: Any) -> Response:
            response = await self._call(i + 1, req, endpoint)
            if not _streamed(response):  # a streamed body keeps its own iterator (sent as it comes)
                response.body_iterator = _Body(response.body)  # type: ignore[attr-defined]
            return response

        response = await self.dispatchers[i](request, call_next)
        if response is None:
            raise RuntimeError("No response returned.")
        return response


def skipped_layers(request: Any, layers: int) -> int:
    """How many outer layers a request rerouted by an ASGI middleware has passed (0 for any other request): its
    SKIP_HEADER with the token of the App's running ASGI entry, removed from the request."""
    entry = getattr(getattr(request, "app", None), "__dict__", {}).get("_asgi_entry")
    raw = getattr(request, "_raw_headers", None)
    if entry is None or not raw:
        return 0
    at = next((i for i, (k, _) in enumerate(raw) if k.lower() == SKIP_HEADER), None)
    if at is None:
        return 0
    token, _, count = raw[at][1].partition(" ")
    if not secrets.compare_digest(token, entry.token) or not count.isdigit():
        return 0
    request._raw_headers = raw[:at] + raw[at + 1:]
    request._headers = None
    request._scope = None
    return min(int(count), layers)


async def _collect(response: Response) -> Response:
    """A middleware may replace `body_iterator`: then the body is what the new iterator gives."""
    iterator = getattr(response, "body_iterator", None)
    if iterator is not None and not isinstance(iterator, _Body) and not _streamed(response):
        response.body = await read_body_iterator(iterator)
    return response


async def read_body_iterator(iterator: Any) -> bytes:
    """All a body iterator (async or not) gives, str chunks encoded."""
    chunks = []
    if hasattr(iterator, "__aiter__"):
        async for chunk in iterator:
            chunks.append(chunk if isinstance(chunk, bytes) else str(chunk).encode())
    else:
        chunks = [c if isinstance(c, bytes) else str(c).encode() for c in iterator]
    return b"".join(chunks)


def _streamed(response: Response) -> bool:
    """StreamingResponse and FileResponse: their body is produced while it is sent (and streams whatever
    `body_iterator` holds then, a middleware's replacement included)."""
    return getattr(response, "_take_background", None) is not None


def dispatcher(middleware: Any) -> Dispatch:
    """An `async def f(request, call_next)` or a BaseHTTPMiddleware instance -> its dispatch function."""
    func = middleware.dispatch_func if isinstance(middleware, BaseHTTPMiddleware) else middleware
    if not inspect.iscoroutinefunction(func):
        raise TypeError(f"HTTP middleware must be an `async def (request, call_next)` function, not {func!r}")
    return func


def make_runner(info: RouteInfo, chain: MiddlewareChain) -> Callable[..., Any]:
    """The handler of every route of an app with HTTP middleware."""

    async def run(__reply__: Any, __request__: Any, **flat: Any) -> None:
        reply = __reply__
        await answer_through_chain(chain, __request__, reply, info.hooks,
                                   lambda req, after: endpoint_response(info, flat, req, reply, after))

    run._slipstream_endpoint = getattr(info.program, "root", None) and info.program.root.call  # type: ignore[attr-defined] - its operation spans' name
    return run


class NotFound:
    """The catch-all route of an app with HTTP middleware: 404, or 405 with Allow when another method matches."""

    def __init__(self, routes: Sequence[tuple[str, Sequence[str]]], redirect_slashes: bool = False) -> None:
        self.patterns = [path for path, _ in routes]
        self.routes = [(pattern_regex(path), set(methods)) for path, methods in routes]
        self.redirect_slashes = redirect_slashes

    def methods_for(self, path: str) -> list[str]:
        return self.route_for(path)[1]

    def route_for(self, path: str) -> tuple[str | None, list[str]]:
        """The first route whose pattern matches `path` and its methods (FastAPI's Allow), or (None, [])."""
        for pattern, (regex, methods) in zip(self.patterns, self.routes):
            if regex.fullmatch(path):
                return pattern, [m for m in _METHOD_ORDER if m in methods]
        return None, []

    async def __call__(self, request: Any) -> Response:
        # Raised as Starlette's router raises them (Starlette's HTTPException when installed): a handler for
        # slipstream's (FastAPI's) subclass does not see them, one for Starlette's class does, as in FastAPI.
        pattern, allowed = self.route_for(request.path)
        if allowed:
            telemetry.route_selected(pattern)
            raise HTTP_EXCEPTION(405, headers={"Allow": ", ".join(allowed)})
        if self.redirect_slashes and request.path != "/":
            other = toggled(request.path)
            pattern = next((p for p, (regex, _) in zip(self.patterns, self.routes) if regex.fullmatch(other)), None)
            if pattern is not None:
                telemetry.route_selected(pattern)
                return redirect_response(request)
        raise HTTP_EXCEPTION(404)


_CONVERTOR = {"str": "[^/]+", "int": "[-+]?[0-9]+", "float": r"[-+]?[0-9]+(\.[0-9]+)?", "path": ".*",
              "uuid": "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"}


def pattern_regex(pattern: str) -> re.Pattern[str]:
    out, pos = [], 0
    for m in re.finditer(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}", pattern):
        out.append(re.escape(pattern[pos:m.start()]))
        out.append(f"(?:{_CONVERTOR.get(m.group(2) or 'str', '[^/]+')})")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out))


def make_not_found_runner(not_found: NotFound, chain: MiddlewareChain, hooks: Any) -> Callable[..., Any]:
    async def run(__reply__: Any, __request__: Any) -> None:
        await answer_through_chain(chain, __request__, __reply__, hooks, lambda req, after: not_found(req))

    return run
