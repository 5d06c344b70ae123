"""APIRouter and route definitions: decorators that record handlers; nothing runs until the app starts."""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from . import _endpoint, _lifespan, llm_upstream, structured
from ._responses_prep import RESPONSE_MODEL_OPTIONS, Default, make_prepare, return_annotation  # noqa: F401 - re-exported
from ._route_class import APIRoute, is_custom
from ._streaming_responses import EventSourceResponse
from .datastructures import URLPath
from .dependencies.shape import RouteShape, analyze
from .exceptions import NoMatchFound
from .forms import check_limits as check_form_limits

F = TypeVar("F", bound=Callable[..., Any])


_DOC_ONLY = {"summary", "description", "response_description", "responses", "deprecated", "operation_id",
             "include_in_schema", "openapi_extra", "name", "callbacks", "generate_unique_id_function",
             *RESPONSE_MODEL_OPTIONS}  # the response_model_* ones shape the output (_responses_prep.make_prepare)


@dataclasses.dataclass
class RouteDef:
    """A handler with its full path (prefixes applied), methods and response rules."""

    path: str
    endpoint: Callable[..., Any]
    methods: tuple[str, ...]
    status_code: int | None = None
    response_model: Any = Default
    response_class: Any = None
    tags: list[str] = dataclasses.field(default_factory=list)
    shape: RouteShape | None = None
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    cache_ttl: float = 0.0
    dependencies: list[Any] = dataclasses.field(default_factory=list)  # Depends() run before the handler
    # FastAPI's strict_content_type (None: the including router's, else True): False reads a body sent without
    # Content-Type as JSON.
    strict_content_type: bool | None = None
    max_body_size: int | None = None  # FastAPI's (bytes; None: the including router's, else no limit of its own)
    form_limits: dict[str, int] = dataclasses.field(default_factory=dict)  # its form limits (router's, then own)
    # An instance of a custom route class (_route_class.APIRoute subclass overriding get_route_handler): the route
    # is served through its handler, in Python.
    route_object: Any = None

    @property
    def name(self) -> str:
        """FastAPI's route name: the `name=` option, else the endpoint's function name (see url_path_for)."""
        return route_name(self)

    @property
    def validation_fallback(self) -> tuple[tuple[str, str], ...]:
        """("source name", construct) for each parameter that pydantic validates in Python because the C++
        validator does not model its type exactly (see _fallback.py); empty when C++ validates them all."""
        fallback = self.shape.fallback if self.shape is not None else None
        return fallback.reasons if fallback is not None else ()


APIRoute.register(RouteDef)  # FastAPI's `for route in app.routes: if isinstance(route, APIRoute): ...`


@dataclasses.dataclass
class WebSocketRouteDef:
    """A WebSocket handler with its full path (prefixes applied) and dependencies (router's first)."""

    path: str
    endpoint: Callable[..., Any]
    name: str | None = None
    dependencies: list[Any] = dataclasses.field(default_factory=list)


