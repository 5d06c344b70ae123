"""A handler's inputs as FastAPI sees them for OpenAPI: parameters by location, body fields, sub-dependencies."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .. import _signature, forms
from ..dependencies import param_models
from ..params import BodyParam, HeaderParam, Param, PathParam, QueryParam, Required
from ..requests import Request
from ..responses import Response
from .fields import ModelField, model_field

_LOCATIONS = ("path", "query", "header", "cookie")
_MODEL_LOCATIONS = ("query", "header", "cookie")
# Types injected by the framework rather than read from the request (matched by name so that this module
# needs no import of optional features).
_INJECTED_NAMES = {"BackgroundTasks", "SecurityScopes", "WebSocket", "HTTPConnection", "UploadFile"}
_CONVERTOR = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*):[A-Za-z_]+\}")


def path_format(path: str) -> str:
    """The path with converters dropped: "/items/{id:int}" -> "/items/{id}"."""
    return _CONVERTOR.sub(r"{\1}", path)


@dataclasses.dataclass
class Dependant:
    """FastAPI's Dependant, for the OpenAPI document only."""

    call: Callable[..., Any] | None
    params: dict[str, list[ModelField]] = dataclasses.field(default_factory=lambda: {k: [] for k in _LOCATIONS})
    body: list[ModelField] = dataclasses.field(default_factory=list)
    dependencies: list[Dependant] = dataclasses.field(default_factory=list)
    scopes: list[str] = dataclasses.field(default_factory=list)

    @property
    def security_scheme(self) -> Any:
        """The security scheme object when the dependency is one (it has `model` and `scheme_name`)."""
        call = self.call
        return call if hasattr(call, "model") and hasattr(call, "scheme_name") else None

    def cache_key(self) -> tuple[Any, ...]:
        return (self.call, tuple(sorted(set(self.scopes))) if self.security_scheme is not None else ())


def _is_depends(value: Any) -> bool:
    return hasattr(value, "dependency") and not isinstance(value, Param)


def _split(annotation: Any, default: Any) -> tuple[Any, Any]:
    """(annotation without the FastAPI markers, the marker: a Param, a Depends or None)."""
    marker = None
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        markers = [m for m in meta if isinstance(m, Param) or _is_depends(m)]
        if markers:
            marker = markers[-1]
            rest = [m for m in meta if m is not marker]
            annotation = Annotated[(base, *rest)] if rest else base
    if isinstance(default, Param) or _is_depends(default):
        marker = default
    return annotation, marker


def _is_injected(annotation: Any) -> bool:
    tp = typing.get_args(annotation)[0] if typing.get_origin(annotation) is Annotated else annotation
    if not isinstance(tp, type):
        return False
    return issubclass(tp, (Request, Response)) or any(c.__name__ in _INJECTED_NAMES for c in tp.__mro__)


def _field_for(name: str, annotation: Any, default: Any, marker: Param) -> ModelField:
    if isinstance(marker, HeaderParam) and marker.alias is None and marker.convert_underscores:
        alias = name.replace("_", "-")
    else:
        alias = marker.alias or name
    extra = dict(marker.extra)
    kwargs: dict[str, Any] = {
        "alias": alias, "validation_alias": marker.alias or None, "serialization_alias": marker.alias or None,
        "title": marker.title, "description": marker.description, "examples": marker.examples,
        "deprecated": marker.deprecated, "json_schema_extra": extra.get("json_schema_extra"),
        **marker.constraints(),
    }
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    kwargs["alias"] = alias
    if marker.default_factory is not None:
        kwargs["default_factory"] = marker.default_factory
    else:
        kwargs["default"] = PydanticUndefined if default is Required else default
    field = model_field(name, annotation, **kwargs)
    field.marker = marker  # type: ignore[attr-defined]
    return field


def _model_params(annotation: Any, default: Any, marker: Param) -> list[ModelField]:
    """A query, header or cookie parameter model: one parameter per field of the model (FastAPI's rule), named as
    the request sends it; none is required when the model is optional (`Model | None = None`)."""
    model = param_models.model_of(annotation)
    assert model is not None
    optional = annotation is not model and not (default is Required and marker.default_factory is None)
    convert = isinstance(marker, HeaderParam) and marker.convert_underscores
    out = []
    for name, info in model.model_fields.items():
        plain = not (isinstance(info.annotation, type) and issubclass(info.annotation, (BaseModel, dict))) and \
            not dataclasses.is_dataclass(info.annotation)
        field = ModelField(field_info=info, name=name, config=model.model_config if plain else None)
        key = param_models.request_keys(name, info, model.model_config, convert)[0]
        field.param_alias, field.param_name = key.validation, key.request  # type: ignore[attr-defined]
        field.optional_model = optional  # type: ignore[attr-defined]
        out.append(field)
    return out


