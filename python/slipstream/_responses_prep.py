"""Response rules of a route: response_model validation/filtering and response_class wrapping, run in Python
only for routes that declare them (plain return values go straight to the C++ encoder)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

from .responses import JSONResponse, Response


class _DefaultType:
    def __repr__(self) -> str:
        return "Default"


Default: Any = _DefaultType()
"""A route's response_model when none was given: the handler's return annotation is used (FastAPI's rule)."""


def return_annotation(func: Callable[..., Any]) -> Any:
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable hints: no response model
        return inspect.Signature.empty
    return hints.get("return", inspect.Signature.empty)


def _response_model(route: Any) -> Any:
    model = route.response_model
    if model is Default:
        model = return_annotation(route.endpoint)
        # `-> Any` is a response model, as in FastAPI: the value is serialized by pydantic (a timedelta as an ISO
        # 8601 duration, a Decimal as a string), not by jsonable_encoder's rules.
        if model is inspect.Signature.empty or model is None:
            return None
        origin = typing.get_origin(model) or model
        if isinstance(origin, type) and issubclass(origin, Response):
            return None
    return model


# FastAPI's route options that shape the response model's output (serialize_response's arguments).
RESPONSE_MODEL_OPTIONS = {"response_model_include": "include", "response_model_exclude": "exclude",
                          "response_model_by_alias": "by_alias", "response_model_exclude_unset": "exclude_unset",
                          "response_model_exclude_defaults": "exclude_defaults",
                          "response_model_exclude_none": "exclude_none"}


def dump_options(options: dict[str, Any]) -> dict[str, Any]:
    """pydantic dump arguments from a route's response_model_* options (by_alias True unless said)."""
    out: dict[str, Any] = {"by_alias": True}
    for option, argument in RESPONSE_MODEL_OPTIONS.items():
        value = options.get(option)
        if value is None:
            continue
        if argument in ("include", "exclude") and isinstance(value, (list, tuple)):
            value = set(value)
        out[argument] = value if argument in ("include", "exclude") else bool(value)
    return out


def make_prepare(route: Any) -> Any:
    """None, or a function from a handler's return value to JSON-compatible data (or a Response)."""
    model = _response_model(route)
    response_class = route.response_class
    # JSONResponse itself is the C++ encoder's (the same bytes); any other class (subclasses too) renders.
    wrap = response_class is not None and response_class is not JSONResponse
    if response_class is not None and not (isinstance(response_class, type) and issubclass(response_class, Response)):
        raise TypeError("response_class must be a slipstream Response subclass")
    adapter = TypeAdapter(model) if model is not None else None
    if adapter is None and not wrap:
        return None
    # A response_class gets the route's status_code when one was given, else its own default (307 for
    # RedirectResponse), as FastAPI builds it.
    status_arg = {} if route.status_code is None else {"status_code": route.status_code}
    dump = dump_options(getattr(route, "options", None) or {})

    def prepare(value: Any) -> Any:
        if isinstance(value, Response):
            return value
        if adapter is not None:
            # The returned object itself, as FastAPI validates it: a dict dump would lose @property values read
            # from attributes and put serialized values (PlainSerializer) where the model expects its own type.
            validated = adapter.validate_python(value, from_attributes=True)
            value = adapter.dump_python(validated, mode="json", **dump)
        if wrap:
            return response_class(value, **status_arg)
        return value

    return prepare
