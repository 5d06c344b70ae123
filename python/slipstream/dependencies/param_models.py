"""Query, header and cookie parameter models (`filters: Annotated[FilterParams, Query()]`), read as FastAPI reads them:
each field of the model is a parameter of its own (aliases, sequences, headers' underscores converted), the keys no
field claims are passed too (so `extra="forbid"` refuses them), and pydantic validates the model as a whole, its
errors prefixed with the location ("query", "limit"). Such a parameter leaves the C++-validated rows: the route runs
through the dependency runner, which reads a step's models when it comes to that step (dependencies/program.py).
"""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Union

from pydantic import AliasChoices, BaseModel, TypeAdapter, ValidationError
from pydantic import Field as PydanticField

from .. import forms
from .._core.route_desc import ParamDesc
from ..datastructures import UploadFile
from ..params import HeaderParam, Required

SOURCES = ("query", "header", "cookie")  # FastAPI reports a dependant's errors in this order
_UNSET: Any = object()


def model_of(annotation: Any) -> type[BaseModel] | None:
    """The model of a parameter annotated with a pydantic model or `Model | None` (FastAPI's rule); else None."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = typing.get_args(annotation)
        if len(members) == 2 and type(None) in members:
            annotation = next(m for m in members if m is not type(None))
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


class _Key:
    """One field of the model: the key pydantic validates it under and the key read from the request."""

    __slots__ = ("field", "request", "sequence", "validation")

    def __init__(self, field: str, validation: str, request: str, sequence: bool) -> None:
        self.field = field
        self.validation = validation
        self.request = request
        self.sequence = sequence


def request_keys(name: str, info: Any, config: Any, convert: bool) -> list[_Key]:
    """The (validation key, request key) choices of one model field, preferred first."""
    sequence = forms.is_sequence_type(info.annotation)
    alias = info.validation_alias if isinstance(info.validation_alias, str) else (info.alias or name)
    keys = [_Key(name, alias, alias.replace("_", "-") if convert and alias == name else alias, sequence)]
    choices = info.validation_alias.choices if isinstance(info.validation_alias, AliasChoices) else ()
    if choices and all(isinstance(c, str) for c in choices):
        keys = [_Key(name, c, c, sequence) for c in choices]  # literal names, underscores included
    by_name = config.get("validate_by_name", config.get("populate_by_name", False))
    if config.get("validate_by_alias") is False:
        return [_Key(name, name, name.replace("_", "-") if convert else name, sequence)]
    if by_name and name not in [k.validation for k in keys]:
        keys.append(_Key(name, name, name.replace("_", "-") if convert else name, sequence))
    return keys


class ParamModel:
    """How one model parameter is read from a request and validated."""

    def __init__(self, name: str, source: str, annotation: Any, marker: Any, default: Any,
                 default_factory: Any) -> None:
        model = model_of(annotation)
        assert model is not None
        self.field: Any = None       # the _signature.Field it reads
        self.position = 0            # rows of the C++ validator of its location declared before it
        self.name = name
        self.source = source
        self.model = model
        self.optional = _optional(annotation)  # `Model | None`: absent when none of its keys was sent
        self.default = default
        self.default_factory = default_factory
        constraints = marker.constraints()
        target = Annotated[annotation, PydanticField(**constraints)] if constraints else annotation
        self.adapter: TypeAdapter[Any] = TypeAdapter(target)
        convert = source == "header" and (not isinstance(marker, HeaderParam) or marker.convert_underscores)
        config = model.model_config
        self.fields = [request_keys(n, info, config, convert) for n, info in model.model_fields.items()]
        self.allows_extra = config.get("extra") in ("allow", "forbid")

    @property
    def required(self) -> bool:
        return self.default is Required and self.default_factory is None

    def read(self, request: Any, errors: list[Any]) -> Any:
        """The validated model (or the default); appends FastAPI's errors to `errors` when invalid."""
        received = _received(self.source, request)
        value, renamed, own = self._input(received)
        if self.optional and not own and not (self.allows_extra and value):
            value = _UNSET  # nothing for this model: its default applies
        loc = (self.source,)
        if value is _UNSET:
            if self.required:
                errors.append({"type": "missing", "loc": loc, "msg": "Field required", "input": None})
                return None
            return self.default_factory() if self.default_factory is not None else copy.deepcopy(self.default)
        try:
            return self.adapter.validate_python(value, from_attributes=True)
        except ValidationError as exc:
            for error in exc.errors(include_url=False):
                where = tuple(error.get("loc", ()))
                if where and where[0] in renamed and self.model.model_config.get("loc_by_alias", True):
                    where = (renamed[where[0]], *where[1:])  # the header's name, not the field's
                errors.append({**error, "loc": (*loc, *where)})
            return None

    def _input(self, received: _Received) -> tuple[dict[str, Any], dict[str, str], bool]:
        """(the dict pydantic validates, validation key -> header name for error locations, whether any of the
        model's own keys was sent)."""
        out: dict[str, Any] = {}
        renamed: dict[str, str] = {}
        processed: set[str] = set()
        own = False
        for keys in self.fields:
            own = own or any(received.has(k.request) for k in keys)
            key = next((k for k in keys if received.has(k.request)), keys[0])
            value = received.get(key.request, key.sequence)
            if value is not None:
                out[key.validation] = value
            processed.add(received.norm(key.request))
            if self.source == "header":
                processed.update(k.validation.lower() for k in keys if k.validation != k.request)
                if key.validation != key.request:
                    renamed[key.validation] = key.request
        for extra, value in received.extras(processed):
            out[extra] = value
        return out, renamed, own


