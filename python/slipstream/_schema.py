"""JSON Schema (draft 2020-12) of a parameter or body type, via pydantic, made self-contained for the C++ compiler."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import SchemaValidator, ValidationError, core_schema

# A vendor keyword (ignored by JSON Schema validators) on the enum/const of a `Literal`: pydantic answers a
# mismatch with "literal_error" and does not parse strings for it ("1" is not Literal[1]), while an Enum says
# "enum" and does ("1" is IntEnum member 1). The C++ validator reads it (src/server/validation/lax_plan.cpp).
LITERAL_KEYWORD = "x-slipstream-literal"


# A vendor keyword on the object schema of a dataclass or TypedDict: pydantic names a non-object input
# "dataclass_type" (with the class name) or "dict_type" there, where a model says "model_attributes_type"; and on
# the array schema of a set, frozenset or variadic tuple ("set_type", "frozen_set_type", "tuple_type").
KIND_KEYWORD = "x-slipstream-kind"


# A vendor keyword that replaces the "type" of a UUID, datetime, date, time or Decimal schema: the C++ validator
# (src/json/schema/formats/py_types.cpp) then reads the value as pydantic does (naive datetimes, Unix times, UUIDs
# without hyphens, Decimal texts) and reports pydantic's errors (uuid_parsing, datetime_from_date_parsing, ...).
PYTYPE_KEYWORD = "x-slipstream-pytype"
_DECIMAL_CONSTRAINTS = ("max_digits", "decimal_places", "gt", "ge", "lt", "le", "multiple_of", "allow_inf_nan")


# A vendor keyword on a float with allow_inf_nan=False: the C++ validator (src/json/schema/validators/
# finite_validator.cpp) refuses "inf"/"nan" read for it with pydantic's "finite_number".
FINITE_KEYWORD = "x-slipstream-finite"


# A vendor keyword beside a union's anyOf: pydantic's loc segment for each member ("int", "list[int]", "Item"),
# put into the loc of that member's errors by the C++ union validator, as pydantic does.
TAGS_KEYWORD = "x-slipstream-tags"


class _NoMember:
    """A value that no union member accepts: pydantic's errors for it name every member's tag."""


def _union_tags(schema: core_schema.UnionSchema) -> list[str | None] | None:
    """The tag pydantic puts in loc for each member of a union (read from its own errors, so they match exactly);
    None when it cannot tell (a member that refers to definitions, custom errors, or one that accepts anything)."""
    if schema.get("custom_error_type") is not None or schema.get("mode") == "left_to_right":
        return None
    try:
        SchemaValidator(schema).validate_python(_NoMember())
    except ValidationError as e:
        tags: list[str | None] = []
        for error in e.errors(include_url=False):
            loc = error.get("loc", ())
            if loc and isinstance(loc[0], str) and (not tags or tags[-1] != loc[0]):
                tags.append(loc[0])
        return tags if len(tags) == len(schema["choices"]) else None
    except Exception:  # noqa: BLE001 - a member pydantic cannot build alone (definition references)
        return None
    return None


def _pytype(result: JsonSchemaValue, name: str) -> JsonSchemaValue:
    out = {key: value for key, value in result.items() if key != "type"}
    out[PYTYPE_KEYWORD] = name
    return out


def _collection(result: JsonSchemaValue, kind: str) -> JsonSchemaValue:
    """A set, frozenset or variadic tuple: an array whose errors pydantic names after the type ("set_type", ...).
    pydantic de-duplicates a set's items (["a", "a"] is {"a"}): its uniqueItems is documentation only. (A set with
    a length bound, which counts unique items, is validated by pydantic: see _fallback.py.)"""
    result.pop("uniqueItems", None)
    result[KIND_KEYWORD] = kind
    return result


class _ValidationSchema(GenerateJsonSchema):
    """pydantic's generator, with Literal, dataclasses, TypedDicts and the parsed scalar types (UUID, datetime, date,
    time, Decimal) marked (see the keywords above)."""

    def uuid_schema(self, schema: core_schema.UuidSchema) -> JsonSchemaValue:
        return _pytype(super().uuid_schema(schema), "uuid")

    def datetime_schema(self, schema: core_schema.DatetimeSchema) -> JsonSchemaValue:
        return _pytype(super().datetime_schema(schema), "datetime")

    def date_schema(self, schema: core_schema.DateSchema) -> JsonSchemaValue:
        return _pytype(super().date_schema(schema), "date")

    def time_schema(self, schema: core_schema.TimeSchema) -> JsonSchemaValue:
        return _pytype(super().time_schema(schema), "time")

    def union_schema(self, schema: core_schema.UnionSchema) -> JsonSchemaValue:
        result = super().union_schema(schema)
        tags = _union_tags(schema)
        branches = result.get("anyOf")
        if tags is not None and isinstance(branches, list) and len(branches) == len(tags) and len(tags) > 1:
            result[TAGS_KEYWORD] = tags
        return result

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        result = super().nullable_schema(schema)
        branches = result.get("anyOf")
        if isinstance(branches, list) and branches and isinstance(branches[0], dict) and TAGS_KEYWORD in branches[0]:
            # Union[A, B, None]: pydantic's generator folds the members into one anyOf; the null branch has no tag.
            inner = branches[0]
            if len(branches) == 2 and branches[1] == {"type": "null"} and "anyOf" in inner and len(inner) == 2:
                return {"anyOf": [*inner["anyOf"], branches[1]], TAGS_KEYWORD: [*inner[TAGS_KEYWORD], None]}
        return result

    def float_schema(self, schema: core_schema.FloatSchema) -> JsonSchemaValue:
        result = super().float_schema(schema)
        if schema.get("allow_inf_nan") is False:
            result[FINITE_KEYWORD] = True
        return result

    def set_schema(self, schema: core_schema.SetSchema) -> JsonSchemaValue:
        return _collection(super().set_schema(schema), "set")

    def frozenset_schema(self, schema: core_schema.FrozenSetSchema) -> JsonSchemaValue:
        return _collection(super().frozenset_schema(schema), "frozenset")

    def tuple_schema(self, schema: core_schema.TupleSchema) -> JsonSchemaValue:
        result = super().tuple_schema(schema)
        return result if "prefixItems" in result else _collection(result, "tuple")

    def decimal_schema(self, schema: core_schema.DecimalSchema) -> JsonSchemaValue:
        result = super().decimal_schema(schema)
        if any(schema.get(key) is not None for key in _DECIMAL_CONSTRAINTS):
            return result  # constraints the schema cannot carry exactly: pydantic checks them in Python
        return {PYTYPE_KEYWORD: "decimal"}

    def literal_schema(self, schema: core_schema.LiteralSchema) -> JsonSchemaValue:
        result = super().literal_schema(schema)
        result[LITERAL_KEYWORD] = True
        return result

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        result = super().dataclass_schema(schema)
        result[KIND_KEYWORD] = f"dataclass:{schema['cls'].__name__}"
        return result

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        result = super().typed_dict_schema(schema)
        result[KIND_KEYWORD] = "typeddict"
        return result


def type_schema(annotation: Any, constraints: dict[str, Any] | None = None) -> dict[str, Any]:
    """The validation-mode JSON Schema of `annotation` with Field constraints (gt, max_length, pattern, ...)."""
    target = Annotated[annotation, Field(**constraints)] if constraints else annotation
    schema = TypeAdapter(target).json_schema(mode="validation", schema_generator=_ValidationSchema)
    return _float_bounds(inline_refs(schema))


def schema_text(annotation: Any, constraints: dict[str, Any] | None = None) -> str:
    return json.dumps(type_schema(annotation, constraints), separators=(",", ":"), ensure_ascii=False)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replaces each local "$ref": "#/$defs/X" by the definition itself (annotations beside the $ref are kept).

    Recursive definitions cannot be inlined: they stay under a root "$defs" and keep their "$ref" (the C++
    compiler resolves local references).
    """
    defs: dict[str, Any] = schema.get("$defs", {})
    recursive: set[str] = set()

    def visit(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [visit(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/"):]
            if name in stack or name not in defs:
                recursive.add(name)
                return {key: visit(value, stack) for key, value in node.items()}
            resolved = dict(visit(defs[name], stack + (name,)))
            for key, value in node.items():
                if key != "$ref":
                    resolved[key] = visit(value, stack)
            return resolved
        return {key: visit(value, stack) for key, value in node.items() if key != "$defs"}

    result = visit(schema, ())
    if recursive:
        # Keep every definition a recursive one may reach, with refs inside them left as refs.
        result["$defs"] = {name: _keep_refs(defs[name]) for name in defs}
    return result


def _keep_refs(node: Any) -> Any:
    if isinstance(node, list):
        return [_keep_refs(item) for item in node]
    if isinstance(node, dict):
        return {key: _keep_refs(value) for key, value in node.items() if key != "$defs"}
    return node


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _float_bounds(node: Any) -> Any:
    """pydantic turns the bounds of a float field into floats (its errors say {"gt": 0.0}); the schema says 0.
    Written back as floats so that the C++ validator's ctx matches."""
    if isinstance(node, list):
        return [_float_bounds(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _float_bounds(value) for key, value in node.items()}
    if out.get("type") == "number":
        for key in _BOUNDS:
            value = out.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                out[key] = float(value)
    return out
