"""JSON Schema (draft 2020-12) of a parameter or body type, via pydantic, made self-contained for the C++ compiler."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, TypeAdapter


def type_schema(annotation: Any, constraints: dict[str, Any] | None = None) -> dict[str, Any]:
    """The validation-mode JSON Schema of `annotation` with Field constraints (gt, max_length, pattern, ...)."""
    target = Annotated[annotation, Field(**constraints)] if constraints else annotation
    schema = TypeAdapter(target).json_schema(mode="validation")
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