def _optional(annotation: Any) -> bool:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return typing.get_origin(annotation) in (Union, types.UnionType)


class _Received:
    """The request's values of one location, read the way Starlette's QueryParams, Headers and cookies are."""

    def __init__(self, source: str, items: list[tuple[str, str]], mapping: Any) -> None:
        self.source = source
        self.items = items
        self.mapping = mapping

    def norm(self, key: str) -> str:
        return key.lower() if self.source == "header" else key

    def has(self, key: str) -> bool:
        return key in self.mapping

    def get(self, key: str, sequence: bool) -> Any:
        if sequence and self.source != "cookie":
            found = self.mapping.getlist(key)
            return found or None
        return self.mapping.get(key)

    def extras(self, processed: set[str]) -> Iterable[tuple[str, Any]]:
        grouped: dict[str, list[str]] = {}
        for key, value in self.items:
            if key not in processed:
                grouped.setdefault(key, []).append(value)
        for key, values in grouped.items():
            yield key, values[0] if len(values) == 1 else values


def _received(source: str, request: Any) -> _Received:
    if source == "query":
        query = request.query_params
        return _Received(source, query.multi_items(), query)
    if source == "header":
        headers = request.headers
        return _Received(source, headers.raw_items(), headers)
    cookies = request.cookies
    return _Received(source, list(cookies.items()), cookies)


def merge_errors(errors: list[Any], readers: Iterable[tuple[Any, ParamModel]], request: Any,
                 rows: Sequence[ParamDesc]) -> list[Any]:
    """The C++ validator's errors for a request (path, query, header, cookie, body; `rows` are the RouteSpec's
    parameter rows) with the parameter models' errors placed as FastAPI lists them: by location, and within one
    in declaration order."""
    order = ("path", *SOURCES, "body")
    position: dict[tuple[str, Any], int] = {}
    counts = [0] * len(order)
    for row in rows:
        position.setdefault((order[row.source], row.alias), counts[row.source])
        counts[row.source] += 1
    keyed: list[tuple[int, float, Any]] = []
    for error in errors:
        loc = tuple(error.get("loc", ())) or ("",)
        where = order.index(loc[0]) if loc[0] in order else len(order)
        keyed.append((where, position.get((loc[0], loc[1] if len(loc) > 1 else None), 0), error))
    for _key, reader in readers:
        found: list[Any] = []
        reader.read(request, found)
        keyed += [(order.index(reader.source), reader.position - 0.5, error) for error in found]
    keyed.sort(key=lambda item: item[:2])  # stable: each group keeps its own order
    return [error for _where, _position, error in keyed]


def reader(field: Any) -> ParamModel:
    """The reader of a MODEL parameter (a _signature.Field of a query, header or cookie model)."""
    model = ParamModel(field.name, field.source, field.annotation, field.marker, field.default, field.default_factory)
    model.field = field
    return model


def check_declaration(name: str, source: str, annotation: Any) -> bool:
    """Whether a path, query, header or cookie parameter is a parameter model. Raises TypeError, naming the
    parameter and what is not supported, for what cannot be read from its location (FastAPI refuses the same
    in the path and the query; a cookie holds one value), so that no such route fails on every request."""
    if forms.claims(annotation, None):
        return False  # an UploadFile: read from the form (dependencies/form_fields.py)
    model = model_of(annotation) is not None
    what = f"{source} parameter '{name}'"
    if source == "path" and not _scalar(annotation):
        raise TypeError(f"{what}: {_name(annotation)} is not supported in a path (a path parameter is one scalar "
                        "value; pydantic parameter models are supported in Query(), Header() and Cookie())")
    if source == "query" and not (model or _scalar(annotation) or _scalar_sequence(annotation)):
        raise TypeError(f"{what}: {_name(annotation)} is not supported in the query string (a scalar, a sequence "
                        "of scalars, or a pydantic parameter model of them is)")
    if source == "cookie" and not model and forms.is_sequence_type(annotation):
        raise TypeError(f"{what}: a list is not supported for this source")
    return model and source in SOURCES


def _name(annotation: Any) -> str:
    plain = typing.get_origin(annotation) is None and isinstance(annotation, type)
    return annotation.__name__ if plain else repr(annotation).replace("typing.", "")


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _complex(tp: Any) -> bool:
    """A model, mapping, upload, sequence or dataclass, or a union holding one (FastAPI's "not scalar")."""
    tp = _strip(tp)
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return any(_complex(member) for member in typing.get_args(tp))
    for candidate in (tp, origin):
        if isinstance(candidate, type) and (issubclass(candidate, (BaseModel, Mapping, UploadFile)) or
                                            dataclasses.is_dataclass(candidate)):
            return True
    if forms.is_sequence_type(tp):
        return True
    return hasattr(origin, "__pydantic_core_schema__") or hasattr(origin, "__get_pydantic_core_schema__")


def _scalar(tp: Any) -> bool:
    return tp is Ellipsis or not _complex(tp)


def _scalar_sequence(tp: Any) -> bool:
    tp = _strip(tp)
    if typing.get_origin(tp) in (Union, types.UnionType):
        members = typing.get_args(tp)
        return any(_scalar_sequence(m) for m in members) and \
            all(_scalar_sequence(m) or _scalar(m) for m in members)
    return forms.is_sequence_type(tp) and all(_scalar(arg) for arg in typing.get_args(tp))
