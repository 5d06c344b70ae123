"""A handler's signature -> what the C++ validator checks (RouteSpec rows) and how arguments are built.

`read_parameters()` classifies each parameter of one callable (a handler or a dependency) as FastAPI's
analyze_param does; dependencies/shape.py flattens a route's whole dependency tree into one RouteSpec
(`shape.analyze()`) so that every parameter is validated in C++ before any Python runs.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

from pydantic import BaseModel

from . import _plans
from ._core.plan_desc import DefaultKind, DefaultPlan, PlanDesc
from ._markers import split_markers
from .background import BackgroundTasks
from .dependencies import param_models
from .dependencies.params import DependsParam, SecurityScopes
from .params import BodyParam, CookieParam, HeaderParam, Param, PathParam, QueryParam, Required
from .requests import HTTPConnection
from .responses import Response

_PATH_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")

# What a parameter is (ParamRead.kind); MODEL: a query/header/cookie parameter model (dependencies/param_models.py).
FIELD, DEPENDS, REQUEST, RESPONSE, BACKGROUND, SCOPES, MODEL = range(7)
_SPECIAL = ((HTTPConnection, REQUEST), (Response, RESPONSE), (BackgroundTasks, BACKGROUND), (SecurityScopes, SCOPES))


def path_param_names(pattern: str) -> tuple[str, ...]:
    return tuple(m.group(1) for m in _PATH_PARAM.finditer(pattern))


@dataclasses.dataclass
class Field:
    name: str          # the callable's parameter name
    wire: str          # name on the wire (alias, header name); the key in a body object
    source: str        # path, query, header, cookie, body
    annotation: Any
    marker: Param
    default: Any
    default_factory: Any

    @property
    def required(self) -> bool:
        return self.default is Required and self.default_factory is None


@dataclasses.dataclass
class ParamRead:
    """One parameter of a callable: a request value (`field`), a dependency (`depends`), or an injected object."""

    name: str
    kind: int
    field: Field | None = None
    depends: DependsParam | None = None


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


def _hints(call: Any) -> dict[str, Any]:
    target = call
    while isinstance(target, functools.partial):
        target = target.func
    if inspect.isclass(target):
        target = target.__init__
    elif not (inspect.isfunction(target) or inspect.ismethod(target)) and hasattr(target, "__call__"):  # noqa: B004
        target = target.__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable hints: the signature's own annotations
        return {}


def read_parameters(call: Any, in_path: Sequence[str]) -> list[ParamRead]:
    """Classifies each parameter of `call` like FastAPI: Depends markers, injected types (Request, Response,
    BackgroundTasks, SecurityScopes), path names from the pattern, scalars from the query, models from the body,
    Annotated markers. Raises TypeError on what slipstream cannot serve."""
    signature = inspect.signature(call)
    hints = _hints(call)
    out: list[ParamRead] = []
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"parameter '{name}' is positional-only; slipstream passes arguments by keyword")
        annotation = hints.get(name, parameter.annotation if parameter.annotation is not parameter.empty else Any)
        default = parameter.default if parameter.default is not parameter.empty else Required
        clean, base, marker, from_annotated = split_markers(annotation, default)
        if isinstance(marker, DependsParam):
            if marker.dependency is None:
                marker = dataclasses.replace(marker, dependency=base)
            out.append(ParamRead(name, DEPENDS, depends=marker))
            continue
        special = next((kind for cls, kind in _SPECIAL if isinstance(base, type) and issubclass(base, cls)), None)
        if special is not None and marker is None:
            out.append(ParamRead(name, special))
            continue
        field = _field(name, clean, default, marker, from_annotated, in_path)
        kind = MODEL if param_models.check_declaration(name, field.source, field.annotation) else FIELD
        out.append(ParamRead(name, kind, field=field))
    return out


def _field(name: str, clean: Any, default: Any, marker: Param | None, from_annotated: bool,
           in_path: Sequence[str]) -> Field:
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
    if isinstance(value_default, (Param, DependsParam)):
        value_default = Required
    if marker.source == "path" and name not in in_path and (marker.alias or name) not in in_path:
        raise TypeError(f"path parameter '{name}' is not in the route pattern")
    if marker.source == "header":
        assert isinstance(marker, HeaderParam)
        wire = marker.alias or (name.replace("_", "-") if marker.convert_underscores else name)
    else:
        wire = marker.alias or name
    return Field(name, wire, marker.source, clean, marker, value_default, marker.default_factory)


def default_plan(field: Field, plan: PlanDesc) -> PlanDesc:
    if field.required:
        return plan
    if field.default_factory is not None:
        return DefaultPlan(plan, DefaultKind.FACTORY, field.default_factory)
    if isinstance(field.default, _plans._IMMUTABLE):
        return DefaultPlan(plan, DefaultKind.VALUE, field.default)
    return DefaultPlan(plan, DefaultKind.COPY, field.default)


__all__ = ["CookieParam", "Field", "ParamRead", "path_param_names", "read_parameters"]
