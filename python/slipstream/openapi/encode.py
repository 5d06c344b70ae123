"""jsonable(): FastAPI's jsonable_encoder for the values an OpenAPI document holds (examples, extras, models)."""

from __future__ import annotations

from typing import Any

from .._encoders import encode_fallback

_SCALARS = (str, int, float, bool)


def jsonable(value: Any, *, exclude_none: bool = False) -> Any:
    """`value` as JSON-compatible data; with exclude_none, None values of dicts are dropped at every depth."""
    if value is None or (isinstance(value, _SCALARS) and type(value) in (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {jsonable(k): jsonable(v, exclude_none=exclude_none) for k, v in value.items()
                if v is not None or not exclude_none}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, exclude_none=exclude_none) for v in value]
    return jsonable(encode_fallback(value), exclude_none=exclude_none)
