"""A handler's signature -> what the C++ validator checks (RouteSpec rows) and how arguments are built.

`read_parameters()` classifies each parameter of one callable (a handler or a dependency) as FastAPI's
analyze_param does; `analyze()` flattens a route's whole dependency tree into one RouteSpec (see
dependencies/shape.py) so that every parameter is validated in C++ before any Python runs.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel

from . import _plans
from .background import BackgroundTasks
from .dependencies import param_models
from .dependencies.params import DependsParam, SecurityScopes
from .params import BodyParam, CookieParam, HeaderParam, Param, PathParam, QueryParam, Required
from .requests import Request
from .responses import Response

_PATH_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")

# What a parameter is (ParamRead.kind); MODEL: a query/header/cookie parameter model (dependencies/param_models.py).
FIELD, DEPENDS, REQUEST, RESPONSE, BACKGROUND, SCOPES, MODEL = range(7)
_SPECIAL = ((Request, REQUEST), (Response, RESPONSE), (BackgroundTasks, BACKGROUND), (SecurityScopes, SCOPES))


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


@dataclasses.dataclass
class RouteShape:
    """Everything the extension needs about a route's inputs (see python/bindings/py_route.h).

    `program` is None for a plain route (the handler is called with its arguments); otherwise the route runs
    through a runner (dependencies/runner.py) that receives the flat arguments, the Request and the reply.
    `fallback`: the parameters pydantic validates because the C++ validator does not model their type (see
    _fallback.py), or None."""

    params: tuple[tuple[Any, ...], ...]
    body: tuple[tuple[Any, ...], ...]
    args: tuple[tuple[Any, ...], ...]
    path_params: tuple[str, ...]
    program: Any = None
    fallback: Any = None


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


def _markers(annotation: Any, default: Any) -> tuple[Any, Any, Param | DependsParam | None, bool]:
    """(annotation without markers, its bare type, the Param or Depends marker, whether it came from Annotated)."""
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        params = [m for m in meta if isinstance(m, Param)]
        depends = [m for m in meta if isinstance(m, DependsParam)]
        rest = [m for m in meta if not isinstance(m, (Param, DependsParam))]
        if len(params) > 1:
            raise TypeError("only one of Query/Path/Header/Cookie/Body per parameter")
        if params or depends:
            if isinstance(default, (Param, DependsParam)):
                raise TypeError("give the marker either in Annotated or as the default, not both")
            clean = Annotated[(base, *rest)] if rest else base
            # FastAPI: the last FastAPI marker wins.
            last = max(params + depends, key=lambda m: max(i for i, x in enumerate(meta) if x is m))
            return clean, base, last, True
        if isinstance(default, (Param, DependsParam)):
            # Annotated[int, AfterValidator(f)] = Query(None): FastAPI keeps only the bare type (its analyze_param
            # sets the marker's annotation to it), so the metadata does not apply.
            return base, base, default, False
        return annotation, base, None, False
    if isinstance(default, (Param, DependsParam)):
        return annotation, annotation, default, False
    return annotation, annotation, None, False


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
        clean, base, marker, from_annotated = _markers(annotation, default)
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


def default_plan(field: Field, plan: tuple[Any, ...]) -> tuple[Any, ...]:
    if field.required:
        return plan
    if field.default_factory is not None:
        return ("default", 2, field.default_factory, plan)
    if isinstance(field.default, _plans._IMMUTABLE):
        return ("default", 1, field.default, plan)
    return ("default", 3, field.default, plan)


def analyze(handler: Any, pattern: str, *, dependencies: Sequence[DependsParam] = (),
            overrides: Mapping[Any, Any] | None = None, runner: bool = False) -> RouteShape:
    """The route's shape: every parameter of the handler and of its dependencies (route-level `dependencies`
    first, `overrides` applied) as RouteSpec rows. `runner`: go through the runner even for a plain handler
    (an app with HTTP middleware). Raises TypeError on what slipstream cannot serve."""
    from .dependencies import shape

    return shape.build(handler, pattern, dependencies=dependencies, overrides=overrides or {}, runner=runner)


__all__ = ["CookieParam", "Field", "ParamRead", "RouteShape", "analyze", "path_param_names", "read_parameters"]