class APIRouter:
    """A group of routes, added to an app (or another router) with include_router(router, prefix=, tags=).
    A router's own prefix and tags apply to every route added to it."""

    def __init__(self, *, prefix: str = "", tags: Sequence[str] | None = None,
                 responses: dict[int | str, dict[str, Any]] | None = None, deprecated: bool | None = None,
                 include_in_schema: bool = True, dependencies: Sequence[Any] | None = None,
                 on_startup: Sequence[Callable[[], Any]] | None = None,
                 on_shutdown: Sequence[Callable[[], Any]] | None = None, lifespan: Any = None,
                 default_response_class: Any = None,
                 generate_unique_id_function: Callable[[Any], str] | None = None,
                 callbacks: Sequence[Any] | None = None, routes: Sequence[Any] | None = None,
                 redirect_slashes: bool = True, default: Any = None, dependency_overrides_provider: Any = None,
                 route_class: type[APIRoute] = APIRoute, strict_content_type: bool | None = None,
                 max_body_size: int | None = None, form_limits: Any = None) -> None:
        _check_prefix(prefix)
        self.prefix = prefix
        # FastAPI's route_class: routes added here are made with it (a subclass overriding get_route_handler is
        # served in Python, _route_class.py); strict_content_type: None leaves it to the including router.
        self.route_class = route_class
        self.strict_content_type = strict_content_type
        self.redirect_slashes = redirect_slashes
        self.default = default  # Starlette's ASGI app for unmatched requests: accepted, unused (the app answers 404)
        self.dependency_overrides_provider = dependency_overrides_provider
        self.max_body_size = _check_body_size(max_body_size)
        # FastAPI's form_limits of the routes added here (a route's own win; an App's apply to every form read).
        self.form_limits = check_form_limits(form_limits)
        # The response_class of routes added here without one (FastAPI's default_response_class).
        self.default_response_class = default_response_class
        self.tags = list(tags or [])
        self.routes: list[RouteDef] = []
        self.websocket_routes: list[WebSocketRouteDef] = []
        self.dependencies = list(dependencies or [])
        # Joined to an app's by App.include_router (as FastAPI does).
        self.on_startup = list(on_startup or [])
        self.on_shutdown = list(on_shutdown or [])
        self.lifespan_context = _lifespan.lifespan_context(lifespan, self)
        # OpenAPI only: merged into every route added here (as FastAPI does).
        self.responses = dict(responses or {})
        self.deprecated = deprecated
        self.include_in_schema = include_in_schema
        # The OpenAPI operation ids of routes added here that name no function of their own (as FastAPI's).
        self.generate_unique_id_function = generate_unique_id_function
        # OpenAPI callbacks documented on every route added here, before the route's own (as FastAPI's).
        self.callbacks = list(callbacks or [])
        # An App's `webhooks` router: its routes are documented (their names as paths), never served.
        self.documented_only = False
        for route in routes or ():
            self.add_route_object(route)

    def add_route_object(self, route: Any) -> None:
        """Adds an APIRoute (of any route class) made by the caller, as FastAPI's `routes=[...]` takes them."""
        if isinstance(route, RouteDef):
            self.routes.append(route)
            return
        if not isinstance(route, APIRoute):
            raise TypeError(f"routes= takes slipstream.routing.APIRoute objects, not {type(route).__name__}")
        self.add_api_route(route.path, route.endpoint, methods=sorted(route.methods), status_code=route.status_code,
                           response_model=route.response_model, response_class=route.response_class,
                           tags=route.tags, dependencies=route.dependencies, name=route.name,
                           route_class_override=type(route),
                           **{k: v for k, v in route.options.items() if k != "dependency_overrides_provider"})

    def add_api_route(self, path: str, endpoint: Callable[..., Any], *, methods: Sequence[str] | None = None,
                      status_code: int | None = None, response_model: Any = Default, response_class: Any = None,
                      tags: Sequence[str] | None = None, dependencies: Any = None, cache_ttl: float | None = None,
                      strict_content_type: bool | None = None, route_class_override: type[APIRoute] | None = None,
                      max_body_size: int | None = None, **doc: Any) -> None:
        """Adds a route. `cache_ttl` (seconds, GET only): a 200 response is kept per request target (path and
        query) and answered by the I/O threads, without Python, until it expires; use it only for responses
        that do not depend on headers or cookies. `response_stream=Model` (a doc option): the handler yields the
        pieces of one JSON document (an LLM's output) and the route streams them validated against the model as
        Server-Sent Events (structured.ValidatedStreamResponse); with `upstream=Upstream(...)`
        (llm_upstream.py) it returns an OpenAI chat completion request instead, and the route streams the upstream's
        output validated in C++ (Upstream.stream)."""
        if response_class is None:
            response_class = self.default_response_class
        original_endpoint = endpoint
        route_class = route_class_override or self.route_class
        _check_body_size(max_body_size)
        response_stream = doc.pop("response_stream", None)
        upstream = doc.pop("upstream", None)
        if upstream is not None and response_stream is None:
            raise TypeError("upstream= needs response_stream= (the model the upstream's output must satisfy)")
        if upstream is not None:  # the handler returns the upstream request; the call runs in C++ (llm_upstream.py)
            endpoint = llm_upstream.upstream_endpoint(endpoint, response_stream, upstream)
        elif response_stream is not None:  # pieces of one JSON document validated as they stream (structured.py)
            endpoint = structured.stream_endpoint(endpoint, response_stream)
        if response_stream is not None:
            response_model = None
            response_class = response_class or EventSourceResponse  # documented as text/event-stream
        # Form()/File() parameters and `yield` handlers: see _endpoint.py (a no-op for other handlers).
        form_limits = {**(self.form_limits or {}), **check_form_limits(doc.pop("form_limits", None))}
        endpoint = _endpoint.wrap(endpoint, response_class=response_class, status_code=status_code,
                                  form_limits=form_limits)
        unknown = set(doc) - _DOC_ONLY
        if unknown:
            raise TypeError(f"unsupported route option(s): {', '.join(sorted(unknown))}")
        dependencies = [*self.dependencies, *(dependencies or [])]
        methods = tuple(m.upper() for m in (methods or ["GET"]))
        if cache_ttl is not None and (cache_ttl < 0 or set(methods) - {"GET"}):
            raise ValueError("cache_ttl needs a GET-only route and a non-negative number of seconds")
        full = self.prefix + path
        _merge_doc_options(doc, self.responses, self.deprecated, self.include_in_schema)
        if self.generate_unique_id_function is not None:
            doc.setdefault("generate_unique_id_function", self.generate_unique_id_function)
        if self.callbacks:
            doc["callbacks"] = [*self.callbacks, *(doc.get("callbacks") or [])]
        # A callback router's paths begin with an OpenAPI runtime expression ("{$callback_url}/..."): documented
        # (callbacks=router.routes), not served.
        if not full.startswith(("/", "{$")) and not self.documented_only:
            raise ValueError(f"route path must start with '/': {path!r}")
        route = RouteDef(path=full, endpoint=endpoint, methods=methods, status_code=status_code,
                         response_model=response_model, response_class=response_class,
                         tags=[*self.tags, *(tags or [])], options=doc, cache_ttl=float(cache_ttl or 0),
                         dependencies=dependencies,
                         strict_content_type=strict_content_type if strict_content_type is not None
                         else self.strict_content_type,
                         max_body_size=max_body_size if max_body_size is not None else self.max_body_size,
                         form_limits=form_limits)
        if is_custom(route_class):  # made now, as FastAPI makes it: its __init__ runs at the decorator
            route.route_object = route_class(full, original_endpoint, response_model=response_model,
                                             status_code=status_code, tags=route.tags, dependencies=dependencies,
                                             methods=methods, response_class=response_class, **doc)
        # Analyzed here so that a bad signature fails at the decorator, as in FastAPI.
        route.shape = analyze(endpoint, full, dependencies=dependencies)
        make_prepare(route)
        self.routes.append(route)

    def api_route(self, path: str, *, methods: Sequence[str] | None = None, **options: Any) -> Callable[[F], F]:
        def decorator(func: F) -> F:
            self.add_api_route(path, func, methods=methods, **options)
            return func

        return decorator

    def get(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["GET"], **options)

    def post(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["POST"], **options)

    def put(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["PUT"], **options)

    def patch(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["PATCH"], **options)

    def delete(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["DELETE"], **options)

    def head(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["HEAD"], **options)

    def options(self, path: str, **options: Any) -> Callable[[F], F]:
        return self.api_route(path, methods=["OPTIONS"], **options)

    def add_api_websocket_route(self, path: str, endpoint: Callable[..., Any], name: str | None = None, *,
                                dependencies: Sequence[Any] | None = None) -> None:
        """A WebSocket route (FastAPI's): endpoint(websocket, path/query/header/cookie parameters, Depends())."""
        full = self.prefix + path
        if not full.startswith("/"):
            raise ValueError(f"route path must start with '/': {path!r}")
        self.websocket_routes.append(WebSocketRouteDef(full, endpoint, name,
                                                       [*self.dependencies, *(dependencies or [])]))

    def websocket(self, path: str, name: str | None = None, *,
                  dependencies: Sequence[Any] | None = None) -> Callable[[F], F]:
        """Decorator form of add_api_websocket_route (FastAPI's @router.websocket)."""

        def decorator(func: F) -> F:
            self.add_api_websocket_route(path, func, name, dependencies=dependencies)
            return func

        return decorator

    def include_router(self, router: APIRouter, *, prefix: str = "", tags: Sequence[str] | None = None,
                       responses: dict[int | str, dict[str, Any]] | None = None, deprecated: bool | None = None,
                       include_in_schema: bool = True, dependencies: Sequence[Any] | None = None,
                       default_response_class: Any = None,
                       generate_unique_id_function: Callable[[Any], str] | None = None,
                       callbacks: Sequence[Any] | None = None, max_body_size: int | None = None,
                       form_limits: Any = None) -> None:
        """Adds every route of `router` under `prefix` (and this router's prefix), with `tags` first; this
        router's `dependencies`, then `dependencies`, then the route's own run first. A route without a
        response_class gets `default_response_class`, else this router's."""
        _check_prefix(prefix)
        for route in router.routes:
            options = dict(route.options)
            _merge_doc_options(options, responses or {}, deprecated, include_in_schema)
            if generate_unique_id_function is not None:  # the route's own, else its router's, else this one
                options.setdefault("generate_unique_id_function", generate_unique_id_function)
            if callbacks:
                options["callbacks"] = [*callbacks, *(options.get("callbacks") or [])]
            # FastAPI's form limits: this router's, the include's, the included router's, the route's own.
            limits = {**(self.form_limits or {}), **check_form_limits(form_limits), **route.form_limits}
            endpoint = route.endpoint
            if limits != route.form_limits:  # wrapped again (_endpoint.wrap) with the limits in force here
                endpoint = getattr(endpoint, "__slipstream_endpoint__", endpoint)
            self.add_api_route(prefix + route.path, endpoint, methods=route.methods,
                               status_code=route.status_code, response_model=route.response_model,
                               response_class=route.response_class or default_response_class, tags=[*(tags or []), *route.tags],
                               cache_ttl=route.cache_ttl or None,
                               dependencies=[*(dependencies or []), *route.dependencies],
                               strict_content_type=route.strict_content_type,
                               max_body_size=route.max_body_size if route.max_body_size is not None else max_body_size,
                               route_class_override=type(route.route_object) if route.route_object is not None
                               else APIRoute, form_limits=limits, **options)
        for ws_route in router.websocket_routes:
            self.add_api_websocket_route(prefix + ws_route.path, ws_route.endpoint, ws_route.name,
                                         dependencies=[*(dependencies or []), *ws_route.dependencies])
        # As FastAPI: the router's startup/shutdown handlers join this router's, and its lifespan runs nested in
        # this router's, so a router included in a router included in an app runs them all (its default lifespan
        # runs its own handlers again, as FastAPI's does).
        self.on_startup.extend(router.on_startup)
        self.on_shutdown.extend(router.on_shutdown)
        self.lifespan_context = _lifespan.merge(self.lifespan_context, router.lifespan_context)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """The path of the route called `name` (its `name=` option, else its endpoint's function name) with
        `path_params` in place, as Starlette's: the first route of that name whose path parameters are exactly
        those given; NoMatchFound when none is. A StaticFiles mount takes `path=` (the file's path in it)."""
        for route in self.routes:
            found = _route_path(route.path, route_name(route), route.endpoint, "http", name, path_params)
            if found is not None:
                return found
        for ws_route in self.websocket_routes:
            ws_name = ws_route.name or _endpoint_name(ws_route.endpoint)
            found = _route_path(ws_route.path, ws_name, ws_route.endpoint, "websocket", name, path_params)
            if found is not None:
                return found
        for kind, args in getattr(self, "native_routes", ()):  # an App's mounted ASGI apps (_asgi/mount.py)
            finder = getattr(args[0], "url_path_for", None) if kind == "mount" else None
            if finder is not None:
                try:
                    return finder(name, **path_params)
                except NoMatchFound:
                    pass
        raise NoMatchFound(name, path_params)


