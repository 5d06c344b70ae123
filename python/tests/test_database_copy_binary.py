"""copy_records_to_table's binary COPY: every type with a binary form here stores what COPY text (the server's own
parsing) stores, NULLs included; a value that does not fit from an iterator is a TypeError naming the record and
the column; any number of records from a generator goes through bounded memory."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import subprocess
import sys
import uuid
from typing import Any

import pytest
from slipstream import Database

from tests.pg_cluster import PgCluster

UTC = datetime.timezone.utc
D = decimal.Decimal

# Column name, type, values (each row takes the next value of every column, cycling).
TYPES: list[tuple[str, str, list[Any]]] = [
    ("c_bool", "bool", [True, False]),
    ("c_int2", "int2", [0, -32768, 32767]),
    ("c_int4", "int4", [1, -2147483648, 2147483647]),
    ("c_int8", "int8", [-9223372036854775808, 9223372036854775807, 0]),
    ("c_float4", "float4", [1.5, -0.1, float("inf"), 3]),
    ("c_float8", "float8", [0.1, 1e300, float("-inf"), float("nan"), -0.0, 7]),
    (
        "c_numeric",
        "numeric",
        [
            D("0"),
            D("-0"),
            D("1.50"),
            D("-1.000000000000000001"),
            D("123456789012345678901234567890.123456789"),
            D("1E+20"),
            D("1E-20"),
            D("0E-5"),
            D("NaN"),
            D("Infinity"),
            D("-Infinity"),
            D("0.0001"),
            D("9999.9999"),
            D("10000"),
            D("-12345.678"),
            42,
            -9223372036854775808,
        ],
    ),
    ("c_text", "text", ["", "ünïcode ✓", "tab\there\nnewline\\"]),
    ("c_varchar", "varchar(20)", ["v", ""]),
    ("c_bpchar", "char(3)", ["ab", "abc"]),
    ("c_name", "name", ["a_name"]),
    ("c_bytea", "bytea", [b"", bytes(range(256))]),
    ("c_json", "json", ['{"a": 1}', {"k": [1, "x", None]}, [1, 2]]),
    ("c_jsonb", "jsonb", ['{"b": [true]}', {"k": {"n": 1.5}}]),
    (
        "c_uuid",
        "uuid",
        [uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.UUID("12345678-1234-5678-1234-567812345678")],
    ),
    (
        "c_date",
        "date",
        [
            datetime.date(2000, 1, 1),
            datetime.date(1, 1, 1),
            datetime.date(9999, 12, 31),
            datetime.date(1999, 12, 31),
            datetime.date(2024, 2, 29),
        ],
    ),
    ("c_time", "time", [datetime.time(0), datetime.time(23, 59, 59, 999999), datetime.time(12, 30, 1, 5)]),
    (
        "c_ts",
        "timestamp",
        [
            datetime.datetime(2000, 1, 1),
            datetime.datetime(1, 1, 1),
            datetime.datetime(1970, 1, 1, 0, 0, 0, 1),
            datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
        ],
    ),
    (
        "c_tstz",
        "timestamptz",
        [
            datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
            datetime.datetime(2024, 6, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))),
            datetime.datetime(1950, 1, 1, 0, 0, 0, 7, tzinfo=datetime.timezone(-datetime.timedelta(hours=8))),
        ],
    ),
    (
        "c_interval",
        "interval",
        [
            datetime.timedelta(0),
            datetime.timedelta(days=-1, seconds=5, microseconds=7),
            datetime.timedelta(days=10000, microseconds=1),
            datetime.timedelta(microseconds=-1),
        ],
    ),
]
ROWS = max(len(values) for _, _, values in TYPES)


def rows() -> list[tuple[Any, ...]]:
    out = [(i, *(values[i % len(values)] for _, _, values in TYPES)) for i in range(ROWS)]
    out.append((ROWS, *(None for _ in TYPES)))  # NULL in every column
    return out


def test_every_binary_type_stores_what_copy_text_stores(pg_cluster: PgCluster) -> None:
    columns = ", ".join(f"{name} {kind}" for name, kind, _ in TYPES)
    names = ["id", *(name for name, _, _ in TYPES)]

    async def main() -> None:
        db = Database(pg_cluster.url)
        for table in ("bin_types", "text_types", "list_types"):
            await db.execute(f"DROP TABLE IF EXISTS {table}")
            await db.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, {columns})")
        # From a generator: only the binary form can take them (a mismatch there would raise).
        assert await db.copy_records_to_table("bin_types", records=(r for r in rows())) == f"COPY {ROWS + 1}"
        assert await db.copy_records_to_table("list_types", records=rows(), columns=names) == f"COPY {ROWS + 1}"
        # The reference: each value as a statement parameter, parsed by the server from its text.
        marks = ", ".join(f"${i + 1}" for i in range(len(names)))
        for row in rows():
            await db.execute(f"INSERT INTO text_types VALUES ({marks})", *row)
        texts = ", ".join(f"{name}::text" for name in names)
        expected = [tuple(r) for r in await db.fetch(f"SELECT {texts} FROM text_types t ORDER BY t.id")]
        assert len(expected) == ROWS + 1 and expected[-1][1:] == (None,) * len(TYPES)
        for table in ("bin_types", "list_types"):
            got = [tuple(r) for r in await db.fetch(f"SELECT {texts} FROM {table} t ORDER BY t.id")]
            for want, have in zip(expected, got, strict=True):
                assert have == want
        # And back to Python: the values read equal the values written (NaN aside).
        back = await db.fetchrow(
            "SELECT c_numeric, c_uuid, c_tstz, c_interval, c_date, c_time FROM bin_types WHERE id = 3"
        )
        assert tuple(back) == (
            D("-1.000000000000000001"),
            TYPES[14][2][0],
            TYPES[18][2][0],
            TYPES[19][2][3],
            TYPES[15][2][3],
            TYPES[16][2][0],
        )
        await db.close()

    asyncio.run(main())


def test_a_value_that_does_not_fit_from_an_iterator_names_record_and_column(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("DROP TABLE IF EXISTS bin_wrong")
        await db.execute("CREATE TABLE bin_wrong (id int, at timestamptz, amount numeric, u uuid)")
        now = datetime.datetime(2024, 1, 1, tzinfo=UTC)
        good = [(1, now, D("1.5"), uuid.UUID(int=1)), (2, now, 3, None)]
        cases = [
            (
                (3, now, D("1"), "not-a-uuid-object"),
                (
                    r'record 2: copy_records_to_table: column "u" \(uuid\): a str value '
                    r"does not fit the binary COPY format \(it takes uuid\.UUID\)"
                ),
            ),
            (
                (3, datetime.datetime(2024, 1, 1), D("1"), None),
                (
                    r'record 2: copy_records_to_table: column "at" \(timestamptz\): a datetime\.datetime value does not fit '
                    r"the binary COPY format \(it takes datetime with tzinfo\)"
                ),
            ),
            (("3", now, D("1"), None), r'record 2: copy_records_to_table: column "id" \(int4\): a str value'),
            ((3, now, 1.5, None), r'record 2: copy_records_to_table: column "amount" \(numeric\): a float value'),
            (
                (3, now, D("sNaN"), None),
                (
                    r'record 2: copy_records_to_table: column "amount" \(numeric\): a '
                    r"decimal\.Decimal value"
                ),
            ),
        ]
        for bad, message in cases:
            with pytest.raises(TypeError, match=message):
                await db.copy_records_to_table("bin_wrong", records=iter([*good, bad]))
            assert await db.fetchval("SELECT count(*) FROM bin_wrong") == 0  # nothing kept
        # The same records in a list are sent again as COPY text: the server judges them.
        naive = [*good, (3, datetime.datetime(2024, 1, 1), D("1"), "00000000-0000-0000-0000-000000000002")]
        assert await db.copy_records_to_table("bin_wrong", records=naive) == "COPY 3"
        assert await db.fetchval("SELECT u::text FROM bin_wrong WHERE id = 3") == "00000000-0000-0000-0000-000000000002"
        await db.close()

    asyncio.run(main())


# Copies ROWS records from a generator (about 120 MB of COPY data) with a 1 MiB buffer and prints the rows stored
# and how much the peak RSS grew meanwhile (KiB).
BOUNDED = r"""
import asyncio, resource, sys
from slipstream import Database
URL, ROWS = sys.argv[1], int(sys.argv[2])
async def main():
    db = Database(URL, copy_buffer_size=1 << 20)
    await db.execute("DROP TABLE IF EXISTS bin_huge")
    await db.execute("CREATE TABLE bin_huge (id int8, name text, value float8)")
    await db.copy_records_to_table("bin_huge", records=[(0, "warm-up", 0.0)])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    records = ((i, "a fairly long name for row %d" % i, i * 0.5) for i in range(1, ROWS + 1))
    tag = await db.copy_records_to_table("bin_huge", records=records)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(tag, await db.fetchval("SELECT count(*) FROM bin_huge"), await db.fetchval("SELECT sum(id) FROM bin_huge"),
          grown)
    await db.close()
