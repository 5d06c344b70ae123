"""Registers an app's Python routes on its native server: plain routes as they are, routes with dependencies
(or every route, when the app has HTTP middleware) through a runner; plus the middleware catch-all routes."""

from __future__ import annotations

import re
from typing import Any

from .. import _route_class, _signature
from .. import _route_misses as _misses
from .. import middleware as _middleware
from .._core.route_desc import ArgDesc
from .._native_route import native_route
from .._responses_prep import make_prepare
from ..exceptions import HTTP_EXCEPTION
from ..routing import RouteDef
from . import early as _early
from . import late_routes as _late_routes
from . import shape as _shape
from . import tree as _tree
from .runner import RouteInfo, make_runner

_CATCH_ALL = re.compile(r"^/\{[A-Za-z_][A-Za-z0-9_]*:path\}$")


def _route_dependencies(route: Any) -> list[Any]:
    return list(getattr(route, "dependencies", None) or [])


def install_routes(app: Any, native: Any, runtime: Any, *, late_changes: bool = False) -> None:
    """Adds every route of `app` to `native` (a _native.NativeApp) with `runtime` (its AppRuntime). With
    `late_changes` (the TestClient's server), routes added to the app later and dependency_overrides that drop
    validated parameters are served too (late_routes.py)."""
    chain = None
    traced = getattr(app, "telemetry", None)  # slipstream.telemetry: every request through the chain, traced
    if app.user_middleware or traced is not None:
        dispatchers = [_middleware.dispatcher(m) for m in app.user_middleware]
        chain = _middleware.MiddlewareChain(dispatchers, app.exception_handlers, traced)
    snapshot = dict(app.dependency_overrides)
    for route in app.routes:
        if route.route_object is not None:  # a custom route class: its get_route_handler() answers, in Python
            _install_custom(app, native, runtime, chain, route)
            continue
        deps = _route_dependencies(route)
        shape = _shape.analyze(route.endpoint, route.path, dependencies=deps, overrides=snapshot,
                                   runner=chain is not None)
        if shape.program is None:
            desc = native_route(route, app.exception_handlers, shape=shape)
        else:
            info = RouteInfo(
                shape.program, prepare=make_prepare(route), status_code=route.status_code or 200, hooks=runtime,
                overrides=lambda: app.dependency_overrides, snapshot=snapshot,
                rebuild=lambda overrides, r=route, d=deps: _tree.build(
                    r.endpoint, _signature.path_param_names(r.path), dependencies=d, overrides=overrides))
            runner = make_runner(info) if chain is None else _middleware.make_runner(info, chain)
            desc = native_route(route, app.exception_handlers, shape=shape, handler=runner)
            early = _early.plan(shape.program, lambda s=snapshot: dict(app.dependency_overrides) == s)
            if early is not None:  # its validation errors go through Python, which runs the valid dependencies
                runner._slipstream_early = early  # type: ignore[attr-defined]
                desc.forward_errors = True
            if shape.program.models:  # the C++ 422 gets the parameter models' errors too, as FastAPI lists them
                runner._slipstream_models = shape.program.models  # type: ignore[attr-defined]
                desc.forward_errors = True
            if late_changes:
                runner._slipstream_rerun = _late_routes.Rerun(info, runner)  # type: ignore[attr-defined]
                desc.forward_errors = True
        for method in route.methods:
            native.add_route(method, route.path, desc)
    if chain is None and (_handles_route_misses(app.exception_handlers) or app.max_body_size is not None):
        # FastAPI hands a 404/405 to such a handler: the misses go through Python here too (without middleware);
        # and its App-wide max_body_size answers a long body 413 before the router's 404 (_add_catch_all's limit).
        chain = _middleware.MiddlewareChain([], app.exception_handlers)
    if chain is not None:
        _install_catch_all(app, native, runtime, chain, late_changes)
    else:
        _install_misses(app, native, runtime)
        if late_changes:
            _add_catch_all(app, native, runtime, _middleware.MiddlewareChain([], app.exception_handlers), True)


def _strict_content_type(app: Any, route: Any) -> bool:
    return route.strict_content_type if route.strict_content_type is not None else \
        app.strict_content_type if app.strict_content_type is not None else True


def _install_custom(app: Any, native: Any, runtime: Any, chain: Any, route: Any) -> None:
    """A route of a custom route class (_route_class.py): the engine validates nothing and hands over the Request;
    the class's handler reads it (every parameter by pydantic), inside the app's middleware chain."""
    info = _late_routes.route_info(app, route, runtime)
    chain = chain if chain is not None else _middleware.MiddlewareChain([], app.exception_handlers)
    runner = _route_class.make_runner(route.route_object, info, chain, runtime, reads_body=bool(route.shape.body),
                                      strict=_strict_content_type(app, route))
    desc = _internal_route(app, route.path, runner)
    desc.max_body_size = route.max_body_size
    for method in route.methods:
        native.add_route(method, route.path, desc)


