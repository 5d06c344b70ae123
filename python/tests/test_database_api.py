"""The Database API without a server: Record, parameter conversion errors, limits, the SQL helpers, the text
forms of PostgreSQL values, and errors by SQLSTATE / SQLite code."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import pickle
import uuid

import pytest
from slipstream import Database, DatabaseError, Record
from slipstream._database.records import (
    command_tag,
    records,
    to_date,
    to_interval,
    to_time,
    to_timestamp,
    to_timestamptz,
)
from slipstream._database.sql import quote_ident, sqlite_placeholders
from slipstream.database import (
    ConnectionLostError,
    ForeignKeyViolationError,
    InterfaceError,
    PoolTimeoutError,
    PostgresSyntaxError,
    QueryCanceledError,
    QueryTimeoutError,
    TooManySessionsError,
    UniqueViolationError,
)
from slipstream.database import error_from_payload as error_of


def test_record_reads_like_asyncpg_record() -> None:
    (row,) = records(((("id", "int"), ("name", "text"), ("id", "int")), [(1, "a", 2)], 1, "SELECT 1"))
    assert row["id"] == 1  # the first column of a duplicated name
    assert row[1] == "a"
    assert row[-1] == 2
    assert row[0:2] == (1, "a")
    assert list(row.keys()) == ["id", "name", "id"]
    assert list(row.values()) == [1, "a", 2]
    assert list(row.items()) == [("id", 1), ("name", "a"), ("id", 2)]
    assert row.get("name") == "a"
    assert row.get("nope", 5) == 5
    assert len(row) == 3
    assert list(row) == [1, "a", 2]
    assert "name" in row
    assert "a" not in row
    assert dict(Record({"id": 0, "name": 1}, (1, "a"))) == {"id": 1, "name": "a"}
    assert row == (1, "a", 2)
    assert row == records(((("id", "int"), ("name", "text"), ("id", "int")), [(1, "a", 2)], 1, ""))[0]
    (other,) = records(((("id", "int"), ("nom", "text"), ("id", "int")), [(1, "a", 2)], 1, "SELECT 1"))
    assert row != other  # same values, other names
    assert repr(row) == "<Record id=1 name='a' id=2>"
    with pytest.raises(KeyError, match="nope"):
        row["nope"]
    with pytest.raises(IndexError):
        row[3]
    assert pickle.loads(pickle.dumps(row)) == row
    assert hash(row) == hash((1, "a", 2))


def test_rows_of_one_result_share_one_column_index() -> None:
    rows = records(((("a", "int"),), [(1,), (2,)], 2, "SELECT 2"))
    assert rows[0]._index is rows[1]._index
    assert [r["a"] for r in rows] == [1, 2]


def test_cells_are_converted_by_the_column_kind() -> None:
    payload = ((("n", "numeric"), ("u", "uuid"), ("j", "json"), ("t", "text"), ("d", "date")),
               [("1.50", "00000000-0000-0000-0000-000000000001", '{"a":[1]}', "1.50", None)], 1, "SELECT 1")
    (row,) = records(payload)
    assert row["n"] == decimal.Decimal("1.50") and str(row["n"]) == "1.50"
    assert row["u"] == uuid.UUID(int=1)
    assert row["j"] == {"a": [1]}
    assert row["t"] == "1.50"
    assert row["d"] is None


@pytest.mark.parametrize(("text", "expected"), [
    ("2024-02-29", datetime.date(2024, 2, 29)),
    ("infinity", datetime.date.max),
    ("-infinity", datetime.date.min),
    ("0044-03-15 BC", "0044-03-15 BC"),
    ("12345-01-01", "12345-01-01"),
])
def test_dates(text: str, expected: object) -> None:
    assert to_date(text) == expected


def test_times_and_timestamps() -> None:
    utc = datetime.timezone.utc
    assert to_time("13:14:15") == datetime.time(13, 14, 15)
    assert to_time("13:14:15.5") == datetime.time(13, 14, 15, 500000)
    assert to_time("13:14:15+02") == datetime.time(13, 14, 15, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    assert to_time("24:00:00") == "24:00:00"
    assert to_timestamp("2024-01-02 03:04:05.123456") == datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    assert to_timestamptz("2024-01-02 03:04:05+00") == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=utc)
    assert to_timestamptz("2024-01-02 03:04:05.5-03:30") == datetime.datetime(
        2024, 1, 2, 3, 4, 5, 500000, tzinfo=datetime.timezone(-datetime.timedelta(hours=3, minutes=30)))
    assert to_timestamptz("infinity") == datetime.datetime.max.replace(tzinfo=utc)
    assert to_timestamp("-infinity") == datetime.datetime.min


@pytest.mark.parametrize(("text", "expected"), [
    ("00:00:01", datetime.timedelta(seconds=1)),
    ("1 day", datetime.timedelta(days=1)),
    ("3 days 04:05:06.5", datetime.timedelta(days=3, hours=4, minutes=5, seconds=6.5)),
    ("-1 days +02:00:00", datetime.timedelta(days=-1, hours=2)),
    ("-00:00:00.000005", datetime.timedelta(microseconds=-5)),
    ("1 year 2 mons", "1 year 2 mons"),
    ("3 mons -2 days", "3 mons -2 days"),
])
def test_intervals(text: str, expected: object) -> None:
    assert to_interval(text) == expected


def test_command_tags() -> None:
    assert command_tag(((), [], 3, "UPDATE 3"), "update t set a = 1") == "UPDATE 3"
    assert command_tag(((), [], 1, ""), "INSERT INTO t VALUES (1)") == "INSERT 0 1"
    assert command_tag(((), [], 2, ""), "  -- note\n delete from t") == "DELETE 2"
    assert command_tag(((), [], 0, ""), "CREATE TEMP TABLE t (a int)") == "CREATE TABLE"
    assert command_tag(((), [], 0, ""), "CREATE UNIQUE INDEX i ON t (a)") == "CREATE INDEX"
    assert command_tag(((), [], 0, ""), "begin immediate") == "BEGIN"


def test_sqlite_placeholders_skip_literals_and_comments() -> None:
    sql = "SELECT $2, '$1', \"$1\", `$1`, [$1] -- $1\n, /* $1 */ $1, $10"
    assert sqlite_placeholders(sql) == "SELECT ?2, '$1', \"$1\", `$1`, [$1] -- $1\n, /* $1 */ ?1, ?10"
    assert sqlite_placeholders("SELECT 'it''s $1', $1") == "SELECT 'it''s $1', ?1"
    assert sqlite_placeholders("SELECT ?1") == "SELECT ?1"


def test_quote_ident() -> None:
    assert quote_ident("plain") == '"plain"'
    assert quote_ident('we"ird') == '"we""ird"'
    with pytest.raises(ValueError, match="invalid SQL identifier"):
        quote_ident("")
    with pytest.raises(ValueError, match="invalid SQL identifier"):
        quote_ident("a\x00b")


def _error(status: str = "invalid_argument", message: str = "m", sqlstate: str = "", native: int = 0,
           lost: bool = False, from_statement: bool = True) -> DatabaseError:
    return error_of((status, message, sqlstate, "the detail", "the hint", 7, native, lost, from_statement))


def test_errors_are_typed() -> None:
    e = _error("already_exists", "duplicate key", "23505")
    assert type(e) is UniqueViolationError
    assert (e.sqlstate, e.message, e.detail, e.hint, e.position, e.status) == (
        "23505", "duplicate key", "the detail", "the hint", 7, "already_exists")
    assert str(e) == "duplicate key (SQLSTATE 23505)"
    assert type(_error(sqlstate="23503")) is ForeignKeyViolationError
    assert type(_error(sqlstate="42601")) is PostgresSyntaxError
    assert type(_error(sqlstate="57014", status="cancelled")) is QueryCanceledError
    assert type(_error(sqlstate="99999")) is DatabaseError
    assert type(_error(native=2067)) is UniqueViolationError  # SQLITE_CONSTRAINT_UNIQUE
    assert type(_error(native=1555)) is UniqueViolationError  # SQLITE_CONSTRAINT_PRIMARYKEY
    assert type(_error(native=787)) is ForeignKeyViolationError
    assert type(_error(native=1, message='near "SELEC": syntax error')) is PostgresSyntaxError
    assert type(_error("timeout", from_statement=True)) is QueryTimeoutError
    assert type(_error("timeout", from_statement=False)) is PoolTimeoutError
    assert type(_error("unavailable", lost=True)) is ConnectionLostError
    assert type(_error("resource_exhausted", from_statement=False)) is TooManySessionsError
    assert isinstance(_error("timeout"), TimeoutError)
    assert isinstance(_error("timeout", from_statement=False), TimeoutError)


def test_bad_urls_and_limits_raise_value_error() -> None:
    with pytest.raises(ValueError, match="postgresql://"):
        Database("mysql://x")
    with pytest.raises(ValueError, match="min_size"):
        Database("sqlite:///tmp/x.db", min_size=5, max_size=2)
    with pytest.raises(ValueError, match="max_size"):
        Database("sqlite:///tmp/x.db", max_size=0)
    with pytest.raises(ValueError, match="acquire_timeout"):
        Database("sqlite:///tmp/x.db", acquire_timeout=0)
    with pytest.raises(ValueError, match="statement_timeout"):
        Database("sqlite:///tmp/x.db", statement_timeout=-1)
    db = Database("postgresql://nobody@/db?host=/nonexistent")
    assert (db.backend, db.ready, repr(db)) == ("postgresql", False, "<Database postgresql closed>")


def test_parameters_of_unsupported_types_name_their_position(tmp_path) -> None:
    db = Database(f"sqlite://{tmp_path}/p.db")
    with pytest.raises(TypeError, match=r"query parameter \$2: object values are not supported"):
        db.sync.fetchval("SELECT ?1, ?2", 1, object())
    with pytest.raises(ValueError, match=r"query parameter \$1: int out of the 64-bit range"):
        db.sync.fetchval("SELECT ?1", 2**63)
    with pytest.raises(TypeError, match=r"query parameter \$1: cannot be written as JSON"):
        db.sync.fetchval("SELECT ?1", {"a": object()})
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        db.sync.fetchval("SELECT 1", timeout=0)
    assert db.sync.fetchval("SELECT ?1", -(2**63)) == -(2**63)
    db.close_now()


def test_listen_needs_postgresql(tmp_path) -> None:
    async def main() -> None:
        db = Database(f"sqlite://{tmp_path}/l.db")
        with pytest.raises(InterfaceError, match="needs PostgreSQL"):
            await db.listen("x", print)
        await db.close()

    asyncio.run(main())
