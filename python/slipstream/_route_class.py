"""FastAPI's APIRoute and custom route classes: a subclass that overrides get_route_handler() wraps the handler that
reads, validates and calls the endpoint (`original = super().get_route_handler()`; `await original(request)`).

A route of such a class is served in Python: the engine hands it the Request without validating anything (the
body may be gzip, read through a Request subclass), and the default route handler below reads every parameter and
the body with pydantic, as FastAPI does (dependencies/late.py), then builds the Response the wrapper sees. Routes
of APIRoute itself (and of subclasses that keep its get_route_handler) stay on the C++ fast path."""

from __future__ import annotations

import abc
import contextvars
import json
from collections.abc import Callable, Sequence
from typing import Any

from ._responses_prep import Default
from .dependencies.runner import UNVALIDATED, RouteInfo, answer_through_chain, endpoint_response
from .exceptions import HTTP_EXCEPTION, RequestValidationError


class _Exchange:
    """What the default route handler needs of the request being served, beside the Request itself."""

    __slots__ = ("after", "info", "reads_body", "reply", "strict")

    def __init__(
        self, info: RouteInfo, reply: Any, after: list[Callable[[], Any]], reads_body: bool, strict: bool
    ) -> None:
        self.info = info
        self.reply = reply
        self.after = after
        self.reads_body = reads_body
        self.strict = strict


_EXCHANGE: contextvars.ContextVar[_Exchange] = contextvars.ContextVar("slipstream_route_exchange")


class APIRoute(metaclass=abc.ABCMeta):
    """FastAPI's APIRoute: a route's path, endpoint, methods and options. Subclass it and override
    get_route_handler() to wrap the handler (FastAPI's "Custom Request and APIRoute class"); use the subclass with
    `APIRouter(route_class=...)`, `app.router.route_class = ...` or `routes=[Subclass(path, endpoint)]`. An app's
    own routes (routing.RouteDef) are instances too, for FastAPI's `isinstance(route, APIRoute)` loops."""

    def __init__(
        self,
        path: str,
        endpoint: Callable[..., Any],
        *,
        response_model: Any = Default,
        status_code: int | None = None,
        tags: Sequence[Any] | None = None,
        dependencies: Sequence[Any] | None = None,
        methods: Sequence[str] | set[str] | None = None,
        name: str | None = None,
        response_class: Any = None,
        **options: Any,
    ) -> None:
        self.path = path
        self.endpoint = endpoint
        self.response_model = response_model
        self.status_code = status_code
        self.tags = list(tags or [])
        self.dependencies = list(dependencies or [])
        self.methods = {m.upper() for m in (methods or ["GET"])}
        self.name = name or getattr(endpoint, "__name__", type(endpoint).__name__)
        self.response_class = response_class
        self.options = options  # summary, description, responses, strict_content_type, ...
        for key, value in options.items():
            setattr(self, key, value)

    def get_route_handler(self) -> Callable[[Any], Any]:
        """The coroutine function `handler(request) -> Response` that reads the request's parameters and body (with
        `await request.body()`, so a Request subclass may change it), validates them, runs the dependencies and
        the endpoint, and returns the Response; an invalid request raises RequestValidationError."""
        return _route_handler


def is_custom(route_class: Any) -> bool:
    """Whether routes of `route_class` must be served through its get_route_handler() (in Python)."""
    return (
        isinstance(route_class, type)
        and issubclass(route_class, APIRoute)
        and route_class.get_route_handler is not APIRoute.get_route_handler
    )


async def _route_handler(request: Any) -> Any:
    ex = _EXCHANGE.get()
    if ex.reads_body:
        await _read_body(request, ex.strict)
    return await endpoint_response(ex.info, {UNVALIDATED: True}, request, ex.reply, ex.after)


async def _read_body(request: Any, strict: bool) -> None:
    """The body as FastAPI reads it for a JSON body parameter: parsed when its Content-Type is JSON (or missing,
    with strict_content_type=False), else the bytes themselves; kept on the request for the parameter readers."""
    raw = await request.body()
    value: Any = raw
    if raw:
        content_type = request.headers.get("content-type")
        if _is_json(content_type) or (not content_type and not strict):
            try:
                value = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise RequestValidationError(
                    [
                        {
                            "type": "json_invalid",
                            "loc": ("body", exc.pos),
                            "msg": "JSON decode error",
                            "input": {},
                            "ctx": {"error": exc.msg},
                        }
                    ],
                    body=exc.doc,
                ) from exc
            except ValueError as exc:  # not UTF-8
                raise HTTP_EXCEPTION(400, "There was an error parsing the body") from exc
    request.body_bytes = raw
    request._json = value


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    main, _, sub = media.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


def make_runner(
    route_object: APIRoute, info: RouteInfo, chain: Any, hooks: Any, *, reads_body: bool, strict: bool
) -> Callable[..., Any]:
    """The engine's handler for a route of a custom class: `route_object.get_route_handler()` (called once, as
    FastAPI calls it when the route is made) inside the app's HTTP middleware `chain`."""
    handler = route_object.get_route_handler()

    async def respond(request: Any, reply: Any, after: list[Callable[[], Any]]) -> Any:
        token = _EXCHANGE.set(_Exchange(info, reply, after, reads_body, strict))
        try:
            return await handler(request)
        except RequestValidationError as exc:
            if exc.body is None and getattr(request, "body_bytes", None):
                exc.body = getattr(request, "_json", None)
            raise
        finally:
            _EXCHANGE.reset(token)

    async def run(__reply__: Any, __request__: Any) -> None:
        reply = __reply__
        await answer_through_chain(chain, __request__, reply, hooks, lambda req, after: respond(req, reply, after))

    return run
