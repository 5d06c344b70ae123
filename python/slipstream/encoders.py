"""jsonable_encoder: any value as JSON-compatible data (dicts, lists, str, int, float, bool, None), FastAPI's rules
and options; for code that stores or compares what a route would send (responses are encoded this way already)."""

from __future__ import annotations

import dataclasses
import enum
import types
from collections import deque
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefinedType

from ._encoders import _BY_TYPE

_SEQUENCES = (list, set, frozenset, types.GeneratorType, tuple, deque)


def jsonable_encoder(obj: Any, include: Any = None, exclude: Any = None, by_alias: bool = True,
                     exclude_unset: bool = False, exclude_defaults: bool = False, exclude_none: bool = False,
                     custom_encoder: dict[Any, Callable[[Any], Any]] | None = None,
                     sqlalchemy_safe: bool = True) -> Any:
    """`obj` as JSON-compatible data. pydantic models go through `model_dump(mode="json", ...)` with `include`,
    `exclude`, `by_alias` and the `exclude_*` flags; `include`/`exclude` also pick a dict's keys (top level only);
    `custom_encoder` maps a type (exact, else the first isinstance match) to a function; `sqlalchemy_safe` drops
    dict keys starting with "_sa". An object that is none of the known kinds is read with dict(), else vars();
    ValueError (with both errors) when neither works."""
    if custom_encoder:
        if type(obj) in custom_encoder:
            return custom_encoder[type(obj)](obj)
        for kind, encode in custom_encoder.items():
            if isinstance(obj, kind):
                return encode(obj)
    if include is not None and not isinstance(include, (set, dict)):
        include = set(include)
    if exclude is not None and not isinstance(exclude, (set, dict)):
        exclude = set(exclude)
    flags = {"by_alias": by_alias, "exclude_unset": exclude_unset, "exclude_defaults": exclude_defaults,
             "exclude_none": exclude_none, "custom_encoder": custom_encoder, "sqlalchemy_safe": sqlalchemy_safe}
    if isinstance(obj, BaseModel):
        dumped = obj.model_dump(mode="json", include=include, exclude=exclude, by_alias=by_alias,
                                exclude_unset=exclude_unset, exclude_none=exclude_none,
                                exclude_defaults=exclude_defaults)
        return jsonable_encoder(dumped, exclude_none=exclude_none, exclude_defaults=exclude_defaults,
                                sqlalchemy_safe=sqlalchemy_safe)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable_encoder(dataclasses.asdict(obj), include=include, exclude=exclude, **flags)
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, PurePath):
        return str(obj)
    if obj is None or isinstance(obj, (str, int, float)):
        return obj
    if isinstance(obj, PydanticUndefinedType):
        return None
    if isinstance(obj, dict):
        return _encode_dict(obj, include, exclude, flags)
    if isinstance(obj, _SEQUENCES):
        return [jsonable_encoder(item, include=include, exclude=exclude, **flags) for item in obj]
    encode = _BY_TYPE.get(type(obj))
    if encode is None:
        encode = next((e for kind, e in _BY_TYPE.items() if isinstance(obj, kind)), None)
    if encode is not None:
        return encode(obj)
    try:
        data = dict(obj)
    except Exception as first:  # noqa: BLE001 - FastAPI tries dict(), then vars()
        try:
            data = vars(obj)
        except Exception as second:
            raise ValueError([first, second]) from second
    return jsonable_encoder(data, include=include, exclude=exclude, **flags)


def _encode_dict(obj: dict[Any, Any], include: Any, exclude: Any, flags: dict[str, Any]) -> dict[Any, Any]:
    allowed = set(obj)
    if include is not None:
        allowed &= set(include)
    if exclude is not None:
        allowed -= set(exclude)
    out = {}
    for key, value in obj.items():
        if key not in allowed or (value is None and flags["exclude_none"]):
            continue
        if flags["sqlalchemy_safe"] and isinstance(key, str) and key.startswith("_sa"):
            continue
        out[jsonable_encoder(key, **flags)] = jsonable_encoder(value, **flags)
    return out


__all__ = ["jsonable_encoder"]
