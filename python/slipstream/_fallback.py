"""Which parameter types the C++ validator models exactly, and pydantic validation for those it does not.

Decided once per route at registration: `reason()` walks pydantic's core schema of a parameter (its type with its
Field constraints) against an allow-list of the constructs the JSON Schema compiler reproduces with pydantic's
verdicts and errors. Anything else (validators, strict mode, a config the C++ side ignores, timedelta, constrained
Decimal, sets with a length bound, ...) makes that parameter "fall back": C++ only gathers its raw value (any JSON
for a body, the text for a parameter) and pydantic validates it in Python with a TypeAdapter built here, as FastAPI
does (`validate_python(value, from_attributes=True)` over the parsed JSON), with FastAPI's 422 body. Routes without
a fallback parameter pay nothing for this.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from ._core.plan_desc import CallPlan

# Keys each core-schema type may carry (besides those in _COMMON) and still be modelled by the C++ validator.
_COMMON = frozenset({"type", "ref", "metadata", "serialization"})
_NUMBER = frozenset({"gt", "ge", "lt", "le", "multiple_of"})
_ALLOWED: dict[str, frozenset[str]] = {
    "any": frozenset(),
    "none": frozenset(),
    "bool": frozenset(),
    "int": _NUMBER,
    "float": _NUMBER | {"allow_inf_nan"},  # False: x-slipstream-finite (see _schema.py)
    "str": frozenset({"min_length", "max_length", "pattern"}),
    "bytes": frozenset(),
    "literal": frozenset({"expected"}),
    "enum": frozenset({"cls", "members", "sub_type"}),
    "list": frozenset({"items_schema", "min_length", "max_length"}),
    "tuple": frozenset({"items_schema", "variadic_item_index", "min_length", "max_length"}),
    "set": frozenset({"items_schema"}),  # de-duplicated by pydantic: a length bound counts unique items
    "frozenset": frozenset({"items_schema"}),
    "dict": frozenset({"keys_schema", "values_schema", "min_length", "max_length"}),
    "nullable": frozenset({"schema"}),
    "default": frozenset({"schema", "default", "default_factory", "default_factory_takes_data"}),
    "model": frozenset({"cls", "schema", "config", "custom_init", "root_model", "generic_origin"}),
    "model-fields": frozenset({"fields", "model_name", "computed_fields", "extra_behavior"}),
    "model-field": frozenset({"schema", "validation_alias", "serialization_alias", "serialization_exclude",
                              "frozen"}),
    "dataclass": frozenset({"cls", "schema", "fields", "config", "slots", "generic_origin", "frozen", "post_init"}),
    "dataclass-args": frozenset({"fields", "dataclass_name", "computed_fields", "collect_init_only"}),
    "dataclass-field": frozenset({"name", "schema", "kw_only", "init", "validation_alias", "serialization_alias",
                                  "serialization_exclude", "frozen"}),
    "typed-dict": frozenset({"fields", "cls", "config", "computed_fields", "total", "extra_behavior"}),
    "typed-dict-field": frozenset({"schema", "required", "validation_alias", "serialization_alias",
                                   "serialization_exclude"}),
    "uuid": frozenset(),
    "datetime": frozenset({"microseconds_precision"}),
    "date": frozenset(),
    "time": frozenset({"microseconds_precision"}),
    "decimal": frozenset(),  # unconstrained only: bounds, digits and allow_inf_nan are pydantic's
    "definitions": frozenset({"schema", "definitions"}),
    "definition-ref": frozenset({"schema_ref"}),
}
# Not modelled: "union" (pydantic's smart mode tries every member strictly, then each in lax mode, and names lax
# failures per member; the C++ union validator does not follow it exactly). Optional[X] is "nullable": modelled.
# Key values that do not change validation (anything else present under these keys is a fallback).
_BENIGN_VALUES: dict[str, tuple[Any, ...]] = {
    "custom_init": (False,),
    "root_model": (False,),
    "microseconds_precision": ("truncate",),
    "default_factory_takes_data": (False,),
    "init": (True, None),
    "collect_init_only": (False,),
    "post_init": (False,),
    "extra_behavior": ("ignore",),
}
# Model/dataclass/TypedDict config keys that leave validation of JSON input unchanged.
_BENIGN_CONFIG = frozenset({
    "title", "extra_fields_behavior", "from_attributes", "frozen", "validate_assignment", "revalidate_instances",
    "arbitrary_types_allowed", "ser_json_timedelta", "ser_json_temporal", "ser_json_bytes", "ser_json_inf_nan",
    "serialize_by_alias", "use_attribute_docstrings", "cache_strings",
})


def reason(annotation: Any, constraints: dict[str, Any] | None = None, *, text: bool = False) -> str | None:
    """None when the C++ validator models `annotation` (with its Field constraints) exactly; else the name of the
    first construct it does not model (for the route table), such as "timedelta" or "function-after". `text`: a
    path, query, header or cookie parameter (its value is a string, not JSON)."""
    try:
        schema = TypeAdapter(_target(annotation, constraints)).core_schema
    except Exception as exc:  # noqa: BLE001 - a type pydantic cannot build is reported when the route is analyzed
        return f"unbuildable ({type(exc).__name__})"
    return _first_unmodelled(schema, set(), text)


def _target(annotation: Any, constraints: dict[str, Any] | None) -> Any:
    return Annotated[annotation, Field(**constraints)] if constraints else annotation


def _first_unmodelled(node: Any, seen: set[str], text: bool) -> str | None:
    if not isinstance(node, dict):
        return None
    kind = node.get("type")
    ref = node.get("ref")
    if isinstance(ref, str):
        if ref in seen:
            return None
        seen.add(ref)
    allowed = _ALLOWED.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        return str(kind)
    for key, value in node.items():
        if key in _COMMON:
            continue
        if key not in allowed:
            return _describe(kind, key, value)
        if key in _BENIGN_VALUES and value not in _BENIGN_VALUES[key]:
            return _describe(kind, key, value)
    if kind in ("model", "dataclass", "typed-dict"):
        for key, value in (node.get("config") or {}).items():
            if key not in _BENIGN_CONFIG:
                return f"config {key}={value!r}"
    if text and kind == "literal" and any(not isinstance(v, str) for v in node.get("expected", ())):
        return "Literal of non-str values"  # pydantic does not read "1" as Literal[1]; the coercion would
    if kind == "tuple" and not (node.get("variadic_item_index") == 0 and len(node.get("items_schema", ())) == 1):
        return "tuple of fixed length"  # pydantic reports each absent position as "missing"
    if kind == "dict" and (node.get("keys_schema") or {}).get("type", "str") != "str":
        return "dict with non-str keys"
    if kind in ("model-field", "dataclass-field", "typed-dict-field"):
        alias = node.get("validation_alias")
        if alias is not None and not isinstance(alias, str):
            return "AliasPath/AliasChoices"
    for key, value in node.items():
        if key in ("metadata", "serialization", "default", "cls", "members", "expected", "config"):
            continue
        found = _first_in(value, seen, text)
        if found is not None:
            return found
    return None


def _first_in(value: Any, seen: set[str], text: bool) -> str | None:
    if isinstance(value, dict):
        if "type" in value:
            return _first_unmodelled(value, seen, text)
        for item in value.values():  # fields, definitions by name
            found = _first_in(item, seen, text)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for item in value:
            found = _first_in(item, seen, text)
            if found is not None:
                return found
    return None


def _describe(kind: Any, key: str, value: Any) -> str:
    if key == "strict":
        return "strict"
    if kind == "decimal":
        return f"Decimal {key}"
    if kind in ("set", "frozenset"):
        return f"{kind} {key}"
    return f"{kind} {key}={value!r}" if isinstance(value, (bool, int, float, str)) else f"{kind} {key}"


# --- What C++ is given for a fallback parameter, and how Python validates it. ---

def schema_text(list_shaped: bool) -> str:
    """The schema C++ checks a fallback parameter against: any JSON value (a body), or text / every occurrence as
    text (a path, query, header or cookie parameter that is a list)."""
    return '{"type":"array"}' if list_shaped else "{}"


def list_shaped(annotation: Any, constraints: dict[str, Any] | None) -> bool:
    """True when a path/query/header/cookie parameter of this type takes every occurrence (a sequence type)."""
    try:
        node: Any = TypeAdapter(_target(annotation, constraints)).core_schema
    except Exception:  # noqa: BLE001 - see reason()
        return False
    while isinstance(node, dict) and node.get("type") in ("default", "nullable", "function-after",
                                                          "function-before", "function-wrap"):
        node = node.get("schema")
    return isinstance(node, dict) and node.get("type") in ("list", "tuple", "set", "frozenset")


class _Validate:
    """The conversion plan's callable: pydantic validates the raw value as FastAPI does."""

    __slots__ = ("adapter",)

    def __init__(self, adapter: TypeAdapter[Any]) -> None:
        self.adapter = adapter

    def __call__(self, value: Any) -> Any:
        return self.adapter.validate_python(value, from_attributes=True)


