"""App: FastAPI-style route decorators on a C++ server; run() serves until SIGINT/SIGTERM."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _runtime
from ._responses_prep import make_prepare
from .responses import JSONResponse
from .routing import APIRouter, F, RouteDef, is_coroutine_handler

_ENV_PREFIX = "SLIPSTREAM_"


class ExceptionHandlers:
    """Exception class (by MRO) or HTTP status code -> handler(request, exc), as Starlette looks them up."""

    def __init__(self) -> None:
        self.by_class: dict[type[BaseException], Callable[..., Any]] = {}
        self.by_status: dict[int, Callable[..., Any]] = {}

    def lookup(self, exc: BaseException) -> Callable[..., Any] | None:
        from .exceptions import HTTPException

        if isinstance(exc, HTTPException) and exc.status_code in self.by_status:
            return self.by_status[exc.status_code]
        for cls in type(exc).__mro__:
            if cls in self.by_class:
                return self.by_class[cls]
        if not isinstance(exc, HTTPException) and 500 in self.by_status:
            return self.by_status[500]
        return None


class NativeRoute:
    """The description the extension reads once per route (see python/bindings/py_route.h)."""

    __slots__ = (
        "app_errors",
        "args",
        "body",
        "cache_ttl",
        "handler",
        "is_coroutine",
        "params",
        "path_params",
        "prepare",
        "status_code",
    )

    def __init__(self, route: RouteDef, errors: ExceptionHandlers) -> None:
        assert route.shape is not None
        self.handler = route.endpoint
        self.is_coroutine = is_coroutine_handler(route.endpoint)
        self.status_code = route.status_code or 200
        self.args = route.shape.args
        self.params = route.shape.params
        self.body = route.shape.body
        self.prepare = make_prepare(route)
        self.path_params = route.shape.path_params
        self.app_errors = errors
        self.cache_ttl = route.cache_ttl


def env_or(value: Any, name: str, default: Any, convert: Callable[[str], Any] = str) -> Any:
    """`value` if given, else the environment variable SLIPSTREAM_<NAME>, else `default`."""
    if value is not None:
        return value
    raw = os.environ.get(_ENV_PREFIX + name.upper())
    return convert(raw) if raw not in (None, "") else default


class App(APIRouter):
    """An application: routes (decorators, include_router), exception handlers, and run().

    Server limits (ServerOptions: max_body_bytes, keepalive_timeout_ms, access_log, ...) may be given as
    keyword arguments here or to run().
    """

    def __init__(self, *, title: str = "Slipstream", version: str = "0.1.0", description: str = "",
                 **server_options: Any) -> None:
        super().__init__()
        self.title = title
        self.version = version
        self.description = description
        self.server_options = server_options
        self.exception_handlers = ExceptionHandlers()
        self.native_routes: list[tuple[str, tuple[Any, ...]]] = []

    def static_route(self, path: str, content: Any, *, status_code: int = 200,
                     media_type: str | None = None, headers: Mapping[str, str] | None = None,
                     methods: Sequence[str] = ("GET",)) -> None:
        """A route answered by the I/O threads with fixed bytes; it never takes the GIL.

        `content`: bytes or str as is (media_type default text/plain), anything else as JSON (encoded now,
        as FastAPI would; media_type default application/json)."""
        if isinstance(content, (bytes, str)):
            body = content.encode() if isinstance(content, str) else content
            media_type = media_type or "text/plain; charset=utf-8"
        else:
            body = JSONResponse(content).body
            media_type = media_type or "application/json"
        rows = [(str(k), str(v)) for k, v in (headers or {}).items()]
        for method in methods:
            self.native_routes.append(("static", (method.upper(), self.prefix + path, status_code, media_type,
                                                  rows, body)))

    def echo_route(self, path: str, model: Any, *, status_code: int = 200,
                   methods: Sequence[str] = ("POST",)) -> None:
        """A route whose JSON body is validated in C++ against `model` (a pydantic model or any type) and
        echoed back compactly; it never takes the GIL. Invalid bodies get FastAPI's 422 (loc ["body", ...])."""
        from ._schema import schema_text

        schema = schema_text(model)
        for method in methods:
            self.native_routes.append(("echo", (method.upper(), self.prefix + path, schema, status_code)))

    def exception_handler(self, exc_class_or_status: type[BaseException] | int) -> Callable[[F], F]:
        """Decorator: handler(request, exc) -> Response for an exception class (and subclasses) or a status."""

        def decorator(func: F) -> F:
            self.add_exception_handler(exc_class_or_status, func)
            return func

        return decorator

    def add_exception_handler(self, exc_class_or_status: type[BaseException] | int,
                              handler: Callable[..., Any]) -> None:
        if isinstance(exc_class_or_status, int):
            self.exception_handlers.by_status[exc_class_or_status] = handler
        else:
            self.exception_handlers.by_class[exc_class_or_status] = handler

    def build(self, **options: Any) -> Any:
        """A native server with every route registered (not listening yet). For run() and TestClient."""
        from . import _native

        merged = {**self.server_options, **{k: v for k, v in options.items() if v is not None}}
        native = _native.NativeApp(merged, _runtime)
        for route in self.routes:
            desc = NativeRoute(route, self.exception_handlers)
            for method in route.methods:
                native.add_route(method, route.path, desc)
        for kind, args in self.native_routes:
            if kind == "static":
                native.add_static_route(*args)
            else:
                native.add_echo_route(*args)
        return native

    def run(self, host: str | None = None, port: int | None = None, threads: int | None = None,
            **options: Any) -> int:
        """Serves until SIGINT/SIGTERM, then drains. Arguments left out come from SLIPSTREAM_HOST,
        SLIPSTREAM_PORT, SLIPSTREAM_THREADS (defaults 127.0.0.1, 8000, one I/O thread per core)."""
        host = env_or(host, "host", "127.0.0.1")
        port = env_or(port, "port", 8000, int)
        threads = env_or(threads, "threads", 0, int)
        native = self.build(threads=threads, **options)
        native.listen(host, port)
        logging.getLogger("slipstream").info("serving %s on http://%s:%d", self.title, host, native.port)
        return native.run()

    def include_router(self, router: APIRouter, *, prefix: str = "", tags: Sequence[str] | None = None) -> None:
        super().include_router(router, prefix=prefix, tags=tags)