def route_name(route: RouteDef) -> str:
    """A route's name as FastAPI gives it: `name=`, else its endpoint's function name."""
    return route.options.get("name") or _endpoint_name(route.endpoint)


def _endpoint_name(endpoint: Any) -> str:
    func = inspect.unwrap(endpoint)
    return getattr(func, "__name__", type(func).__name__)


_PARAM = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)(?::([a-zA-Z_][a-zA-Z0-9_]*))?\}")


def _route_path(path: str, route_name: str, endpoint: Any, protocol: str, name: str,
                path_params: dict[str, Any]) -> URLPath | None:
    """`path` with `path_params` in place when the route is `name` and takes exactly those parameters."""
    if route_name != name:
        return None
    mount = getattr(inspect.unwrap(endpoint), "__slipstream_mount__", None)
    if mount == "redirect":  # the redirect of a mount's bare path: url_for(mount) needs path=, as Starlette's
        return None
    convertors = {m.group(1): m.group(2) or "str" for m in _PARAM.finditer(path)}
    if set(path_params) != set(convertors):
        return None
    values = dict(path_params)
    if mount and "path" in values:
        values["path"] = str(values["path"]).lstrip("/")
    try:
        text = {key: _to_string(convertors[key], value) for key, value in values.items()}
    except (ValueError, TypeError):
        return None
    return URLPath(_PARAM.sub(lambda m: text[m.group(1)], path), protocol=protocol)


