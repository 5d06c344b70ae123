"""PostgreSQL statements are prepared once per connection by default (statement_cache_size), and run unnamed with
statement_cache_size=0; a cached statement whose table changed shape is prepared afresh."""

from __future__ import annotations

import asyncio

from slipstream import Database

from tests.pg_cluster import PgCluster

PREPARED = "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1"


def test_statements_are_prepared_per_connection(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        for size, expected in ((256, 1), (0, 0)):
            db = Database(pg_cluster.url, min_size=1, max_size=1, statement_cache_size=size)
            sql = f"SELECT {size} + $1::int AS v"
            for i in range(3):
                assert await db.fetchval(sql, i) == size + i
            # pg_prepared_statements shows this session's named statements (one connection: the same session).
            assert await db.fetchval(PREPARED, sql) == expected
            await db.close()

    asyncio.run(main())


def test_a_changed_table_is_prepared_again(pg_cluster: PgCluster) -> None:
    async def main() -> None:
        db = Database(pg_cluster.url, min_size=1, max_size=1)
        await db.execute("DROP TABLE IF EXISTS reshaped")
        await db.execute("CREATE TABLE reshaped (a int)")
        await db.execute("INSERT INTO reshaped VALUES (1)")
        assert [tuple(r) for r in await db.fetch("SELECT * FROM reshaped")] == [(1,)]
        await db.execute("ALTER TABLE reshaped ADD COLUMN b text DEFAULT 'x'")
        assert [tuple(r) for r in await db.fetch("SELECT * FROM reshaped")] == [(1, "x")]
        await db.close()

    asyncio.run(main())
