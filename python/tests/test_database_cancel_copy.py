"""A held connection's statements cancelled with their task (inside a transaction: rolled back, the connection
usable), COPY on a held connection, and COPY TO STDOUT (copy_from_table / copy_from_query) to every kind of
output."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path

import pytest
from slipstream import Database
from slipstream.database import DataError, InFailedSQLTransactionError, InterfaceError

from tests.pg_cluster import PgCluster

ACTIVITY = "SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1"


async def _until_active(observer: Database, pid: int, sql: str) -> None:
    deadline = time.monotonic() + 20
    while await observer.fetchval(ACTIVITY, pid) != "active: " + sql:
        assert time.monotonic() < deadline, f"{sql} never ran"
        await asyncio.sleep(0.01)


async def _cancelled_quickly(task: asyncio.Future[object]) -> None:
    task.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 10  # not after the 30 s sleep


def test_a_cancelled_task_cancels_its_statement_in_a_transaction(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, max_size=1, acquire_timeout=10)  # one connection: it must come back
        observer = Database(pg_cluster.url)
        await db.execute("CREATE TABLE IF NOT EXISTS tx_cancel (v int)")
        await db.execute("TRUNCATE tx_cancel")
        pids: list[int] = []

        async def work() -> None:
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO tx_cancel VALUES (1)")
                pids.append(await conn.fetchval("SELECT pg_backend_pid()"))
                await conn.execute("SELECT pg_sleep(30)")

        task = asyncio.ensure_future(work())
        while not pids:
            await asyncio.sleep(0.01)
        await _until_active(observer, pids[0], "SELECT pg_sleep(30)")
        await _cancelled_quickly(task)
        # Stopped on the server, the transaction rolled back, the one connection serves the next statement.
        assert await asyncio.wait_for(db.fetchval("SELECT count(*) FROM tx_cancel"), 10) == 0
        assert await observer.fetchval(ACTIVITY, pids[0]) == "idle: SELECT count(*) FROM tx_cancel"
        await db.close()
        await observer.close()

    asyncio.run(main())


def test_a_held_connection_stays_usable_after_a_cancel(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        observer = Database(pg_cluster.url)
        await db.execute("CREATE TABLE IF NOT EXISTS held_cancel (v int)")
        await db.execute("TRUNCATE held_cancel")
        async with db.acquire() as conn:
            pid = await conn.fetchval("SELECT pg_backend_pid()")
            task = asyncio.ensure_future(conn.fetch_json("SELECT pg_sleep(30)"))
            await _until_active(observer, pid, "SELECT pg_sleep(30)")
            await _cancelled_quickly(task)
            assert await asyncio.wait_for(conn.fetchval("SELECT 'usable'"), 10) == "usable"
            # A statement cancelled inside a transaction fails it (PostgreSQL's rule): COMMIT at the block's end
            # reports the rollback, and the connection goes on.
            with pytest.raises(InFailedSQLTransactionError):
                async with conn.transaction():
                    await conn.execute("INSERT INTO held_cancel VALUES (1)")
                    inner = asyncio.ensure_future(conn.execute("SELECT pg_sleep(30)"))
                    await _until_active(observer, pid, "SELECT pg_sleep(30)")
                    await _cancelled_quickly(inner)
            assert conn.in_transaction is False
            assert await conn.fetchval("SELECT count(*) FROM held_cancel") == 0
        await db.close()
        await observer.close()

    asyncio.run(main())


def test_copy_on_a_transaction_is_part_of_it(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("CREATE TABLE IF NOT EXISTS tx_copy (id int, name text)")
        await db.execute("TRUNCATE tx_copy")

        class Rollback(Exception):
            pass

        with pytest.raises(Rollback):
            async with db.transaction() as conn:
                got = await conn.copy_records_to_table("tx_copy", records=[(1, "a\tb"), (2, None)],
                                                       columns=["id", "name"])
                assert got == "COPY 2"
                assert await db.fetchval("SELECT count(*) FROM tx_copy") == 0  # not committed
                # COPY out on the same connection sees the transaction's rows.
                assert await conn.copy_from_table("tx_copy", columns=["name", "id"]) == b"a\\tb\t1\n\\N\t2\n"
                raise Rollback
        assert await db.fetchval("SELECT count(*) FROM tx_copy") == 0

        async with db.transaction() as conn:
            records = [{"id": i, "name": f"n{i}"} for i in range(1000)]
            assert await conn.copy_records_to_table("tx_copy", records=records, columns=["id", "name"]) == "COPY 1000"
        assert await db.fetchval("SELECT count(*) FROM tx_copy") == 1000

        # A bad value fails the COPY inside the transaction, which is then rolled back: nothing kept.
        with pytest.raises(DataError) as bad:
            async with db.transaction() as conn:
                await conn.execute("DELETE FROM tx_copy")
                await conn.copy_records_to_table("tx_copy", records=[("x", "y")])
        assert bad.value.sqlstate == "22P02"
        assert await db.fetchval("SELECT count(*) FROM tx_copy") == 1000
        await db.close()

    asyncio.run(main())


def test_copy_out_to_every_kind_of_output(pg_cluster: PgCluster, tmp_path: Path) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        await db.execute("CREATE TABLE IF NOT EXISTS copy_out_t (id int, name text)")
        await db.execute("TRUNCATE copy_out_t")
        await db.copy_records_to_table("copy_out_t", records=[(1, "it's"), (2, "a,b"), (3, None)])
        csv = b'id,name\n1,it\'s\n2,"a,b"\n3,\n'
        query = "SELECT id, name FROM copy_out_t WHERE id <= $1 AND name IS DISTINCT FROM $2 ORDER BY id"
        # The arguments are inlined as literals the server quotes; a $n in a string stays as it is.
        assert await db.copy_from_query(query, 3, "x'y", format="csv", header=True) == csv
        assert await db.copy_from_query("SELECT '$1' AS s, $1::int AS n", 5) == b"$1\t5\n"

        path = tmp_path / "out.csv"
        assert await db.copy_from_table("copy_out_t", output=path, format="csv", header=True) == "COPY 3"
        assert sorted(path.read_bytes().splitlines()) == sorted(csv.splitlines())
        buffer = io.BytesIO()
        assert await db.copy_from_query(query, 2, None, output=buffer, delimiter="|", null="NULL") == "COPY 2"
        assert buffer.getvalue() == b"1|it's\n2|a,b\n"
        pieces: list[bytes] = []

        async def sink(data: bytes) -> None:
            pieces.append(data)

        assert await db.copy_from_query("SELECT 1 AS a, NULL AS b", output=sink, format="csv",
                                        force_quote=True) == "COPY 1"
        assert b"".join(pieces) == b'"1",\n'
        assert await db.copy_from_query("SELECT 'x' AS a", format="csv", force_quote=["a"]) == b'"x"\n'
        with pytest.raises(ValueError, match=r"uses \$2"):
            await db.copy_from_query("SELECT $2", 1)
        await db.close()

    asyncio.run(main())


def test_sqlite_has_no_copy_out_and_copies_in_with_inserts(tmp_path: Path) -> None:
    async def main() -> None:
        db = Database(f"sqlite://{tmp_path}/copy.db")
        await db.execute("CREATE TABLE t (id INTEGER, name TEXT)")
        with pytest.raises(InterfaceError):
            await db.copy_from_table("t")
        async with db.transaction() as conn:
            assert await conn.copy_records_to_table("t", records=[(1, "a"), (2, "b")]) == "COPY 2"
            with pytest.raises(InterfaceError):
                await conn.copy_from_query("SELECT 1")
        assert await db.fetchval("SELECT count(*) FROM t") == 2
        await db.close()

    asyncio.run(main())


def test_sync_copy_on_a_transaction_and_out(pg_cluster: PgCluster, tmp_path: Path) -> None:
    db = Database(pg_cluster.url)
    db.sync.execute("CREATE TABLE IF NOT EXISTS sync_copy (id int, name text)")
    db.sync.execute("TRUNCATE sync_copy")
    with db.sync.transaction() as conn:
        assert conn.copy_records_to_table("sync_copy", records=[(1, "one"), (2, None)]) == "COPY 2"
        assert conn.copy_from_query("SELECT * FROM sync_copy ORDER BY id") == b"1\tone\n2\t\\N\n"
        assert db.sync.fetchval("SELECT count(*) FROM sync_copy") == 0  # not committed yet
    assert db.sync.copy_from_query("SELECT name FROM sync_copy WHERE id = $1", 1, format="csv") == b"one\n"
    pieces: list[bytes] = []
    assert db.sync.copy_from_table("sync_copy", columns=["id"], output=pieces.append) == "COPY 2"
    assert sorted(b"".join(pieces).splitlines()) == [b"1", b"2"]
    path = tmp_path / "sync.txt"
    assert db.sync.copy_from_query("SELECT 'a''b'", output=str(path)) == "COPY 1"
    assert path.read_bytes() == b"a'b\n"
    db.close_now()
