"""What an App adds to its routes (FastAPI's names): HTTP middleware, lifespan and startup/shutdown handlers,
app.state and app.dependency_overrides."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from . import _lifespan
from .middleware import BaseHTTPMiddleware
from .middleware.asgi import AsgiMiddleware, is_asgi_middleware
from .middleware.cors import CORSMiddleware, is_cors_middleware
from .middleware.gzip import GZipMiddleware, is_gzip_middleware
from .middleware.httpsredirect import HTTPSRedirectMiddleware
from .middleware.sessions import SessionMiddleware
from .middleware.trustedhost import TrustedHostMiddleware

# Starlette's middleware classes (fastapi.middleware.* re-exports them) -> this package's, whose options are the
# same: an app ported from FastAPI keeps its imports.
_STARLETTE_EQUIVALENTS = {
    ("starlette.middleware.trustedhost", "TrustedHostMiddleware"): TrustedHostMiddleware,
    ("starlette.middleware.httpsredirect", "HTTPSRedirectMiddleware"): HTTPSRedirectMiddleware,
    ("starlette.middleware.sessions", "SessionMiddleware"): SessionMiddleware,
}

F = TypeVar("F", bound=Callable[..., Any])


class AppHooks:
    """Mixed into App; `init_hooks()` runs from App.__init__."""

    def init_hooks(self, *, lifespan: Any = None, on_startup: Sequence[Callable[[], Any]] | None = None,
                   on_shutdown: Sequence[Callable[[], Any]] | None = None,
                   middleware: Sequence[Any] | None = None) -> None:
        self.state = _lifespan.State()
        self.dependency_overrides: dict[Callable[..., Any], Callable[..., Any]] = {}
        self.on_startup: list[Callable[[], Any]] = list(on_startup or [])
        self.on_shutdown: list[Callable[[], Any]] = list(on_shutdown or [])
        self.lifespan_context: Callable[[Any], Any] = _lifespan.lifespan_context(lifespan, self)
        # Outermost first, as Starlette's user_middleware (the last one added runs first).
        self.user_middleware: list[Any] = []
        # CORS runs in the engine, never in user_middleware (which would make every request enter Python).
        self.cors_middleware: CORSMiddleware | None = None
        # GZipMiddleware: the engine's response compression, never in user_middleware either.
        self.gzip_middleware: GZipMiddleware | None = None
        for item in reversed(list(middleware or [])):
            entry = _middleware_entry(item)
            if entry is None:
                self.user_middleware.insert(0, item)
            else:
                self.add_middleware(entry[0], *entry[1], **entry[2])

    def middleware(self, middleware_type: str) -> Callable[[F], F]:
        """`@app.middleware("http")` on `async def f(request, call_next) -> Response`."""
        if middleware_type != "http":
            raise ValueError(f"only 'http' middleware is supported, not {middleware_type!r}")

        def decorator(func: F) -> F:
            self.add_middleware(BaseHTTPMiddleware, dispatch=func)
            return func

        return decorator

    def add_middleware(self, middleware_class: type, *args: Any, **options: Any) -> None:
        """Adds a BaseHTTPMiddleware subclass (its `dispatch(request, call_next)`), outermost (TrustedHostMiddleware
        and HTTPSRedirectMiddleware are such, this package's or Starlette's); or CORSMiddleware / GZipMiddleware
        (this package's or Starlette's), whose options become the engine's CORS / compression settings (once per
        app); any other class or factory `cls(app, **options)` is pure ASGI middleware (middleware/asgi.py)."""
        if is_gzip_middleware(middleware_class):
            if self.gzip_middleware is not None:
                raise ValueError("GZipMiddleware is already added to this app: an app has one compression policy")
            self.gzip_middleware = GZipMiddleware(None, *args, **options)
            return
        middleware_class = _STARLETTE_EQUIVALENTS.get(
            (getattr(middleware_class, "__module__", ""), getattr(middleware_class, "__name__", "")), middleware_class)
        if is_cors_middleware(middleware_class):
            if self.cors_middleware is not None:
                raise ValueError("CORSMiddleware is already added to this app: an app has one CORS policy "
                                 "(give all its options to one add_middleware call)")
            self.cors_middleware = CORSMiddleware(None, *args, **options)
            return
        if is_asgi_middleware(middleware_class):
            # Pure ASGI middleware, run in Python around the app's view (middleware/asgi.py).
            self.user_middleware.insert(0, AsgiMiddleware(middleware_class, *args, **options))
            return
        if not (isinstance(middleware_class, type) and issubclass(middleware_class, BaseHTTPMiddleware)):
            raise TypeError(f"{middleware_class!r} is not middleware: add_middleware takes a middleware class "
                            "(BaseHTTPMiddleware subclass or pure ASGI middleware) or factory")
        self.user_middleware.insert(0, middleware_class(None, *args, **options))

    def cors_server_options(self) -> dict[str, Any]:
        """The engine's cors_* options from the app's CORSMiddleware (empty without one)."""
        return self.cors_middleware.server_options() if self.cors_middleware is not None else {}

    def compression_server_options(self) -> dict[str, Any]:
        """The engine's compression options from the app's GZipMiddleware (empty without one)."""
        return self.gzip_middleware.server_options() if self.gzip_middleware is not None else {}

    def add_event_handler(self, event_type: str, func: Callable[[], Any]) -> None:
        if event_type not in ("startup", "shutdown"):
            raise ValueError(f"event_type must be 'startup' or 'shutdown', not {event_type!r}")
        (self.on_startup if event_type == "startup" else self.on_shutdown).append(func)

    def on_event(self, event_type: str) -> Callable[[F], F]:
        """`@app.on_event("startup")` / `("shutdown")` (deprecated in FastAPI in favour of `lifespan`)."""

        def decorator(func: F) -> F:
            self.add_event_handler(event_type, func)
            return func

        return decorator


def _middleware_entry(item: Any) -> tuple[type, tuple[Any, ...], dict[str, Any]] | None:
    """A `Middleware(cls, *args, **kwargs)` entry of `App(middleware=[...])` (this package's or Starlette's) as
    what add_middleware takes; None for a BaseHTTPMiddleware instance or a dispatch function, kept as they are."""
    cls = getattr(item, "cls", None)
    if not isinstance(cls, type) or not hasattr(item, "args") or not hasattr(item, "kwargs"):
        return None
    return cls, tuple(item.args), dict(item.kwargs)
