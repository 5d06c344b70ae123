"""Form() and File() parameters: the body parsed in C++ (_native.parse_form), fields validated like FastAPI's."""

from __future__ import annotations

import collections
import copy
import dataclasses
import inspect
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic import Field as PydanticField

from ._core.form_body import DEFAULT_LIMITS, check_limits, parse_body  # noqa: F401 - re-exported
from ._markers import split_markers
from .datastructures import FormData, UploadFile
from .exceptions import RequestValidationError
from .params import BodyParam, Param, Required


class FormParam(BodyParam):
    """A field of an application/x-www-form-urlencoded or multipart/form-data body."""

    source = "form"

    def __init__(self, default: Any = Required, *, media_type: str = "application/x-www-form-urlencoded",
                 **kwargs: Any) -> None:
        super().__init__(default, embed=True, media_type=media_type, **kwargs)


class FileParam(FormParam):
    """A file of a multipart/form-data body (UploadFile, bytes, or a list of them)."""

    def __init__(self, default: Any = Required, *, media_type: str = "multipart/form-data", **kwargs: Any) -> None:
        super().__init__(default, media_type=media_type, **kwargs)


def Form(default: Any = Required, **kwargs: Any) -> Any:
    """A form field: `name: Annotated[str, Form(min_length=1)]`; `Annotated[Model, Form()]` reads a model."""
    return FormParam(default, **kwargs)


def File(default: Any = Required, **kwargs: Any) -> Any:
    """An uploaded file: `file: Annotated[bytes, File()]`, or annotate with UploadFile (File() implied)."""
    return FileParam(default, **kwargs)


# ---- reading a parameter's type ----

def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _union_members(tp: Any) -> list[Any]:
    tp = _strip(tp)
    if typing.get_origin(tp) in (Union, __import__("types").UnionType):
        return [_strip(m) for m in typing.get_args(tp) if m is not type(None)]
    return [tp]


_SEQUENCES = (list, set, tuple, frozenset, collections.deque, Sequence)


def is_sequence_type(tp: Any) -> bool:
    """FastAPI's rule for reading every value of a repeated key: a sequence type, bare (`list`) or
    parametrized (`list[str]`), or a union holding one; str and bytes are not sequences here."""
    for m in _union_members(tp):
        for candidate in (m, typing.get_origin(m)):
            if isinstance(candidate, type) and issubclass(candidate, _SEQUENCES) and \
                    not issubclass(candidate, (str, bytes)):
                return True
    return False



def _item_type(tp: Any) -> Any:
    for m in _union_members(tp):
        args = typing.get_args(m)
        if args:
            return _strip(args[0])
    return Any


def _mentions_upload(tp: Any) -> bool:
    for m in _union_members(tp):
        if isinstance(m, type) and issubclass(m, UploadFile):
            return True
        if any(_mentions_upload(a) for a in typing.get_args(m) if a is not Ellipsis):
            return True
    return False


def _is_bytes(tp: Any) -> bool:
    return any(m is bytes for m in _union_members(tp))


def _form_models(tp: Any) -> list[type[BaseModel]]:
    return [m for m in _union_members(tp) if isinstance(m, type) and issubclass(m, BaseModel)]


def model_of_form(annotation: Any) -> type[BaseModel] | None:
    """The model of a form parameter annotated with one model (or `Model | None`); None otherwise."""
    models = _form_models(annotation)
    return models[0] if len(models) == 1 else None


def claims(annotation: Any, marker: Any) -> bool:
    """Whether a parameter is read from a form: a Form()/File() marker, or an UploadFile annotation."""
    if isinstance(marker, FormParam):
        return True
    return marker is None and _mentions_upload(annotation)


# ---- one field ----

