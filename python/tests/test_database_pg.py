"""PostgreSQL through the Database API: every type both ways, LISTEN/NOTIFY, deadlines and pool limits, a slow
query that does not hold up other requests, and a real server whose /readyz follows the database (stopped and
started again with pg_ctl)."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import http.client
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import pytest
from slipstream import App, Database, Depends, TestClient, get_database
from slipstream.database import (
    InFailedSQLTransactionError,
    Notification,
    PoolTimeoutError,
    QueryCanceledError,
    QueryTimeoutError,
    TooManySessionsError,
)

from tests.pg_cluster import PgCluster, find_bindir

TESTS = Path(__file__).resolve().parent
UTC = datetime.timezone.utc

DB = Annotated[Database, Depends(get_database)]


def test_every_type_both_ways(pg_cluster: PgCluster) -> None:
    cases: list[tuple[str, Any]] = [
        ("int2", 32767), ("int4", -2147483648), ("int8", 9223372036854775807), ("float4", 1.5),
        ("float8", 0.1), ("numeric", decimal.Decimal("12345678901234567890.000000000123")),
        ("text", "tëxt ✓"), ("varchar", "v"), ("bytea", b"\x00\x01\xfe"),
        ("bool", True), ("bool", False), ("uuid", uuid.UUID("12345678-1234-5678-1234-567812345678")),
        ("date", datetime.date(2024, 2, 29)), ("time", datetime.time(13, 14, 15, 500)),
        ("timetz", datetime.time(13, 14, 15, tzinfo=datetime.timezone(datetime.timedelta(hours=-3)))),
        ("timestamp", datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
        ("timestamptz", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("interval", datetime.timedelta(days=3, hours=4, minutes=5, seconds=6, microseconds=7)),
        ("interval", datetime.timedelta(days=-2, seconds=10)),
        ("json", {"a": [1, 2.5, None, "s"]}), ("jsonb", {"nested": {"k": True}}), ("jsonb", [1, 2]),
    ]

    async def main() -> None:
        db = Database(pg_cluster.url)
        for sql_type, value in cases:
            got = await db.fetchrow(f"SELECT $1::{sql_type} AS v, NULL::{sql_type} AS n", value)
            assert (got["v"], type(got["v"]), got["n"]) == (value, type(value), None), sql_type
        assert await db.fetchval("SELECT 'NaN'::float8 = $1", float("nan")) is True
        assert (await db.fetchval("SELECT $1::numeric", decimal.Decimal("NaN"))).is_nan()
        assert await db.fetchval("SELECT '1 year 2 mons'::interval") == "1 year 2 mons"  # no fixed length: text
        assert await db.fetchval("SELECT 'infinity'::timestamptz") == datetime.datetime.max.replace(tzinfo=UTC)
        assert await db.fetchval("SELECT '-infinity'::date") == datetime.date.min
        assert await db.fetchval("SELECT '{1,2}'::int[]") == [1, 2]  # arrays: lists (test_database_arrays.py)
        await db.close()

    asyncio.run(main())


def test_listen_and_notify(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        got: list[Notification] = []
        seen = asyncio.Event()

        async def on_notify(n: Notification) -> None:
            got.append(n)
            if len(got) == 2:
                seen.set()

        listener = await db.listen("orders created", on_notify)
        pid = await db.fetchval("SELECT pg_backend_pid()")
        await db.execute("SELECT pg_notify($1, $2)", "orders created", "id=7")
        await db.execute('NOTIFY "orders created"')
        await db.execute("SELECT pg_notify('other', 'x')")
        await asyncio.wait_for(seen.wait(), 10)
        assert [(n.channel, n.payload) for n in got] == [("orders created", "id=7"), ("orders created", "")]
        assert isinstance(got[0].pid, int) and got[0].pid > 0 and pid > 0
        await listener.remove()
        assert not listener.active
        assert await db.fetchval("SELECT count(*) FROM pg_listening_channels()") == 0
        await db.close()

    asyncio.run(main())


def test_deadlines_and_limits(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, max_size=1, acquire_timeout=0.2, max_sessions=1, statement_timeout=5)
        with pytest.raises(QueryTimeoutError, match="timed out"):
            await db.execute("SELECT pg_sleep(5)", timeout=0.05)
        async with db.acquire():  # holds the one connection and the one session
            with pytest.raises(PoolTimeoutError, match="no database connection became free"):
                await db.fetchval("SELECT 1")
            with pytest.raises(TooManySessionsError):
                async with db.transaction():
                    pass
        assert await db.fetchval("SELECT 1") == 1
        await db.close()

    asyncio.run(main())


def test_commit_after_a_failed_statement_is_an_error(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        t = "t_" + uuid.uuid4().hex[:12]
        await db.execute(f"CREATE TABLE {t} (id int PRIMARY KEY)")
        with pytest.raises(InFailedSQLTransactionError):
            async with db.transaction() as conn:
                await conn.execute(f"INSERT INTO {t} VALUES (1)")
                try:
                    await conn.execute(f"INSERT INTO {t} VALUES (1)")
                except Exception:  # noqa: BLE001, S110 - swallowed on purpose: COMMIT must not pretend
                    pass
        assert await db.fetchval(f"SELECT count(*) FROM {t}") == 0
        await db.close()

    asyncio.run(main())


def test_statements_in_flight_fail_when_the_database_closes(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        slow = asyncio.ensure_future(db.execute("SELECT pg_sleep(30)"))
        while await db.fetchval("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'") == 0:
            await asyncio.sleep(0.01)
        await db.close()
        with pytest.raises(QueryCanceledError):
            await slow

    asyncio.run(main())


def test_a_cancelled_task_cancels_its_query(pg_cluster: PgCluster) -> None:
    activity = "SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1"

    async def main() -> None:
        db = Database(pg_cluster.url, max_size=1, acquire_timeout=10)  # one connection: the next statement waits
        observer = Database(pg_cluster.url, max_size=1)
        pid = await db.fetchval("SELECT pg_backend_pid()")

        # A task the app cancels: the statement stops on the server, the connection serves the next one.
        task = asyncio.ensure_future(db.execute("SELECT pg_sleep(30)"))
        while await observer.fetchval(activity, pid) != "active: SELECT pg_sleep(30)":
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.wait_for(db.fetchval("SELECT 'next'"), 10) == "next"  # not after the 30 s sleep
        assert await observer.fetchval(activity, pid) == "idle: SELECT 'next'"

        # asyncio.wait_for timing out cancels its task, so the query too (fetch_json and fetch alike).
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(db.fetch_json("SELECT pg_sleep(30)"), 0.2)
        assert await asyncio.wait_for(db.fetchval("SELECT 'after wait_for'"), 10) == "after wait_for"
        assert await observer.fetchval(activity, pid) == "idle: SELECT 'after wait_for'"

        # A statement still waiting for a connection is dropped: it never runs.
        async with db.acquire() as conn:
            waiting = asyncio.ensure_future(db.execute("SELECT pg_sleep(30)"))
            await asyncio.sleep(0)  # the call is made
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert await conn.fetchval("SELECT 'held'") == "held"
        assert await asyncio.wait_for(db.fetchval("SELECT 'last'"), 10) == "last"
        assert await observer.fetchval(activity, pid) == "idle: SELECT 'last'"
        await db.close()
        await observer.close()

    asyncio.run(main())


def test_a_slow_query_does_not_block_other_requests(pg_cluster: PgCluster) -> None:
    app = App(database=pg_cluster.url)

    @app.get("/slow")
    async def slow(db: DB) -> Any:
        try:
            await db.execute("SELECT pg_sleep(60) /* slow route */")
        except QueryCanceledError:
            return "cancelled"
        return "slept"

    @app.get("/fast")
    async def fast(db: DB) -> Any:
        return await db.fetchval("SELECT 41 + $1", 1)

    with TestClient(app) as client:
        # Raw connections: the TestClient's own requests wait until no request is in flight (its wait_idle).
        result: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: result.update(slow=_get(client.port, "/slow")))
        thread.start()
        active = "SELECT pid FROM pg_stat_activity WHERE query LIKE '%/* slow route */' AND pid <> pg_backend_pid()"
        watcher = Database(pg_cluster.url)
        deadline = time.monotonic() + 20
        while not watcher.sync.fetch(active):
            assert time.monotonic() < deadline, "the slow statement never started"
            time.sleep(0.01)
        assert _get(client.port, "/fast") == (200, b"42")
        assert _get(client.port, "/fast") == (200, b"42")
        assert thread.is_alive()  # the slow request is still waiting on the server
        watcher.sync.execute(f"SELECT pg_cancel_backend(pid) FROM ({active}) AS slow")
        thread.join(30)
        watcher.close_now()
        assert result["slow"] == (200, b'"cancelled"')


def _server(url: str) -> tuple[subprocess.Popen[bytes], int]:
    env = {**os.environ, "SLIPSTREAM_PORT": "0", "SLIPSTREAM_THREADS": "2", "SLIPSTREAM_TEST_DATABASE_URL": url,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "slipstream", "run", "apps.database_app:app", "--host",
                             "127.0.0.1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    for raw in proc.stderr:
        line = raw.decode()
        if "serving" in line and "http://" in line:
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe from filling up
            return proc, int(line.rsplit(":", 1)[1])
    raise AssertionError(f"server exited with {proc.wait()} before listening")


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _wait_for(port: int, path: str, status: int) -> bytes:
    deadline = time.monotonic() + 30
    while True:
        got, body = _get(port, path)
        if got == status:
            return body
        assert time.monotonic() < deadline, f"{path} stayed {got} {body!r}, expected {status}"
        time.sleep(0.05)


@pytest.fixture
def own_cluster():
    """A cluster of this test's own: it is stopped and started again."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    cluster = PgCluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


def test_real_server_readiness_follows_the_database(own_cluster: PgCluster) -> None:
    proc, port = _server(own_cluster.url)
    try:
        assert _wait_for(port, "/readyz", 200) == b'{"status":"ok"}'
        assert _get(port, "/items") == (200, b'[{"id":1,"name":"one"}]')
        assert _get(port, "/count") == (200, b"1")
        own_cluster.stop()
        # The lost connection is noticed by the statement that needs it: 503 (test_database_unavailable.py).
        assert _get(port, "/items") == (503, b'{"detail":"database unavailable"}')
        assert _wait_for(port, "/readyz", 503) == b'{"status":"unavailable","failing":["database"]}'
        own_cluster.start()
        _wait_for(port, "/readyz", 200)  # the database's probe reconnects on its own
        assert _get(port, "/items") == (200, b'[{"id":1,"name":"one"}]')
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0
