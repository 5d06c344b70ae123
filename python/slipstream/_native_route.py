"""A RouteDef as the extension registers it: its RouteDesc (slipstream/_core/route_desc.py), made once per route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._core.route_desc import RouteDesc
from ._responses_prep import make_prepare
from .dependencies.shape import RouteShape
from .routing import RouteDef, is_coroutine_handler


def native_route(route: RouteDef, errors: Any, *, shape: RouteShape | None = None,
                 handler: Callable[..., Any] | None = None) -> RouteDesc:
    """`errors`: the app's ExceptionHandlers (or None). `shape` (default route.shape) and `handler` (default the
    endpoint): a route with dependencies or in an app with HTTP middleware runs a runner as its handler
    (slipstream/dependencies/install.py)."""
    shape = shape if shape is not None else route.shape
    assert shape is not None
    call = handler if handler is not None else route.endpoint
    return RouteDesc(
        handler=call,
        is_coroutine=is_coroutine_handler(call),
        status_code=route.status_code or 200,
        args=shape.args,
        params=shape.params,
        body=shape.body,
        path_params=shape.path_params,
        prepare=make_prepare(route),
        # A cached response would skip dependencies and HTTP middleware.
        cache_ttl=route.cache_ttl if handler is None else 0.0,
        # Parameters pydantic validates (slipstream/_fallback.py): a request that fails in C++ goes through Python,
        # which adds their errors to the C++ validator's.
        forward_errors=shape.fallback is not None or (errors.forwards_validation() if errors is not None else False),
        strict_content_type=route.strict_content_type is not False,
        max_body_size=route.max_body_size,
        app_errors=errors,
        fallback=shape.fallback,
    )


__all__ = ["native_route"]
