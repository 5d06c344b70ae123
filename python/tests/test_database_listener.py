"""Database.listen: a listener whose backend is terminated reconnects, LISTENs again and says so (on_reconnect);
its notifications then arrive again."""

from __future__ import annotations

import asyncio
import time

import pytest
from slipstream import Database
from slipstream.database import InterfaceError, Listener, Notification

from tests.pg_cluster import PgCluster


async def _backend_of(db: Database, last_statement: str) -> int:
    deadline = time.monotonic() + 20
    while True:
        pid = await db.fetchval("SELECT pid FROM pg_stat_activity WHERE query = $1", last_statement)
        if pid is not None:
            return pid
        assert time.monotonic() < deadline, f"no backend ran {last_statement!r}"
        await asyncio.sleep(0.01)


def test_a_terminated_listener_reconnects_and_listens_again(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url)
        got: asyncio.Queue[Notification] = asyncio.Queue()
        reconnected = asyncio.Event()
        seen: list[Listener] = []

        async def on_reconnect(listener: Listener) -> None:
            seen.append(listener)
            reconnected.set()

        listener = await db.listen("jobs done", got.put_nowait, on_reconnect=on_reconnect)
        assert listener.connected
        await db.execute("SELECT pg_notify('jobs done', 'one')")
        assert (await asyncio.wait_for(got.get(), 10)).payload == "one"

        first = await _backend_of(db, 'LISTEN "jobs done"')
        assert await db.fetchval("SELECT pg_terminate_backend($1::int)", first) is True
        await asyncio.wait_for(reconnected.wait(), 10)
        assert seen == [listener]
        assert listener.reconnects == 1
        assert listener.connected
        second = await _backend_of(db, "SELECT 1")  # the reconnect's last statement, after its LISTEN
        assert second != first
        await db.execute("SELECT pg_notify('jobs done', 'two')")
        n = await asyncio.wait_for(got.get(), 10)
        assert (n.channel, n.payload) == ("jobs done", "two")

        await listener.remove()
        assert not listener.active and not listener.connected
        assert await db.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", second) in (0, 1)
        await db.close()

    asyncio.run(main())


def test_listen_needs_postgresql(tmp_path) -> None:
    async def main() -> None:
        db = Database(f"sqlite://{tmp_path}/l.db")
        with pytest.raises(InterfaceError):
            await db.listen("x", print)
        await db.close()

    asyncio.run(main())
