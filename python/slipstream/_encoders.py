"""One step of FastAPI's jsonable_encoder, for the values the C++ encoder does not walk itself."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import ipaddress
import re
import types
import uuid
from collections import deque
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel


def _decimal(value: decimal.Decimal) -> int | float:
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= 0:
        return int(value)
    return float(value)


_BY_TYPE: dict[type, Any] = {
    bytes: lambda o: o.decode(),
    datetime.date: lambda o: o.isoformat(),
    datetime.datetime: lambda o: o.isoformat(),
    datetime.time: lambda o: o.isoformat(),
    datetime.timedelta: lambda o: o.total_seconds(),
    decimal.Decimal: _decimal,
    frozenset: list,
    set: list,
    deque: list,
    types.GeneratorType: list,
    ipaddress.IPv4Address: str,
    ipaddress.IPv4Interface: str,
    ipaddress.IPv4Network: str,
    ipaddress.IPv6Address: str,
    ipaddress.IPv6Interface: str,
    ipaddress.IPv6Network: str,
    uuid.UUID: str,
    re.Pattern: lambda o: o.pattern,
}


def _pydantic_extras() -> None:
    try:
        from pydantic import AnyUrl, NameEmail, SecretBytes, SecretStr
        from pydantic_core import Url

        _BY_TYPE.update({AnyUrl: str, Url: str, NameEmail: str, SecretStr: str, SecretBytes: str})
    except ImportError:  # pragma: no cover - older pydantic
        pass


_pydantic_extras()


def encode_fallback(obj: Any) -> Any:
    """A JSON-compatible value for `obj` (the C++ encoder walks the result); raises ValueError like FastAPI."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json", by_alias=True)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, str):
        return str.__str__(obj)
    if isinstance(obj, bool):
        return bool(obj)
    if isinstance(obj, int):
        return int.__index__(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, dict):
        return dict(obj)
    if isinstance(obj, (list, tuple)):
        return list(obj)
    encoder = _BY_TYPE.get(type(obj))
    if encoder is not None:
        return encoder(obj)
    for base, encoder in _BY_TYPE.items():
        if isinstance(obj, base):
            return encoder(obj)
    try:
        return dict(obj)
    except Exception as first:  # noqa: BLE001 - jsonable_encoder tries dict(), then vars()
        try:
            return vars(obj)
        except Exception as second:
            raise ValueError([first, second]) from second