asyncio.run(main())
"""


def test_a_huge_batch_from_a_generator_streams_in_bounded_memory(pg_cluster: PgCluster) -> None:
    rows = 2_000_000
    stdout = subprocess.check_output([sys.executable, "-c", BOUNDED, pg_cluster.url, str(rows)], text=True, timeout=300)
    fields = stdout.split()
    assert fields[:3] == ["COPY", str(rows), str(rows + 1)], stdout  # the warm-up row and the copied ones
    assert int(fields[3]) == rows * (rows + 1) // 2
    # The data is about 120 MB: encoded faster than it is sent and held, it grows the process by tens of MiB.
    assert int(fields[4]) < 16 * 1024, stdout  # about 1.5 MiB with the 1 MiB buffer; 57 MiB with 1 GiB


def test_cancelling_a_streamed_copy_keeps_nothing_and_the_connection_goes_on(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, max_size=2, copy_buffer_size=64 * 1024)
        await db.execute("DROP TABLE IF EXISTS bin_cancel")
        await db.execute("CREATE TABLE bin_cancel (id int8, name text)")
        endless = ((i, f"row {i}") for i in range(10**9))
        task = asyncio.ensure_future(db.copy_records_to_table("bin_cancel", records=endless))
        progress = "SELECT coalesce(max(tuples_processed), 0) FROM pg_stat_progress_copy"
        for _ in range(500):  # until the server has taken some rows (the encoder waits for room meanwhile)
            if await db.fetchval(progress) > 0:
                break
            await asyncio.sleep(0.02)
        assert await db.fetchval(progress) > 0
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await db.fetchval("SELECT count(*) FROM bin_cancel") == 0
        assert await db.fetchval("SELECT count(*) FROM pg_stat_progress_copy") == 0
        assert await db.copy_records_to_table("bin_cancel", records=[(1, "after")]) == "COPY 1"
        await db.close()

    asyncio.run(main())


def test_a_held_connection_streams_its_copy_inside_its_transaction(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, copy_buffer_size=64 * 1024)
        await db.execute("DROP TABLE IF EXISTS bin_held")
        await db.execute("CREATE TABLE bin_held (id int8, at timestamptz, name text)")
        now = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
        rows = 200_000  # several times the buffer: the encoder waits for room on the held connection too
        with pytest.raises(RuntimeError, match="roll back"):
            async with db.transaction() as conn:
                tag = await conn.copy_records_to_table("bin_held", records=((i, now, f"n{i}") for i in range(rows)))
                assert tag == f"COPY {rows}"
                assert await conn.fetchval("SELECT count(*) FROM bin_held") == rows
                raise RuntimeError("roll back")
        assert await db.fetchval("SELECT count(*) FROM bin_held") == 0
        async with db.acquire() as conn:  # outside a transaction: the failed COPY leaves nothing to roll back
            with pytest.raises(TypeError, match=r'record 3: copy_records_to_table: column "at" \(timestamptz\)'):
                await conn.copy_records_to_table("bin_held", records=iter([(1, now, "a")] * 3 + [(4, "now", "b")]))
        async with db.transaction() as conn:
            assert await conn.copy_records_to_table("bin_held", records=[(1, "2024-01-01T00:00:00+00", "t")]) == (
                "COPY 1"
            )  # a list goes again as text
        assert await db.fetchval("SELECT at FROM bin_held WHERE id = 1") == datetime.datetime(2024, 1, 1, tzinfo=UTC)
        await db.close()

    asyncio.run(main())
