"""Record (asyncpg.Record's behaviour) and the rows of a query payload as Records with Python values."""

from __future__ import annotations

import datetime
import decimal
import json
import re
import uuid
from collections.abc import Callable
from typing import Any

from .. import _native

# One row: read by column name (`r["id"]`) or position (`r[0]`); `keys()`, `values()`, `items()`, `get()`, `len()`,
# iteration over the values, `in` over the column names, `dict(r)`. Equal to another Record or a tuple with the same
# values. A C type (python/bindings/py_record.h): the rows of one result share one column index.
Record = _native.Record


# --- Cells the engine hands over as text (python/bindings/db_values.h), by the column's kind. ---

_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)")
_TIME = re.compile(r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?")
_TIMESTAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"
                        r"(?:([+-])(\d\d)(?::?(\d\d))?(?::(\d\d))?)?")
# PostgreSQL's default IntervalStyle: "3 days 04:05:06.5", "-1 days +02:00:00", "00:00:01" (years/months: no).
_INTERVAL = re.compile(r"(?:([+-]?\d+) days?)? ?(?:([+-])?(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?")


def _micros(fraction: str | None) -> int:
    return int(fraction.ljust(6, "0")) if fraction else 0


def _zone(sign: str | None, hours: str | None, minutes: str | None, seconds: str | None) -> datetime.tzinfo | None:
    if sign is None:
        return None
    offset = datetime.timedelta(hours=int(hours or 0), minutes=int(minutes or 0), seconds=int(seconds or 0))
    return datetime.timezone(-offset if sign == "-" else offset)


def to_date(text: str) -> Any:
    if text == "infinity":
        return datetime.date.max
    if text == "-infinity":
        return datetime.date.min
    m = _DATE.fullmatch(text)
    if m is None:
        return text  # BC dates and years past 9999 have no Python date: kept as the server's text
    return datetime.date(int(m[1]), int(m[2]), int(m[3]))


def to_time(text: str) -> Any:
    m = _TIME.fullmatch(text)
    if m is None:
        return text
    hour = int(m[1])
    if hour == 24:  # PostgreSQL allows 24:00:00
        return text
    return datetime.time(hour, int(m[2]), int(m[3]), _micros(m[4]), tzinfo=_zone(m[5], m[6], m[7], m[8]))


def _to_timestamp(text: str, aware: bool) -> Any:
    if text in ("infinity", "-infinity"):
        value = datetime.datetime.max if text == "infinity" else datetime.datetime.min
        return value.replace(tzinfo=datetime.timezone.utc) if aware else value
    m = _TIMESTAMP.fullmatch(text)
    if m is None:
        return text
    return datetime.datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]), _micros(m[7]),
                             tzinfo=_zone(m[8], m[9], m[10], m[11]))


def to_timestamp(text: str) -> Any:
    return _to_timestamp(text, False)


def to_timestamptz(text: str) -> Any:
    return _to_timestamp(text, True)


def to_interval(text: str) -> Any:
    m = _INTERVAL.fullmatch(text)
    if m is None or not text:
        return text  # years or months (no fixed length in days): kept as the server's text
    days = int(m[1] or 0)
    clock = datetime.timedelta(hours=int(m[3] or 0), minutes=int(m[4] or 0), seconds=int(m[5] or 0),
                               microseconds=_micros(m[6]))
    return datetime.timedelta(days=days) + (-clock if m[2] == "-" else clock)


def to_json(text: str) -> Any:
    return json.loads(text)


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "numeric": decimal.Decimal,
    "uuid": uuid.UUID,
    "date": to_date,
    "time": to_time,
    "timestamp": to_timestamp,
    "timestamptz": to_timestamptz,
    "interval": to_interval,
    "json": to_json,
}


def _converted(row: tuple[Any, ...], converters: list[tuple[int, Callable[[Any], Any]]]) -> tuple[Any, ...]:
    """The row with the text cells (and arrays of text elements) of the converted columns converted."""
    values = list(row)
    for i, convert in converters:
        value = values[i]
        if type(value) is str or type(value) is list:
            values[i] = convert(value)
    return tuple(values)


def _array_converter(convert: Callable[[str], Any]) -> Callable[[list[Any]], Any]:
    """Converts the text elements of nested lists (an array column of a kind the engine hands over as text)."""
    def walk(items: list[Any]) -> list[Any]:
        return [walk(v) if type(v) is list else convert(v) if type(v) is str else v for v in items]
    return walk


def _converter(kind: str) -> Callable[[Any], Any] | None:
    if kind.endswith("[]"):
        element = CONVERTERS.get(kind[:-2])
        return None if element is None else _array_converter(element)
    return CONVERTERS.get(kind)



def records(payload: tuple[Any, ...]) -> list[Record]:
    """The rows of a query payload (columns, rows, affected, command) as Records."""
    columns, rows = payload[0], payload[1]
    names = tuple(name for name, _kind in columns)
    converters = []
    for i, (_name, kind) in enumerate(columns):
        convert = _converter(kind)
        if convert is not None:
            converters.append((i, convert))
    if converters:
        rows = [_converted(row, converters) for row in rows]
    return _native.make_records(names, rows)


def first_record(payload: tuple[Any, ...]) -> Record | None:
    if not payload[1]:
        return None
    return records((payload[0], payload[1][:1]))[0]


def first_value(payload: tuple[Any, ...], column: int) -> Any:
    row = first_record(payload)
    return None if row is None else row[column]


_WORDS = re.compile(r"\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*([A-Za-z]+)(?:\s+([A-Za-z]+))?(?:\s+([A-Za-z]+))?", re.DOTALL)
_OBJECT_MODIFIERS = {"TEMP", "TEMPORARY", "UNIQUE", "VIRTUAL", "OR", "REPLACE"}


def command_tag(payload: tuple[Any, ...], sql: str) -> str:
    """PostgreSQL's command tag ("INSERT 0 1", "UPDATE 3", "CREATE TABLE"); for SQLite, which has none, the same
    shape from the statement's first words and the rows it changed."""
    if payload[3]:
        return payload[3]
    m = _WORDS.match(sql)
    if m is None:
        return ""
    verb = m[1].upper()
    if verb == "INSERT":
        return f"INSERT 0 {payload[2]}"
    if verb in ("UPDATE", "DELETE", "SELECT"):
        return f"{verb} {payload[2]}"
    if verb in ("CREATE", "DROP", "ALTER"):
        words = [w.upper() for w in (m[2], m[3]) if w]
        kind = next((w for w in words if w not in _OBJECT_MODIFIERS), "")
        return f"{verb} {kind}".strip()
    return verb