def _to_string(convertor: str, value: Any) -> str:
    """A path parameter's value in a path, as Starlette's convertors write it."""
    if convertor == "int":
        number = int(value)
        if number < 0:
            raise ValueError("negative integers are not supported")
        return str(number)
    if convertor == "float":
        number = float(value)
        if number < 0 or not math.isfinite(number):
            raise ValueError("negative, nan and infinite floats are not supported")
        return f"{number:0.20f}".rstrip("0").rstrip(".")
    text = str(value)
    if convertor != "path" and ("/" in text or not text):
        raise ValueError("a path parameter holds no '/' and is not empty")
    return text


def _merge_doc_options(doc: dict[str, Any], responses: dict[Any, Any], deprecated: bool | None,
                       include_in_schema: bool) -> None:
    """A router's (or an include's) responses, deprecated and include_in_schema applied to a route's options."""
    if responses:
        doc["responses"] = {**responses, **(doc.get("responses") or {})}
    if deprecated:
        doc["deprecated"] = doc.get("deprecated") or deprecated
    if not include_in_schema:
        doc["include_in_schema"] = False


def _check_body_size(limit: int | None) -> int | None:
    """FastAPI's max_body_size check (a non-negative int or None)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError("max_body_size must be a non-negative integer or None")
    return limit


def _check_prefix(prefix: str) -> None:
    if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
        raise ValueError(f"a prefix must start with '/' and must not end with '/': {prefix!r}")


def is_coroutine_handler(func: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(func):
        return True
    call = getattr(func, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return call is not None and inspect.iscoroutinefunction(call)
