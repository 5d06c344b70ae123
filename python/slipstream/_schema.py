"""JSON Schema (draft 2020-12) of a parameter or body type, via pydantic, made self-contained for the C++ compiler."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

# A vendor keyword (ignored by JSON Schema validators) on the enum/const of a `Literal`: pydantic answers a
# mismatch with "literal_error" and does not parse strings for it ("1" is not Literal[1]), while an Enum says
# "enum" and does ("1" is IntEnum member 1). The C++ validator reads it (src/server/validation/lax_plan.cpp).
LITERAL_KEYWORD = "x-slipstream-literal"


# A vendor keyword on the object schema of a dataclass or TypedDict: pydantic names a non-object input
# "dataclass_type" (with the class name) or "dict_type" there, where a model says "model_attributes_type".
KIND_KEYWORD = "x-slipstream-kind"


class _ValidationSchema(GenerateJsonSchema):
    """pydantic's generator, with Literal, dataclasses and TypedDicts marked (see the keywords above)."""

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
