"""dependency_overrides changed after the app started: the route's program is rebuilt, and parameters that the
app's RouteSpec did not validate (new in an override) are read and validated here, with pydantic, as FastAPI
does for every parameter. Parameters of unchanged dependencies keep their C++-validated values."""

from __future__ import annotations

import typing
from typing import Annotated, Any

from pydantic import Field as PydanticField
from pydantic import TypeAdapter, ValidationError

from .. import _plans, _signature
from ..exceptions import RequestValidationError
from . import program as _program
from . import tree as _tree

_LateField = tuple[str, _signature.Field, bool, TypeAdapter[Any]]  # (keyword, field, body embedded, its validator)
_SOURCE_ORDER = {"path": 0, "query": 1, "header": 2, "cookie": 3}


def _fields(dep: _tree.Dependant) -> list[_signature.Field]:
    return [r.field for r in dep.reads if r.kind == _signature.FIELD and r.field is not None]


def recompile(info: Any, overrides: dict[Any, Any], *, reuse: bool = True) -> tuple[_program.Program,
                                                                                     list[_LateField]]:
    """A program for `overrides`; returns it with the parameters to read in Python (with `reuse` False: all of
    them, none taken from the C++-validated values of the route's original program)."""
    new_root: _tree.Dependant = info.rebuild(overrides)
    old_root: _tree.Dependant | None = info.program.root if reuse else None
    old_flat: dict[tuple[int, str], str] = info.program.flat if reuse else {}
    flat: dict[tuple[int, str], str] = {}
    late: list[tuple[str, _signature.Field, bool]] = []
    body_names: set[str] = set()

    # FastAPI's error order: each dependency's (sub-dependencies first) path, query, header and cookie
    # parameters, then the handler's, then the body fields.
    def walk(new: _tree.Dependant, old: _tree.Dependant | None) -> None:
        same = old is not None and old.call is new.call and [f.name for f in _fields(old)] == \
            [f.name for f in _fields(new)]
        olds = old.subs if same and old is not None and len(old.subs) == len(new.subs) else [None] * len(new.subs)
        for n, o in zip(new.subs, olds):
            walk(n, o)
        for f in sorted(_fields(new), key=lambda f: _SOURCE_ORDER.get(f.source, len(_SOURCE_ORDER))):
            if same:
                assert old is not None
                flat[(id(new), f.name)] = old_flat[(id(old), f.name)]
            else:
                keyword = f"late{len(late)}"
                flat[(id(new), f.name)] = keyword
                late.append((keyword, f, False))
                if f.source == "body":
                    body_names.add(f.name)

    walk(new_root, old_root)
    embed = len(body_names) > 1
    # A TypeAdapter made once per field here: making one costs far more than a validation.
    rows = sorted(((k, f, embed, _adapter(f)) for k, f, _ in late), key=lambda t: t[1].source == "body")
    program = _program.compile_tree(new_root, flat)
    return program, rows


def _adapter(field: _signature.Field) -> TypeAdapter[Any]:
    return TypeAdapter(Annotated[field.annotation, PydanticField(**field.marker.constraints())])


def fill(late: list[_LateField], flat: dict[str, Any], request: Any) -> dict[str, Any]:
    """`flat` plus the late parameters read from `request`; raises RequestValidationError (FastAPI's 422)."""
    if not late:
        return flat
    values = dict(flat)
    errors: list[Any] = []
    for keyword, field, embed, adapter in late:
        values[keyword] = _read(field, embed, adapter, request, errors)
    if errors:
        raise RequestValidationError(errors)
    return values


_MISSING: Any = object()


def _raw(field: _signature.Field, embed: bool, request: Any) -> Any:
    wire, source = field.wire, field.source
    if source == "body":
        if not request.body_bytes:
            return _MISSING
        body = request.json_sync()
        if not embed:
            return body
        return body.get(wire, _MISSING) if isinstance(body, dict) else _MISSING
    is_list = typing.get_origin(_plans._strip_annotated(field.annotation)[0]) in (list, tuple, set)
    if source == "query":
        items = request.query_params.getlist(wire)
        return items if is_list else (items[-1] if items else _MISSING)
    if source == "header":
        items = request.headers.getlist(wire)
        return items if is_list else (items[0] if items else _MISSING)
    if source == "cookie":
        return request.cookies.get(wire, _MISSING)
    return request.path_params.get(wire, _MISSING)


def _read(field: _signature.Field, embed: bool, adapter: TypeAdapter[Any], request: Any, errors: list[Any]) -> Any:
    loc: tuple[str, ...] = ("body", field.wire) if field.source == "body" and embed else \
        ("body",) if field.source == "body" else (field.source, field.wire)
    raw = _raw(field, embed, request)
    if raw is _MISSING or raw == []:
        if field.required:
            errors.append({"type": "missing", "loc": loc, "msg": "Field required", "input": None})
            return None
        return field.default_factory() if field.default_factory is not None else _plans.deep_default(field.default)
    try:
        return adapter.validate_python(raw, from_attributes=True)  # as FastAPI validates a field
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            errors.append({**error, "loc": (*loc, *error.get("loc", ()))})
        return None