@dataclasses.dataclass
class FormField:
    name: str            # the handler's parameter name
    alias: str           # the form key
    annotation: Any      # without the marker
    marker: FormParam
    default: Any
    default_factory: Any
    adapter: TypeAdapter[Any]
    sequence: bool
    read_bytes: bool     # bytes / list[bytes]: the files' contents are read
    models: list[type[BaseModel]]

    @property
    def required(self) -> bool:
        return self.default is Required and self.default_factory is None

    def default_value(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        return copy.deepcopy(self.default)


def make_field(name: str, annotation: Any, marker: Param | None, default: Any) -> FormField:
    if marker is None:
        marker = FileParam()
    assert isinstance(marker, FormParam)
    constraints = marker.constraints()
    target = Annotated[annotation, PydanticField(**constraints)] if constraints else annotation
    models = _form_models(annotation) if type(marker) is FormParam else []
    return FormField(name=name, alias=marker.alias or name, annotation=annotation, marker=marker, default=default,
                     default_factory=marker.default_factory, adapter=TypeAdapter(target),
                     sequence=is_sequence_type(annotation),
                     read_bytes=_is_bytes(annotation) or _is_bytes(_item_type(annotation)), models=models)


def _empty_file(value: Any) -> bool:
    # Browsers send an empty filename and content when no file is selected.
    return isinstance(value, UploadFile) and value.filename == "" and value.size == 0


def _raw_value(form: FormData, alias: str, sequence: bool) -> Any:
    """FastAPI's _get_multidict_value: None for absent, empty strings and empty files (the default applies)."""
    if sequence:
        value: Any = [v for v in form.getlist(alias) if not _empty_file(v)]
        return value or None
    value = form.get(alias)
    if value is None or value == "" or _empty_file(value):
        return None
    return value


def _read_bytes(value: Any) -> Any:
    if isinstance(value, UploadFile):
        position = value.file.tell()
        try:
            return value.file.read()
        finally:
            value.file.seek(position)
    if isinstance(value, list):
        return [_read_bytes(v) for v in value]
    return value


def _validate(field: FormField, value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]]) -> Any:
    try:
        return field.adapter.validate_python(value, from_attributes=True)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            errors.append({**error, "loc": (*loc, *error.get("loc", ()))})
        return None


def _model_input(field: FormField, form: FormData) -> Any:
    """FastAPI's _extract_form_model: the model's fields by alias, then every other key (for extra=...)."""
    model = field.models[0]
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for name, info in model.model_fields.items():
        alias = info.alias or name
        seen.add(alias)
        value = _raw_value(form, alias, is_sequence_type(info.annotation))
        if value is not None:
            out[alias] = _read_bytes(value) if _is_bytes(info.annotation) else value
    grouped: dict[str, list[Any]] = {}
    for key, value in form.multi_items():
        if key not in seen:
            grouped.setdefault(key, []).append(value)
    for key, values in grouped.items():
        out[key] = values[0] if len(values) == 1 else values
    return out


def solve_fields(fields: Sequence[FormField], form: FormData) -> dict[str, Any]:
    """The handler's form arguments, or RequestValidationError with FastAPI's errors (loc ["body", alias])."""
    values: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    for field in fields:
        if field.models:
            supplied = any(key in form for m in field.models for key in
                           {(i.alias or n) for n, i in m.model_fields.items()}) or \
                (form and field.models[0].model_config.get("extra") in ("allow", "forbid"))
            if not supplied and not field.required:
                values[field.name] = field.default_value()
                continue
            values[field.name] = _validate(field, _model_input(field, form), ("body",), errors)
            continue
        raw = _raw_value(form, field.alias, field.sequence)
        loc = ("body", field.alias)
        if raw is None:
            if field.required:
                errors.append({"type": "missing", "loc": loc, "msg": "Field required", "input": None})
            else:
                values[field.name] = field.default_value()
            continue
        if field.read_bytes:
            raw = _read_bytes(raw)
        values[field.name] = _validate(field, raw, loc, errors)
    if errors:
        raise RequestValidationError(errors)
    return values


def signature_fields(parameters: Sequence[inspect.Parameter], hints: Mapping[str, Any]) -> list[FormField]:
    """The form fields among a handler's parameters (others are left to the route's usual analysis)."""
    fields = []
    for p in parameters:
        annotation = hints.get(p.name, Any)
        default = p.default if p.default is not p.empty else Required
        clean, _base, marker, from_annotated = split_markers(annotation, default)
        if not claims(clean, marker):
            continue
        if isinstance(marker, Param) and from_annotated and marker.default is not Required:
            raise TypeError(f"parameter '{p.name}': give its default with '=', not inside Annotated[...]")
        value_default = default if (from_annotated or marker is None) else marker.default
        if isinstance(value_default, Param):
            value_default = Required
        fields.append(make_field(p.name, clean, marker if isinstance(marker, Param) else None, value_default))
    return fields


__all__ = ["File", "FileParam", "Form", "FormField", "FormParam", "check_limits", "claims", "parse_body",
           "signature_fields", "solve_fields"]
