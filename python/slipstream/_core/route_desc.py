"""The route contract: what the extension reads once per Python route at start-up (python/bindings/route_desc.h).

Named records and enums on both sides instead of positional tuples and magic integers; the enums' values are the
C++ enums' (ParamSource is slipstream::ParamSource, include/slipstream/route_spec.h). The rows are NamedTuples
(immutable; C++ reads them by field name); an argument's conversion plan is a plan_desc record. Nothing here runs
per request.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any, NamedTuple

from .plan_desc import ANY, DefaultKind, PlanDesc  # DefaultKind: also exported here, beside ArgKind


class ParamSource(enum.IntEnum):
    """Where a parameter's raw text comes from (slipstream::ParamSource)."""

    PATH = 0
    QUERY = 1
    HEADER = 2
    COOKIE = 3


class ArgKind(enum.IntEnum):
    """What one handler argument is (slipstream::python::ArgKind)."""

    VALUE = 0  # a validated value of Request::arguments(), converted by its plan
    REQUEST = 1  # the Request object
    REPLY = 2  # the PendingReply, always last: the handler (a runner) answers through it


class ParamDesc(NamedTuple):
    """One path, query, header or cookie parameter, coerced and validated in C++ (slipstream::ParamSpec)."""

    name: str  # the key in the validated arguments object
    source: ParamSource
    alias: str  # the name on the wire (query key, header name, cookie name)
    schema: str  # JSON Schema text of the value
    required: bool
    default: str = ""  # JSON text used when absent and not required ("": null)


class BodyDesc(NamedTuple):
    """The JSON body, or one embedded field of it (slipstream::BodySpec)."""

    name: str  # the key in the validated arguments object (and in the body, when embedded)
    schema: str
    required: bool
    default: str = ""
    embed: bool = False


class ArgDesc(NamedTuple):
    """One keyword argument of the handler call."""

    name: str
    kind: ArgKind
    index: int = 0  # VALUE: its position in Request::arguments()
    key: str = ""  # VALUE: its key there
    plan: PlanDesc = ANY  # VALUE: how the validated JSON becomes a Python object (plan_desc.py, built by _plans.py)
    loc: tuple[Any, ...] = ()  # FastAPI's loc prefix of the errors its conversion raises, e.g. ("body",)

    @staticmethod
    def request(name: str = "__request__") -> ArgDesc:
        return ArgDesc(name, ArgKind.REQUEST)

    @staticmethod
    def reply() -> ArgDesc:
        return ArgDesc("__reply__", ArgKind.REPLY)


@dataclasses.dataclass(eq=False)
class RouteDesc:
    """One Python route as the extension registers it (python/bindings/py_route.h). `app_errors` (the app's
    exception handlers) and `fallback` (the parameters pydantic validates, _fallback.py) are read by the Python
    error path, not by C++."""

    handler: Callable[..., Any]
    is_coroutine: bool
    status_code: int
    args: tuple[ArgDesc, ...]
    params: tuple[ParamDesc, ...]
    body: tuple[BodyDesc, ...]
    path_params: tuple[str, ...]
    prepare: Callable[[Any], Any] | None = None  # response_model / response_class rules, or None
    cache_ttl: float = 0.0  # seconds; > 0: successful responses are cached by request target
    forward_errors: bool = False  # validation failures go to Python (RouteSpec::forward_errors)
    # FastAPI's strict_content_type: False reads a body without Content-Type as JSON (RouteSpec::json_without_...)
    strict_content_type: bool = True
    max_body_size: int | None = None  # FastAPI's: a longer body is answered 413 (RouteSpec::max_body_bytes)
    app_errors: Any = None
    fallback: Any = None


__all__ = ["ArgDesc", "ArgKind", "BodyDesc", "DefaultKind", "ParamDesc", "ParamSource", "RouteDesc"]