def _handles_route_misses(errors: Any) -> bool:
    """Whether the app has a handler that Starlette would call for a path no route matches or a method no route
    takes: one for the status 404 or 405, or for Starlette's HTTPException class (or a base of it other than
    Exception, whose handler answers only the 500s). A handler for FastAPI's (slipstream's) subclass is not one."""
    if errors is None:
        return False
    if 404 in errors.by_status or 405 in errors.by_status:
        return True
    return any(isinstance(cls, type) and issubclass(HTTP_EXCEPTION, cls) and cls not in (Exception, BaseException)
               for cls in errors.by_class)


def _internal_route(app: Any, pattern: str, runner: Any) -> Any:
    """A RouteDesc for `pattern` whose handler is `runner(__reply__, __request__)` (not in the OpenAPI)."""
    async def endpoint() -> None:  # never called: the runner answers
        return None

    route = RouteDef(path=pattern, endpoint=endpoint, methods=("GET",), options={"include_in_schema": False})
    shape = _shape.RouteShape(params=(), body=(), path_params=_signature.path_param_names(pattern),
                              args=(ArgDesc.request(), ArgDesc.reply()))
    return native_route(route, app.exception_handlers, shape=shape, handler=runner)


def _install_misses(app: Any, native: Any, runtime: Any) -> None:
    """FastAPI's 405s (fixed answers: HEAD on GET-only routes, Allow from the first route) and redirect_slashes
    routes (see _route_misses)."""
    if app.server_options.get("fastapi_route_errors", True):
        for pattern, method, allow in _misses.not_allowed(app.routes):
            native.add_static_route(method, pattern, 405, "application/json", [("allow", allow)],
                                    _misses.METHOD_NOT_ALLOWED_BODY)
    if not getattr(app, "redirect_slashes", True):
        return
    runner = _misses.make_redirect_runner(runtime)
    for pattern in _misses.redirect_patterns(app, _middleware.pattern_regex):
        desc = _internal_route(app, pattern, runner)
        for method in _middleware.CATCH_ALL_METHODS:
            native.add_route(method, pattern, desc)


def _install_catch_all(app: Any, native: Any, runtime: Any, chain: Any, late_changes: bool) -> None:
    """Requests that match no route reach the middleware too: one `/{path:path}` route per method the app does
    not already catch that way (the router still prefers every other pattern)."""
    runner = _add_catch_all(app, native, runtime, chain, late_changes)
    # HEAD on a GET-only route: FastAPI's 405 (Allow from NotFound), through the middleware.
    for pattern, _allow in _misses.head_405(app.routes):
        desc = _internal_route(app, pattern, runner)
        desc.max_body_size = app.max_body_size
        native.add_route("HEAD", pattern, desc)


def _add_catch_all(app: Any, native: Any, runtime: Any, chain: Any, late_changes: bool) -> Any:
    """The catch-all routes (see _install_catch_all); with `late_changes` they also serve the routes added to the
    app after the start. Returns their runner."""
    not_found = _middleware.NotFound([(r.path, r.methods) for r in app.routes],
                                     redirect_slashes=getattr(app, "redirect_slashes", True))
    if late_changes:
        late = _late_routes.LateRoutes(app, runtime, list(app.routes), not_found)
        runner = _late_routes.make_runner(late, chain, runtime)
    else:
        runner = _middleware.make_not_found_runner(not_found, chain, runtime)
    taken = {m for r in app.routes if _CATCH_ALL.match(r.path) for m in r.methods}

    async def not_found_endpoint() -> None:  # never called: the runner answers
        return None

    route = RouteDef(path=_middleware.CATCH_ALL_PATTERN, endpoint=not_found_endpoint, methods=("GET",),
                     options={"include_in_schema": False})
    shape = _shape.RouteShape(params=(), body=(), path_params=("__slipstream_path",),
                              args=(ArgDesc.request(), ArgDesc.reply()))
    desc = native_route(route, app.exception_handlers, shape=shape, handler=runner)
    desc.max_body_size = app.max_body_size  # FastAPI's App-wide limit covers the requests no route matches too
    for method in _middleware.CATCH_ALL_METHODS:
        if method not in taken:
            native.add_route(method, _middleware.CATCH_ALL_PATTERN, desc)
    return runner
