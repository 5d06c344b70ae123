"""A handler's signature -> what the C++ validator checks (RouteSpec rows) and how arguments are built."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel

from . import _plans, _schema
from .params import BodyParam, CookieParam, HeaderParam, Param, PathParam, QueryParam, Required
from .requests import Request

# ParamSource values of include/slipstream/route_spec.h.
_SOURCES = {"path": 0, "query": 1, "header": 2, "cookie": 3}
_PATH_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")
_ARG_VALUE, _ARG_REQUEST = 0, 1


def path_param_names(pattern: str) -> tuple[str, ...]:
    return tuple(m.group(1) for m in _PATH_PARAM.finditer(pattern))


@dataclasses.dataclass
class _Field:
    name: str          # the handler's parameter name
    wire: str          # name on the wire (alias, header name) and key in the arguments object
    source: str        # path, query, header, cookie, body
    annotation: Any
    marker: Param
    default: Any
    default_factory: Any

    @property
    def required(self) -> bool:
        return self.default is Required and self.default_factory is None


@dataclasses.dataclass
class RouteShape:
    """Everything the extension needs about a handler's inputs (see python/bindings/py_route.h)."""

    params: tuple[tuple[Any, ...], ...]
    body: tuple[tuple[Any, ...], ...]
    args: tuple[tuple[Any, ...], ...]
    path_params: tuple[str, ...]


def _is_complex(tp: Any) -> bool:
    tp, _ = _plans._strip_annotated(tp)
    origin = typing.get_origin(tp)
    if origin in (Union, __import__("types").UnionType):
        return any(_is_complex(m) for m in typing.get_args(tp) if m is not type(None))
    if origin is Literal:
        return False
    if origin is not None:
        return isinstance(origin, type) and issubclass(origin, (Sequence, Mapping, set, frozenset)) and origin is not str
    if not isinstance(tp, type):
        return False
    if issubclass(tp, (BaseModel, Mapping, list, tuple, set, frozenset, dict)):
        return True
    return dataclasses.is_dataclass(tp) or typing.is_typeddict(tp)


def _marker_from(annotation: Any, default: Any) -> tuple[Any, Param | None, bool]:
    """(annotation without Param markers, the marker, whether it came from Annotated)."""
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        markers = [m for m in meta if isinstance(m, Param)]
        rest = [m for m in meta if not isinstance(m, Param)]
        if len(markers) > 1:
            raise TypeError("only one of Query/Path/Header/Cookie/Body per parameter")
        if markers:
            if isinstance(default, Param):
                raise TypeError("give the marker either in Annotated or as the default, not both")
            clean = Annotated[(base, *rest)] if rest else base
            return clean, markers[0], True
    if isinstance(default, Param):
        return annotation, default, False
    return annotation, None, False


def _default_plan(field: _Field, plan: tuple[Any, ...]) -> tuple[Any, ...]:
    if field.required:
        return plan
    if field.default_factory is not None:
        return ("default", 2, field.default_factory, plan)
    if isinstance(field.default, _plans._IMMUTABLE):
        return ("default", 1, field.default, plan)
    return ("default", 3, field.default, plan)


def analyze(handler: Any, pattern: str) -> RouteShape:
    """Reads `handler`'s parameters like FastAPI: path names from `pattern`, scalars from the query, models from
    the body, Request by type, Annotated markers. Raises TypeError on what slipstream cannot serve."""
    in_path = path_param_names(pattern)
    signature = inspect.signature(handler)
    hints = typing.get_type_hints(handler, include_extras=True)
    fields: list[_Field] = []
    args: list[tuple[Any, ...]] = []
    request_args: list[str] = []
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"parameter '{name}' is positional-only; slipstream passes arguments by keyword")
        annotation = hints.get(name, Any)
        default = parameter.default if parameter.default is not parameter.empty else Required
        clean, marker, from_annotated = _marker_from(annotation, default)
        if isinstance(clean, type) and issubclass(clean, Request):
            request_args.append(name)
            continue
        if from_annotated and marker is not None and (marker.default is not Required or
                                                      isinstance(marker, PathParam) and default is not Required):
            raise TypeError(f"parameter '{name}': give its default with '=', not inside Annotated[..., "
                            f"{type(marker).__name__.replace('Param', '')}(...)]")
        if marker is None:
            if name in in_path:
                marker = PathParam()
            elif _is_complex(clean):
                marker = BodyParam(default)
            else:
                marker = QueryParam(default)
            from_annotated = True
        value_default = (default if from_annotated else marker.default) if not isinstance(marker, PathParam) else Required
        if isinstance(value_default, Param):
            value_default = Required
        if marker.source == "path" and name not in in_path and (marker.alias or name) not in in_path:
            raise TypeError(f"path parameter '{name}' is not in the route pattern {pattern!r}")
        if marker.source == "header":
            assert isinstance(marker, HeaderParam)
            wire = marker.alias or (name.replace("_", "-") if marker.convert_underscores else name)
        else:
            wire = marker.alias or name
        fields.append(_Field(name, wire, marker.source, clean, marker, value_default, marker.default_factory))
    param_fields = [f for f in fields if f.source != "body"]
    param_fields.sort(key=lambda f: _SOURCES[f.source])
    body_fields = [f for f in fields if f.source == "body"]
    embed = len(body_fields) > 1 or any(getattr(f.marker, "embed", False) for f in body_fields)
    params = tuple(
        (f.wire, _SOURCES[f.source], f.wire, _schema.schema_text(f.annotation, f.marker.constraints()),
         f.required, "")
        for f in param_fields
    )
    body = tuple(
        (f.wire, _schema.schema_text(f.annotation, f.marker.constraints()), f.required, "", embed)
        for f in body_fields
    )
    for index, f in enumerate(param_fields + body_fields):
        loc: tuple[str, ...]
        if f.source == "body":
            loc = ("body", f.wire) if embed else ("body",)
        else:
            loc = (f.source, f.wire)
        plan = _default_plan(f, _plans.plan_for(f.annotation))
        args.append((f.name, _ARG_VALUE, index, f.wire, plan, loc))
    for name in request_args:
        args.append((name, _ARG_REQUEST, 0, "", ("any",), ()))
    _check_unique(param_fields + body_fields)
    return RouteShape(params=params, body=body, args=tuple(args), path_params=in_path)


def _check_unique(fields: list[_Field]) -> None:
    seen: dict[str, str] = {}
    for f in fields:
        if f.wire in seen:
            raise TypeError(f"parameters '{seen[f.wire]}' and '{f.name}' share the name '{f.wire}'")
        seen[f.wire] = f.name


__all__ = ["CookieParam", "RouteShape", "analyze", "path_param_names"]
