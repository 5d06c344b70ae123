"""copy_records_to_table on PostgreSQL: every parameter type goes through COPY's text format and reads back equal;
records by position and by name; errors name the record and keep nothing."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import uuid
from collections import OrderedDict
from typing import Any

import pytest
from slipstream import Database
from slipstream.database import DataError, UniqueViolationError

from tests.pg_cluster import PgCluster

UTC = datetime.timezone.utc

COLUMNS = [
    ("i8", "int8", -9223372036854775808),
    ("i4", "int4", 2147483647),
    ("f8", "float8", 0.1),
    ("f8big", "float8", 1e300),
    ("f8inf", "float8", float("-inf")),
    ("num", "numeric", decimal.Decimal("-1.000000000000000001")),
    ("t", "text", "tab\there\nnewline\r\\back\\slash ✓"),
    ("b", "bytea", b"\x00\\\t\n\xff"),
    ("yes", "bool", True),
    ("no", "bool", False),
    ("u", "uuid", uuid.UUID("12345678-1234-5678-1234-567812345678")),
    ("d", "date", datetime.date(2024, 2, 29)),
    ("ts", "timestamp", datetime.datetime(2024, 1, 2, 3, 4, 5, 6)),
    ("tstz", "timestamptz", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ("iv", "interval", datetime.timedelta(days=-1, seconds=5, microseconds=7)),
    ("j", "jsonb", {"k": ["v", 1, None, "\t"]}),
    ("nothing", "text", None),
]


def test_every_type_through_copy(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("DROP TABLE IF EXISTS copy_types")
        await db.execute("CREATE TABLE copy_types (" + ", ".join(f"{n} {t}" for n, t, _ in COLUMNS) + ")")
        record = tuple(v for _, _, v in COLUMNS)
        assert await db.copy_records_to_table("copy_types", records=[record, list(record)]) == "COPY 2"
        for row in await db.fetch("SELECT * FROM copy_types"):
            assert tuple(row) == record
        assert await db.fetchval("SELECT count(*) FROM copy_types WHERE f8 = 0.1 AND i8 < 0") == 2
        await db.close()

    asyncio.run(main())


def test_records_by_name_and_errors_by_record(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("DROP TABLE IF EXISTS copy_named")
        await db.execute("CREATE TABLE copy_named (id int PRIMARY KEY, name text, score float8)")
        await db.copy_records_to_table("copy_named", records=[(1, "one", 1.0)])
        by_name: list[Any] = [
            {"score": 2.5, "id": 2, "name": "two"},
            OrderedDict(id=3, name=None, score=0.0),
            await db.fetchrow("SELECT 4 AS id, 'four' AS name, 4.0::float8 AS score"),
            (5, "five", 5.0),
        ]
        assert (
            await db.copy_records_to_table("copy_named", records=by_name, columns=["id", "name", "score"]) == "COPY 4"
        )
        got = [tuple(r) for r in await db.fetch("SELECT * FROM copy_named ORDER BY id")]
        assert got == [(1, "one", 1.0), (2, "two", 2.5), (3, None, 0.0), (4, "four", 4.0), (5, "five", 5.0)]
        with pytest.raises(ValueError, match=r"record 1: query parameter \$1: int out of the 64-bit range"):
            await db.copy_records_to_table("copy_named", records=[(6, "a", 0.0), (2**64, "b", 0.0)])
        with pytest.raises(ValueError, match="record 2: copy_records_to_table: a record has 2 values, expected 3"):
            await db.copy_records_to_table("copy_named", records=iter([(6, "a", 0.0), (7, "b", 1.0), (8, "c")]))
        with pytest.raises(KeyError, match="score"):
            await db.copy_records_to_table(
                "copy_named", records=[{"id": 9, "name": "x"}], columns=["id", "name", "score"]
            )
        with pytest.raises(DataError):  # the server refuses a NUL byte in text: nothing is kept
            await db.copy_records_to_table("copy_named", records=[(10, "ok", 0.0), (11, "nul\x00", 0.0)])
        assert await db.fetchval("SELECT count(*) FROM copy_named") == 5
        await db.close()

    asyncio.run(main())


BINARY_COLUMNS = [
    ("a", "int2", -32768),
    ("b", "int4", 2147483647),
    ("c", "int8", -9223372036854775808),
    ("d", "float4", 1.5),
    ("e", "float8", float("inf")),
    ("f", "text", "tab\there ✓"),
    ("g", "varchar(10)", "v"),
    ("h", "bytea", b"\x00\xff"),
    ("i", "bool", False),
    ("j", "json", '{"k": [1]}'),
    ("k", "jsonb", '{"k": [1]}'),
    ("l", "text", None),
    ("m", "float8", 3),
]


def test_binary_copy_for_binary_columns_and_text_otherwise(pg_cluster: PgCluster) -> None:
    from slipstream import _native
    from slipstream._database.records import Record

    oids = [21, 23, 20, 700, 701, 25, 1043, 17, 16, 114, 3802, 25, 701]
    record = tuple(v for _, _, v in BINARY_COLUMNS)
    data = _native.encode_copy_records_binary([record], len(record), None, (Record,), oids)
    assert data is not None and data.startswith(b"PGCOPY\n\xff\r\n\x00") and data.endswith(b"\xff\xff")
    # Not the column's own type, out of its range, a type without a binary form here: no binary data.
    assert _native.encode_copy_records_binary([("5",)], 1, None, (Record,), [23]) is None
    assert _native.encode_copy_records_binary([(70000,)], 1, None, (Record,), [21]) is None
    assert _native.encode_copy_records_binary([(1,)], 1, None, (Record,), [1266]) is None  # timetz
    with pytest.raises(ValueError, match="record 0: copy_records_to_table: a record has 2 values, expected 1"):
        _native.encode_copy_records_binary([(1, 2)], 1, None, (Record,), [23])

    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("DROP TABLE IF EXISTS copy_binary")
        await db.execute(
            "CREATE TABLE copy_binary ("
            + ", ".join(f"{n} {t}" for n, t, _ in BINARY_COLUMNS)
            + ", g2 int GENERATED ALWAYS AS (b - 1) STORED)"
        )
        assert await db.copy_records_to_table("copy_binary", records=iter([record, record])) == "COPY 2"
        got = await db.fetchrow("SELECT * FROM copy_binary")
        assert tuple(got)[:11] == record[:9] + ({"k": [1]}, {"k": [1]})
        assert (got["l"], got["m"], got["g2"]) == (None, 3.0, 2147483646)
        # Text where a value does not fit the binary form: the server judges it as text.
        await db.copy_records_to_table(
            "copy_binary", records=[(1, "2", 3, 4.0, 5.0, "x", "y", b"", True, "1", "2", None, 1.0)]
        )
        assert await db.fetchval("SELECT b FROM copy_binary WHERE a = 1") == 2
        with pytest.raises(DataError, match="out of range for type smallint"):
            await db.copy_records_to_table("copy_binary", records=[(70000,) + record[1:]])
        with pytest.raises(DataError, match="invalid input syntax for type json"):
            await db.copy_records_to_table("copy_binary", columns=["a", "k"], records=[(1, "{not json")])
        assert db.sync.copy_records_to_table("copy_binary", columns=["a", "b"], records=[{"a": 7, "b": 8}]) == "COPY 1"
        assert await db.fetchval("SELECT count(*) FROM copy_binary") == 4
        await db.close()

    asyncio.run(main())


def test_binary_copy_streams_in_pieces_and_falls_back_to_text(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("DROP TABLE IF EXISTS copy_pieces")
        await db.execute("CREATE TABLE copy_pieces (id int PRIMARY KEY, name text, score float8)")
        rows = [(i, f"name {i}", i / 8) for i in range(40_000)]  # the first piece and several more
        assert await db.copy_records_to_table("copy_pieces", records=rows) == "COPY 40000"
        assert await db.fetchval("SELECT sum(id)::int8 FROM copy_pieces") == sum(range(40_000))
        assert tuple(await db.fetchrow("SELECT * FROM copy_pieces WHERE id = 39999")) == rows[-1]
        # A value of another Python type in a later piece: that COPY is aborted and the records go as text.
        more = [(i, f"n{i}", 0.5) for i in range(40_000, 45_000)]
        more[3000] = ("43000", "text id", 1.0)
        assert await db.copy_records_to_table("copy_pieces", records=more) == "COPY 5000"
        assert await db.fetchval("SELECT name FROM copy_pieces WHERE id = 43000") == "text id"
        assert await db.fetchval("SELECT count(*) FROM copy_pieces") == 45_000
        # An error while encoding a later piece aborts the COPY: nothing is kept.
        bad = [(i, "x", 0.0) for i in range(50_000, 60_000)]
        bad[9000] = (1, 2)
        with pytest.raises(ValueError, match="record 9000: copy_records_to_table: a record has 2 values"):
            await db.copy_records_to_table("copy_pieces", records=bad)
        # The server's verdict arrives after every piece was sent (a duplicate key in a later piece).
        dup = [(i, "y", 0.0) for i in range(60_000, 70_000)] + [(5, "dup", 0.0)]
        with pytest.raises(UniqueViolationError):
            await db.copy_records_to_table("copy_pieces", records=dup)
        assert await db.fetchval("SELECT count(*) FROM copy_pieces") == 45_000
        await db.close()

    asyncio.run(main())
