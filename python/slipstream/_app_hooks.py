"""What an App adds to its routes (FastAPI's names): HTTP middleware, lifespan and startup/shutdown handlers,
app.state and app.dependency_overrides."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from . import _lifespan
from .middleware import BaseHTTPMiddleware

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
        for item in reversed(list(middleware or [])):
            self.user_middleware.insert(0, item)

    def middleware(self, middleware_type: str) -> Callable[[F], F]:
        """`@app.middleware("http")` on `async def f(request, call_next) -> Response`."""
        if middleware_type != "http":
            raise ValueError(f"only 'http' middleware is supported, not {middleware_type!r}")

        def decorator(func: F) -> F:
            self.add_middleware(BaseHTTPMiddleware, dispatch=func)
            return func

        return decorator

    def add_middleware(self, middleware_class: type, *args: Any, **options: Any) -> None:
        """Adds a BaseHTTPMiddleware subclass (its `dispatch(request, call_next)`), outermost."""
        if not (isinstance(middleware_class, type) and issubclass(middleware_class, BaseHTTPMiddleware)):
            raise TypeError("slipstream runs BaseHTTPMiddleware subclasses and @app.middleware('http') functions; "
                            f"{middleware_class!r} is not one (ASGI middleware is not supported)")
        self.user_middleware.insert(0, middleware_class(None, *args, **options))

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

    def include_hooks_of(self, router: Any) -> None:
        """include_router(): a router's startup/shutdown handlers and lifespan join the app's (as FastAPI)."""
        for handler in getattr(router, "on_startup", None) or []:
            self.add_event_handler("startup", handler)
        for handler in getattr(router, "on_shutdown", None) or []:
            self.add_event_handler("shutdown", handler)
        # As FastAPI: also the router's own lifespan (its default one runs the router's handlers a second time).
        inner = getattr(router, "lifespan_context", None)
        if inner is not None:
            self.lifespan_context = _lifespan.merge(self.lifespan_context, inner)
