"""App: FastAPI-style route decorators on a C++ server; run() serves until SIGINT/SIGTERM."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _native, _runtime, telemetry
from ._app_hooks import AppHooks
from ._asgi.call import call as asgi_call
from ._asgi.discover import is_asgi3
from ._asgi.mount import AsgiMount
from ._native_route import native_route as NativeRoute  # noqa: F401 - its old name here, still imported
from ._proxy import request_runtime
from ._schema import schema_text
from ._threads import DEFAULT_THREAD_POOL_SIZE, check_pool_size
from .database import Database
from .dependencies.install import install_routes
from .exceptions import HTTP_EXCEPTION, RequestValidationError
from .forms import check_limits as check_form_limits
from .openapi.config import OpenAPIConfig
from .openapi.serve import install_docs
from .responses import JSONResponse
from .routing import APIRouter, F
from .staticfiles import StaticFiles
from .staticfiles import mount as mount_static
from .websockets import install_websockets

_ENV_PREFIX = "SLIPSTREAM_"
# FastAPI() keywords that its router takes (routing.APIRouter): routes=[...], strict_content_type, max_body_size.
_ROUTER_KEYWORDS = ("routes", "strict_content_type", "max_body_size")


class ExceptionHandlers:
    """Exception class (by MRO) or HTTP status code -> handler(request, exc), as Starlette looks them up."""

    def __init__(self) -> None:
        self.by_class: dict[type[BaseException], Callable[..., Any]] = {}
        self.by_status: dict[int, Callable[..., Any]] = {}
        self.middleware = False  # the app has HTTP middleware (set by App.build_native)
        self.debug = False  # the App's debug=True: a 500 answers with the traceback (Starlette's debug response)

    def forwards_validation(self) -> bool:
        """Whether requests that fail validation in C++ must go through Python: to a RequestValidationError
        handler, or through HTTP middleware (which sees the 422), as in FastAPI."""
        return self.middleware or RequestValidationError in self.by_class

    def lookup(self, exc: BaseException) -> Callable[..., Any] | None:
        if isinstance(exc, HTTP_EXCEPTION) and exc.status_code in self.by_status:
            return self.by_status[exc.status_code]
        for cls in type(exc).__mro__:
            if cls in self.by_class:
                return self.by_class[cls]
        if not isinstance(exc, HTTP_EXCEPTION) and 500 in self.by_status:
            return self.by_status[500]
        return None


def env_or(value: Any, name: str, default: Any, convert: Callable[[str], Any] = str) -> Any:
    """`value` if given, else the environment variable SLIPSTREAM_<NAME>, else `default`."""
    if value is not None:
        return value
    raw = os.environ.get(_ENV_PREFIX + name.upper())
    return convert(raw) if raw not in (None, "") else default


class App(APIRouter, AppHooks):
    """An application: routes (decorators, include_router), exception handlers, and run().

    Server limits (ServerOptions: max_body_bytes, keepalive_timeout_ms, access_log, ...) may be given as
    keyword arguments here or to run().

    `tokens`: scoped API tokens issued and revoked at runtime (a SQLite or PostgreSQL URL, with `admin_token=` for
    the bootstrap credential, or a slipstream.tokens.Tokens): the engine's auth checks them (auth defaults to
    "required" then) and POST/GET /admin/tokens, GET/DELETE /admin/tokens/{id} are served. `rate_limit_store`: the
    buckets of `rate_limit` in PostgreSQL, shared by every process and replica (a postgresql:// URL or what
    slipstream.tokens.open_rate_limit_store returns; rate_limit_store_failure, _batch, _in_flight and _retry_ms as
    the server's --rate-limit-store-* flags).
    """

    def __init__(self, *, title: str = "Slipstream", version: str = "0.1.0", description: str = "",
                 dependencies: Sequence[Any] | None = None, lifespan: Any = None,
                 on_startup: Sequence[Callable[[], Any]] | None = None,
                 on_shutdown: Sequence[Callable[[], Any]] | None = None, middleware: Sequence[Any] | None = None,
                 database: str | Database | None = None, sessions: Any = None, tokens: Any = None,
                 rate_limit_store: Any = None, **server_options: Any) -> None:
        super().__init__(dependencies=dependencies,
                         default_response_class=server_options.pop("default_response_class", None),
                         responses=server_options.pop("responses", None),
                         deprecated=server_options.pop("deprecated", None),
                         include_in_schema=server_options.pop("include_in_schema", True),
                         callbacks=server_options.pop("callbacks", None),
                         generate_unique_id_function=server_options.pop("generate_unique_id_function", None),
                         **{k: server_options.pop(k) for k in _ROUTER_KEYWORDS if k in server_options})
        self.init_hooks(lifespan=lifespan, on_startup=on_startup, on_shutdown=on_shutdown, middleware=middleware)
        self.title = title
        self.version = version
        self.description = description
        # OpenAPI and docs keyword arguments (FastAPI's: openapi_url, docs_url, openapi_tags, servers, ...).
        self.openapi_config = OpenAPIConfig.pop_from(server_options)
        self.openapi_schema: dict[str, Any] | None = None
        # FastAPI's `app.webhooks`: `@app.webhooks.post("new-subscription")` documents a request this app sends.
        given = self.openapi_config.webhooks
        self.webhooks = given if isinstance(given, APIRouter) else APIRouter()
        self.webhooks.documented_only = True
        self.openapi_config.webhooks = None if isinstance(given, APIRouter) else given
        # FastAPI's form_limits (max_fields, max_files, max_part_size) and Slipstream's (see forms.DEFAULT_LIMITS).
        self.form_limits = check_form_limits(server_options.pop("form_limits", None))
        # FastAPI's redirect_slashes: 307 to the path with/without its trailing slash when only that one has a route.
        self.redirect_slashes = bool(server_options.pop("redirect_slashes", True))
        # A client that disconnects cancels its async handler's task (and so the database statement it awaits);
        # off by default, as in FastAPI/Starlette, where the handler runs to its end.
        self.cancel_on_disconnect = bool(server_options.pop("cancel_on_disconnect", False))
        # Threads for `def` dependencies (and `def` handlers behind them or HTTP middleware), run_in_threadpool and
        # asyncio.to_thread: anyio's default of 40, as under FastAPI (SLIPSTREAM_THREAD_POOL_SIZE).
        self.thread_pool_size = check_pool_size(env_or(server_options.pop("thread_pool_size", None),
                                                       "thread_pool_size", DEFAULT_THREAD_POOL_SIZE, int))
        self.server_options = server_options
        self.exception_handlers = ExceptionHandlers()
        self.debug = self.exception_handlers.debug = bool(server_options.pop("debug", False))
        # FastAPI's native OpenTelemetry (slipstream.telemetry): its options; whether requests go through it is
        # decided when the server is built (build_native), and nothing of it runs per request otherwise.
        self.telemetry_config = telemetry.config_of(server_options.pop("telemetry", None))
        self.telemetry: Any = None
        for exc_class_or_status, handler in (server_options.pop("exception_handlers", None) or {}).items():
            self.add_exception_handler(exc_class_or_status, handler)  # FastAPI's exception_handlers={...}
        self.native_routes: list[tuple[str, tuple[Any, ...]]] = []
        # The app's database (a URL or a Database): connected by the lifespan, a /readyz check, get_database.
        self.database: Database | None = Database(database) if isinstance(database, str) else database
        # Durable agent sessions (a store URL or a slipstream.sessions.Sessions): the /sessions routes and the
        # AgentSession dependency (slipstream.sessions.agent_session).
        self.agent_sessions: Any = None
        if sessions is not None:
            self.sessions(sessions)
        # Scoped API tokens (slipstream.tokens.Tokens) and the shared rate-limit buckets: engine objects handed to
        # the server's options (issued_credentials, rate_limit_store) when it is built.
        self.issued_tokens: Any = None
        admin_token = server_options.pop("admin_token", None)
        if tokens is not None:
            self.tokens(tokens, admin_token=admin_token)
        elif admin_token is not None:
            raise TypeError("admin_token goes with tokens=...")
        if rate_limit_store is not None:
            if isinstance(rate_limit_store, str):
                from .tokens import open_rate_limit_store

                timeout = server_options.pop("rate_limit_store_timeout_ms", 250)
                rate_limit_store = open_rate_limit_store(rate_limit_store, timeout_ms=timeout)
            self.server_options["rate_limit_store"] = rate_limit_store

    @property
    def router(self) -> App:
        """FastAPI's `app.router`: the app's own routes (`app.router.route_class = MyRoute` before adding routes)."""
        return self

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The app as an ASGI 3 callable, as FastAPI's (httpx.ASGITransport, ASGI servers and test tools): the
        first call starts its engine in background threads, which answers every scope (_asgi/entry.py)."""
        await asgi_call(self, scope, receive, send)

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

    def mount(self, path: str, app: Any, name: str | None = None) -> None:
        """Serves under `path` a StaticFiles directory, an object that installs itself on the engine (an MCP
        server, slipstream.mcp), or any ASGI app (FastAPI, Starlette, a WSGI app in
        slipstream.middleware.wsgi.WSGIMiddleware) with the scope Starlette's Mount gives it (_asgi/mount.py)."""
        if isinstance(app, StaticFiles):
            mount_static(self, path, app, name)
            return
        if not hasattr(app, "install_native"):
            if not is_asgi3(app):
                raise TypeError(f"cannot mount {app!r}: not StaticFiles, an ASGI app or an engine mountable")
            if path != "/" and (not path.startswith("/") or path.endswith("/")):
                raise ValueError(f"a mount path must start with '/' and must not end with '/': {path!r}")
            app = AsgiMount(app, name, self.prefix + path)
        if not path.startswith("/"):
            raise ValueError(f"mount path {path!r} must start with '/'")
        self.native_routes.append(("mount", (app, self.prefix + path.rstrip("/") if path != "/" else path)))

    def decisions(self, store: str, *, prefix: str = "/", **options: Any) -> Any:
        """Mounts the learning decision service (slipstream.decide.Decisions: a SQLite or PostgreSQL store URL and
        its options) under `prefix`; returns it."""
        from .decide import Decisions

        decisions = Decisions(store, **options)
        self.mount(prefix, decisions)
        return decisions

    def sessions(self, store: Any, *, prefix: str = "/sessions", **options: Any) -> Any:
        """Mounts the durable agent session routes under `prefix` on `store` (a SQLite or PostgreSQL URL with
        slipstream.sessions.Sessions' options, or a Sessions shared with other apps) and makes it the store of the
        AgentSession dependency; returns the Sessions."""
        from .sessions import Sessions

        if isinstance(store, Sessions):
            if options:
                raise TypeError("options go to Sessions(...) when a Sessions is given")
            sessions = store
        else:
            sessions = Sessions(store, **options)
        self.mount(prefix, sessions)
        self.agent_sessions = sessions
        return sessions

    def tokens(self, store: Any, *, prefix: str = "/admin/tokens", **options: Any) -> Any:
        """Scoped API tokens on `store` (a SQLite or PostgreSQL URL with slipstream.tokens.Tokens' options, or a
        Tokens shared with other apps): the engine's auth checks them on every request (`auth` defaults to
        "required") and the token administration routes are mounted under `prefix`; returns the Tokens. Call it
        before the app is built (run(), a TestClient)."""
        from .tokens import Tokens

        if isinstance(store, Tokens):
            if any(v is not None for v in options.values()):
                raise TypeError("options go to Tokens(...) when a Tokens is given")
            tokens = store
        else:
            tokens = Tokens(store, **{k: v for k, v in options.items() if v is not None})
        self.server_options["issued_credentials"] = tokens.credentials()
        self.server_options.setdefault("auth", "required")
        self.mount(prefix, tokens)
        self.issued_tokens = tokens
        return tokens

    def llm_proxy(self, path: str, schema: Any, *, upstream: Any, **options: Any) -> Any:
        """POST `path` calls `upstream` (slipstream.llm_upstream.Upstream: an OpenAI-compatible server) with the
        client's chat completion request and streams its output validated against `schema` (a pydantic model, any
        type, or a JSON Schema dict), all in C++; options as llm_upstream.LlmRoute's (format="sse" | "ndjson",
        partial=True, model, ...). Returns the LlmRoute."""
        from .llm_upstream import LlmRoute

        route = LlmRoute(schema, upstream, **options)
        self.mount(path, route)
        route.path = self.prefix + path
        return route

    def echo_route(self, path: str, model: Any, *, status_code: int = 200,
                   methods: Sequence[str] = ("POST",)) -> None:
        """A route whose JSON body is validated in C++ against `model` (a pydantic model or any type) and
        echoed back compactly; it never takes the GIL. Invalid bodies get FastAPI's 422 (loc ["body", ...])."""
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
        return self.build_native(**options)[0]

    def build_native(self, *, late_changes: bool = False, **options: Any) -> tuple[Any, _runtime.AppRuntime]:
        """build(), and the AppRuntime that runs the lifespan and counts work after responses. `late_changes`
        (the TestClient's): routes added later and every dependency_overrides change are served as FastAPI
        serves them (dependencies/late_routes.py)."""
        # 404/405 bodies as FastAPI answers them ({"detail": "Not Found"}), unless the app says otherwise.
        merged = {"fastapi_route_errors": True, **self.server_options,
                  **{k: v for k, v in options.items() if v is not None}}
        # CORSMiddleware: the engine's cors_* options (it answers preflights and adds the fields in C++).
        cors = self.cors_server_options()
        if cors and any(k.startswith("cors_") for k in merged):
            given = sorted(k for k in merged if k.startswith("cors_"))
            raise ValueError(f"CORS is configured twice: by CORSMiddleware and by the server options {given}")
        merged.update(cors)
        # GZipMiddleware: the engine's compression options (gzip only, Starlette's minimum size and level).
        gzip = self.compression_server_options()
        clash = sorted(k for k in gzip if k in merged and k != "compression")
        if clash:
            raise ValueError(f"compression is configured twice: by GZipMiddleware and by the server options {clash}")
        merged.update(gzip)
        root_path = merged.pop("root_path", None) or self.openapi_config.root_path
        requests = request_runtime(_runtime, root_path, merged)  # takes proxy_headers, forwarded_allow_ips
        runtime = _runtime.AppRuntime(self, requests.make_request)
        native = _native.NativeApp(merged, runtime)
        # With telemetry, every request takes the HTTP middleware path (a Request per request, the misses and the
        # validation errors through Python) so that each one gets its span, as in FastAPI.
        self.telemetry = telemetry.for_app(self.telemetry_config)
        self.exception_handlers.middleware = bool(self.user_middleware) or self.telemetry is not None
        install_routes(self, native, runtime, late_changes=late_changes)
        for kind, args in self.native_routes:
            if kind == "static":
                native.add_static_route(*args)
            elif kind == "echo":
                native.add_echo_route(*args)
            elif kind == "mount":
                mounted, path = args
                mounted.install_native(native, runtime, path)
        install_websockets(native, runtime, [(r.path, r.endpoint, r.dependencies) for r in self.websocket_routes])
        install_docs(self, native, root_path, runtime)
        if self.database is not None:  # /readyz: 503 while the database is closed or unreachable (no Python)
            _native.add_database_readiness_check(native, "database", self.database.native)
        return native, runtime

    def openapi(self) -> dict[str, Any]:
        """The OpenAPI document (made once, kept in `openapi_schema`); replace this method to customize it."""
        if not self.openapi_schema:
            self.openapi_schema = self.openapi_config.document(self)
        return self.openapi_schema

    def log_validation_fallback(self) -> None:
        """Logs (INFO, logger "slipstream") each route with parameters that pydantic validates in Python because the
        C++ validator does not model their type (RouteDef.validation_fallback); run() calls it at startup."""
        for route in self.routes:
            if route.validation_fallback:
                logging.getLogger("slipstream").info(
                    "%s %s: validated by pydantic in Python: %s", ",".join(route.methods), route.path,
                    "; ".join(f"{name} ({why})" for name, why in route.validation_fallback))

    def run(self, host: str | None = None, port: int | None = None, threads: int | None = None,
            **options: Any) -> int:
        """Serves until SIGINT/SIGTERM, then drains. Arguments left out come from SLIPSTREAM_HOST,
        SLIPSTREAM_PORT, SLIPSTREAM_THREADS (defaults 127.0.0.1, 8000, one I/O thread per core)."""
        host = env_or(host, "host", "127.0.0.1")
        port = env_or(port, "port", 8000, int)
        threads = env_or(threads, "threads", 0, int)
        native, runtime = self.build_native(threads=threads, **options)
        runtime.run_lifespan = True
        runtime.on_startup_failed = native.stop
        try:
            native.listen(host, port)  # a port in use raises "... address already in use ..." (see reuse_port)
        except BaseException:
            runtime.on_startup_failed = None  # the cycle runtime -> native -> runtime would outlive the exit
            raise
        logging.getLogger("slipstream").info("serving %s on http://%s:%d", self.title, host, native.port)
        self.log_validation_fallback()
        rc = native.run()
        return 3 if runtime.startup_error is not None else rc
