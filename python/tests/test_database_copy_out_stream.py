"""COPY TO STDOUT streamed to Python: chunks as they arrive with bounded buffering, a stalled consumer holding the
server back (its backend waits to write), and a consumer that stops or raises cancelling the COPY while the
connection goes on serving."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys

import pytest
from slipstream import Database

from tests.pg_cluster import PgCluster

ROWS_SQL = "SELECT i, 'a fairly long text for row number ' || i AS name FROM generate_series(1, $1) AS i"

# Streams a million rows (about 50 MB of COPY text) to a consumer that counts them, with a 256 KiB buffer; prints
# the rows seen, the COPY's count, the bytes and how much the peak RSS grew meanwhile (KiB).
MILLION = r"""
import asyncio, resource, sys
from slipstream import Database
URL, SQL = sys.argv[1], sys.argv[2]
async def main():
    db = Database(URL, copy_buffer_size=256 * 1024)
    await db.fetchval("SELECT 1")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows = size = 0
    async with db.copy_from_query_stream(SQL, 1_000_000) as chunks:
        async for chunk in chunks:
            rows += chunk.count(b"\n")
            size += len(chunk)
            if rows % 7 == 0:
                await asyncio.sleep(0)  # a consumer that does something else now and then
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(rows, chunks.count, size, grown)
    await db.close()
asyncio.run(main())
"""


def test_a_million_rows_stream_out_in_bounded_memory(pg_cluster: PgCluster) -> None:
    stdout = subprocess.check_output([sys.executable, "-c", MILLION, pg_cluster.url, ROWS_SQL], text=True, timeout=300)
    rows, count, size, grown = (int(x) for x in stdout.split())
    assert (rows, count) == (1_000_000, 1_000_000)
    assert size > 40_000_000
    assert grown < 16 * 1024, stdout  # gathered whole, the data alone is about 50 MB


async def backend_waiting_to_write(db: Database) -> bool:
    """Whether a COPY's backend waits for its client to read (the socket full): polls pg_stat_activity."""
    for _ in range(500):
        state = await db.fetchval("SELECT wait_event FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT i%'")
        if state == "ClientWrite":
            return True
        await asyncio.sleep(0.02)
    return False


def test_a_stalled_consumer_holds_the_server_back(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, max_size=2, copy_buffer_size=64 * 1024)
        async with db.copy_from_query_stream(ROWS_SQL, 2_000_000) as chunks:
            first = await chunks.__anext__()
            assert first.startswith(b"1\ta fairly long text for row number 1\n")
            # Nothing more is taken: the buffer fills, the connection stops reading, the server waits and makes
            # no progress (pg_stat_progress_copy's row count stays put).
            assert await backend_waiting_to_write(db)
            progress = "SELECT tuples_processed FROM pg_stat_progress_copy"
            before = await db.fetchval(progress)
            await asyncio.sleep(0.3)
            assert await db.fetchval(progress) == before
            assert 0 < before < 2_000_000
            rows = first.count(b"\n")
            async for chunk in chunks:
                rows += chunk.count(b"\n")
        assert (rows, chunks.count) == (2_000_000, 2_000_000)
        await db.close()

    asyncio.run(main())


class Stop(Exception):
    pass


def test_a_consumer_that_raises_or_stops_cancels_the_copy(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, max_size=1, copy_buffer_size=64 * 1024)  # one connection: it must go on
        pid = await db.fetchval("SELECT pg_backend_pid()")
        seen: list[bytes] = []

        def output(chunk: bytes) -> None:
            seen.append(chunk)
            if len(seen) == 3:
                raise Stop("enough")

        with pytest.raises(Stop, match="enough"):
            await db.copy_from_query(ROWS_SQL, 5_000_000, output=output)
        assert len(seen) == 3
        # The same connection serves the next statements; its backend is not running the COPY any more.
        assert await db.fetchval("SELECT pg_backend_pid()") == pid
        assert await db.fetchval("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY (%'") == 0

        async with db.copy_from_query_stream(ROWS_SQL, 5_000_000) as chunks:
            async for _chunk in chunks:
                break  # leaving the block cancels the rest
        assert chunks.count is None
        assert await db.fetchval("SELECT $1::int + 1", 41) == 42

        async def slow_write(chunk: bytes) -> None:
            await asyncio.sleep(0)
            raise Stop("from a coroutine")

        async with db.acquire() as conn:  # on a held connection, the same
            with pytest.raises(Stop, match="from a coroutine"):
                await conn.copy_from_query(ROWS_SQL, 5_000_000, output=slow_write)
            assert await conn.fetchval("SELECT pg_backend_pid()") == pid
            got = await conn.copy_from_query(ROWS_SQL, 3, output=seen.append)
            assert got == "COPY 3" and seen[-1].endswith(b"3\ta fairly long text for row number 3\n")
        await db.close()

    asyncio.run(main())


def test_blocking_copy_out_streams_to_output_and_stops_when_it_raises(pg_cluster: PgCluster) -> None:
    db = Database(pg_cluster.url, max_size=1, copy_buffer_size=64 * 1024)
    pid = db.sync.fetchval("SELECT pg_backend_pid()")
    buffer = io.BytesIO()
    assert db.sync.copy_from_query(ROWS_SQL, 300_000, output=buffer) == "COPY 300000"
    assert buffer.getvalue().count(b"\n") == 300_000
    assert buffer.getvalue().endswith(b"300000\ta fairly long text for row number 300000\n")
    seen: list[bytes] = []

    def output(chunk: bytes) -> None:
        seen.append(chunk)
        if len(seen) == 2:
            raise Stop("blocking")

    with pytest.raises(Stop, match="blocking"):
        db.sync.copy_from_query(ROWS_SQL, 5_000_000, output=output)
    assert len(seen) == 2 and all(len(chunk) <= 256 * 1024 + 1024 for chunk in seen)
    assert db.sync.fetchval("SELECT pg_backend_pid()") == pid  # the one connection goes on
    with db.sync.acquire() as conn:
        assert conn.copy_from_query(ROWS_SQL, 3, output=seen.append) == "COPY 3"
        assert seen[-1].startswith(b"1\t") and conn.fetchval("SELECT 1") == 1
    db.close_now()