def plan(annotation: Any, constraints: dict[str, Any] | None) -> CallPlan:
    """The conversion plan (see _plans.py) of a fallback parameter: the raw JSON value through pydantic."""
    return CallPlan(_Validate(TypeAdapter(_target(annotation, constraints))))


class RouteFallback:
    """A route's fallback parameters: what the route table shows, and how their errors join the C++ validator's.

    `rows`: per RouteSpec row in FastAPI's error order, (loc prefix, validator or None for a row C++ validates,
    how to read its raw value from a Request). Only consulted for a request that already failed."""

    def __init__(self, rows: Sequence[tuple[tuple[str, ...], Any, Any]], reasons: Sequence[tuple[str, str]]) -> None:
        self.rows = tuple(rows)
        self.reasons = tuple(reasons)

    def describe(self) -> str:
        return "; ".join(f"{name}: {why}" for name, why in self.reasons)

    def merge(self, errors: Iterable[dict[str, Any]], request: Any) -> list[dict[str, Any]]:
        """The C++ validator's `errors` for `request` with the fallback parameters' own errors, in FastAPI's order
        (rows in order; within a row, as each validator reports them)."""
        errors = list(errors)
        if any(error.get("type") == "json_invalid" for error in errors):
            return errors  # a malformed body is the only error reported
        by_row: list[list[dict[str, Any]]] = [[] for _ in self.rows]
        stray: list[dict[str, Any]] = []
        for error in errors:
            index = self._row_of(tuple(error.get("loc", ())))
            (by_row[index] if index is not None else stray).append(error)
        body: Any = _UNREAD
        for index, (loc, validate, read) in enumerate(self.rows):
            if validate is None or by_row[index]:
                continue
            if loc[0] == "body" and body is _UNREAD:
                body = _json_body(request)
            value = read(request, body)
            if value is _ABSENT:
                continue
            try:
                validate(value)
            except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError; anything else is not ours
                for error in _errors_of(exc):
                    by_row[index].append({**error, "loc": (*loc, *error.get("loc", ()))})
        return [error for row in by_row for error in row] + stray

    def _row_of(self, loc: tuple[Any, ...]) -> int | None:
        best = None
        for index, (prefix, _validate, _read) in enumerate(self.rows):
            if loc[: len(prefix)] == prefix and (best is None or len(prefix) > len(self.rows[best][0])):
                best = index
        return best