def _hints(call: Callable[..., Any]) -> dict[str, Any]:
    """Resolved parameter annotations of a function, a class (its __init__) or a callable object (its __call__)."""
    if isinstance(call, type):
        target: Any = call.__init__
    elif inspect.isfunction(call) or inspect.ismethod(call):
        target = call
    else:
        target = getattr(call, "__call__", call)  # noqa: B004 - callable instances
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable names: the raw annotations are used
        return {}


def get_dependant(call: Callable[..., Any], path: str, scopes: list[str] | None = None) -> Dependant:
    """Reads `call`'s parameters the way FastAPI's analyze_param does."""
    dependant = Dependant(call=call, scopes=list(scopes or []))
    in_path = set(_signature.path_param_names(path))
    # A handler with Form()/File() parameters is served through a wrapper (_endpoint.wrap): read the original.
    target = getattr(call, "__slipstream_endpoint__", call)
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return dependant
    hints = _hints(target)
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        annotation = hints.get(name, Any if parameter.annotation is parameter.empty else parameter.annotation)
        value = parameter.default if parameter.default is not parameter.empty else Required
        annotation, marker = _split(annotation, value)
        if marker is not None and _is_depends(marker):
            dependant.dependencies.append(sub_dependant(marker, annotation, path, dependant.scopes))
            continue
        if marker is None and forms.claims(annotation, None):
            marker = forms.FileParam(value)  # UploadFile: File() implied
        if marker is None and _is_injected(annotation):
            continue
        if marker is None:
            if name in in_path:
                marker = PathParam()
            elif _signature._is_complex(annotation):
                marker = BodyParam(value)
            else:
                marker = QueryParam(value)
            default = value
        else:
            default = marker.default if value is marker else value
        if isinstance(marker, PathParam) or name in in_path:
            default = Required
        if marker.source in _MODEL_LOCATIONS and param_models.model_of(annotation) is not None:
            if marker.include_in_schema:
                dependant.params[marker.source].extend(_model_params(annotation, default, marker))
            continue
        field = _field_for(name, annotation, default, marker)
        if marker.source in ("body", "form"):
            dependant.body.append(field)
        elif marker.source in _LOCATIONS:
            dependant.params[marker.source].append(field)
    return dependant


def sub_dependant(depends: Any, annotation: Any, path: str, parent_scopes: list[str]) -> Dependant:
    """The Dependant of a Depends()/Security() marker (its callable, or the annotated class)."""
    call = depends.dependency if depends.dependency is not None else annotation
    scopes = list(parent_scopes)
    for scope in getattr(depends, "scopes", None) or []:
        if scope not in scopes:
            scopes.append(scope)
    return get_dependant(call, path, scopes)


def flat_params(dependant: Dependant) -> dict[str, list[ModelField]]:
    """Parameters of the whole dependency tree by location, depth-first, each dependency once."""
    out: dict[str, list[ModelField]] = {k: [] for k in _LOCATIONS}
    visited: list[tuple[Any, ...]] = []
    stack = [dependant]
    while stack:
        current = stack.pop()
        key = current.cache_key()
        if key in visited:
            continue
        visited.append(key)
        for location in _LOCATIONS:
            out[location].extend(current.params[location])
        stack.extend(reversed(current.dependencies))
    return out


def flat_body(dependant: Dependant) -> list[ModelField]:
    """Body fields of the whole dependency tree, depth-first, each dependency once."""
    body: list[ModelField] = []
    visited: list[tuple[Any, ...]] = []
    stack = [dependant]
    while stack:
        current = stack.pop()
        key = current.cache_key()
        if key in visited:
            continue
        visited.append(key)
        body.extend(current.body)
        stack.extend(reversed(current.dependencies))
    return body


def security_requirements(dependant: Dependant) -> list[tuple[Any, list[str]]]:
    """(security scheme, OAuth scopes) for each security dependency below the root, in order."""
    found: list[tuple[Any, list[str]]] = []
    visited: list[tuple[Any, ...]] = []
    stack: list[tuple[Dependant, bool]] = [(dependant, True)]
    while stack:
        current, is_root = stack.pop()
        key = current.cache_key()
        if key in visited:
            continue
        visited.append(key)
        if not is_root and current.security_scheme is not None:
            own = getattr(current.security_scheme, "required_scopes", None) or []  # RequireScopes("write")
            found.append((current.security_scheme, [*own, *(s for s in current.scopes if s not in own)]))
        stack.extend((d, False) for d in reversed(current.dependencies))
    return found