_UNREAD = object()
_ABSENT = object()


def _errors_of(exc: Exception) -> list[dict[str, Any]]:
    errors = getattr(exc, "errors", None)
    if callable(errors) and type(exc).__name__ == "ValidationError":
        return [dict(error) for error in exc.errors(include_url=False)]  # type: ignore[attr-defined]
    raise exc


def _json_body(request: Any) -> Any:
    raw = getattr(request, "body_bytes", b"")
    try:
        return json.loads(raw) if raw else _ABSENT
    except ValueError:
        return _ABSENT


def body_reader(key: str | None) -> Any:
    """Reads a body row's raw value: the whole body, or its member `key` (an embedded body)."""
    def read(_request: Any, body: Any) -> Any:
        if body is _ABSENT or key is None:
            return body
        return body.get(key, _ABSENT) if isinstance(body, dict) else _ABSENT
    return read


def param_reader(source: str, wire: str, list_shaped: bool) -> Any:
    """Reads a path/query/header/cookie row's raw text as C++ gathers it (every occurrence for a list)."""
    def read(request: Any, _body: Any) -> Any:
        if source == "path":
            return request.path_params.get(wire, _ABSENT)
        if source == "cookie":
            return request.cookies.get(wire, _ABSENT)
        values = (request.query_params if source == "query" else request.headers).getlist(wire)
        if list_shaped:
            return values if values else _ABSENT
        if not values:
            return _ABSENT
        return values[-1] if source == "query" else values[0]
    return read
