"""The Database API on both backends (a fresh SQLite file, the session's PostgreSQL cluster): values both ways,
command tags, typed errors, transactions and savepoints, executemany, copy_records_to_table, injection attempts,
and the App integration (lifespan, get_database, fetch_json responses, `def` handlers through `db.sync`)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated, Any

import pytest
from slipstream import App, Database, Depends, Response, TestClient, get_database
from slipstream.database import (
    DataError,
    ForeignKeyViolationError,
    InterfaceError,
    PostgresSyntaxError,
    UndefinedTableError,
    UniqueViolationError,
)

DB = Annotated[Database, Depends(get_database)]


def unique_name() -> str:
    return "t_" + uuid.uuid4().hex[:12]


def ddl(db: Database, table: str) -> str:
    """A table with one column of each kind both backends type the same way."""
    binary, json_type = ("BLOB", "JSON") if db.backend == "sqlite" else ("BYTEA", "JSONB")
    return (f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, i BIGINT, f DOUBLE PRECISION, s TEXT, b {binary}, "
            f"ok BOOLEAN, j {json_type})")


def test_values_round_trip_both_ways_with_nulls(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        await db.execute(ddl(db, t))
        values = (1, -(2**63), 0.1, "héllo ✓ 'quoted'", b"\x00\xff\x01", True, {"a": [1, None, "x"], "b": 1.5})
        await db.execute(f"INSERT INTO {t} (id, i, f, s, b, ok, j) VALUES ($1, $2, $3, $4, $5, $6, $7)", *values)
        await db.execute(f"INSERT INTO {t} (id, i, f, s, b, ok, j) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                         2, None, None, None, None, None, None)
        await db.execute(f"INSERT INTO {t} (id, i, ok, b) VALUES ($1, $2, $3, $4)", 3, 2**63 - 1, False,
                         bytearray(b"ba"))
        rows = await db.fetch(f"SELECT id, i, f, s, b, ok, j FROM {t} ORDER BY id")
        assert [tuple(r) for r in rows] == [
            values,
            (2, None, None, None, None, None, None),
            (3, 2**63 - 1, None, None, b"ba", False, None),
        ]
        assert type(rows[0]["i"]) is int and type(rows[0]["f"]) is float and type(rows[0]["ok"]) is bool
        assert await db.fetchval(f"SELECT b FROM {t} WHERE b = $1", memoryview(b"ba")) == b"ba"
        await db.close()

    asyncio.run(main())


def test_fetch_methods_and_records(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        await db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)")
        await db.executemany(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", [(1, "a"), (2, "b")])
        rows = await db.fetch(f"SELECT id, name FROM {t} ORDER BY id")
        assert [dict(r) for r in rows] == [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]
        assert rows[1]["name"] == "b" and rows[1][0] == 2 and list(rows[1].keys()) == ["id", "name"]
        row = await db.fetchrow(f"SELECT id, name FROM {t} WHERE id = $1", 2)
        assert row is not None and repr(row) == "<Record id=2 name='b'>"
        assert await db.fetchrow(f"SELECT id FROM {t} WHERE id = $1", 9) is None
        assert await db.fetchval(f"SELECT id, name FROM {t} WHERE id = $1", 1, column=1) == "a"
        assert await db.fetchval(f"SELECT name FROM {t} WHERE id = $1", 9) is None
        assert await db.fetch(f"SELECT id FROM {t} WHERE id > $1", 5) == []
        # Parameters out of order: SQLite reads `$n` as PostgreSQL does.
        assert tuple(await db.fetchrow("SELECT $2 AS x, $1 AS y", "one", "two")) == ("two", "one")
        await db.close()

    asyncio.run(main())


def test_execute_returns_command_tags(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        assert await db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, n INTEGER)") == "CREATE TABLE"
        assert await db.execute(f"INSERT INTO {t} (id, n) VALUES (1, 0), (2, 0), (3, 1)") == "INSERT 0 3"
        assert await db.execute(f"UPDATE {t} SET n = n + 1 WHERE n = $1", 0) == "UPDATE 2"
        assert await db.execute(f"DELETE FROM {t} WHERE id = $1", 3) == "DELETE 1"
        assert await db.execute(f"SELECT * FROM {t}") == "SELECT 2"
        await db.close()

    asyncio.run(main())


def test_errors_are_typed(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        parent, child = unique_name(), unique_name()
        await db.execute(f"CREATE TABLE {parent} (id INTEGER PRIMARY KEY)")
        await db.execute(f"CREATE TABLE {child} (id INTEGER PRIMARY KEY, p INTEGER REFERENCES {parent} (id))")
        await db.execute(f"INSERT INTO {parent} (id) VALUES (1)")
        with pytest.raises(UniqueViolationError) as unique:
            await db.execute(f"INSERT INTO {parent} (id) VALUES ($1)", 1)
        with pytest.raises(ForeignKeyViolationError):
            await db.execute(f"INSERT INTO {child} (id, p) VALUES (1, $1)", 2)
        with pytest.raises(PostgresSyntaxError) as syntax:
            await db.execute("SELECT 1 FROM WHERE")
        if db.backend == "postgresql":
            assert unique.value.sqlstate == "23505"
            assert unique.value.detail == "Key (id)=(1) already exists."
            assert (syntax.value.sqlstate, syntax.value.position) == ("42601", 15)
            with pytest.raises(UndefinedTableError):
                await db.execute("SELECT * FROM no_such_table")
        else:
            assert unique.value.message == f"UNIQUE constraint failed: {parent}.id"
            assert syntax.value.message == 'near "WHERE": syntax error'
            assert syntax.value.position == 15
        assert await db.fetchval(f"SELECT count(*) FROM {parent}") == 1  # the database goes on
        await db.close()

    asyncio.run(main())


def test_transaction_commits_and_rolls_back_on_exception(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        await db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY)")
        async with db.transaction() as conn:
            assert conn.in_transaction
            await conn.execute(f"INSERT INTO {t} (id) VALUES (1)")
            assert await conn.fetchval(f"SELECT count(*) FROM {t}") == 1
        with pytest.raises(RuntimeError, match="boom"):
            async with db.transaction() as conn:
                await conn.execute(f"INSERT INTO {t} (id) VALUES (2)")
                raise RuntimeError("boom")
        with pytest.raises(UniqueViolationError):
            async with db.transaction() as conn:
                await conn.execute(f"INSERT INTO {t} (id) VALUES (3)")
                await conn.execute(f"INSERT INTO {t} (id) VALUES (1)")
        assert [r["id"] for r in await db.fetch(f"SELECT id FROM {t} ORDER BY id")] == [1]
        with pytest.raises(InterfaceError, match="released"):
            await conn.execute("SELECT 1")
        await db.close()

    asyncio.run(main())


def test_nested_transaction_is_a_savepoint(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        await db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY)")
        async with db.transaction() as conn:
            await conn.execute(f"INSERT INTO {t} (id) VALUES (1)")
            with pytest.raises(ValueError, match="inner"):
                async with conn.transaction() as inner:
                    assert inner is conn
                    await conn.execute(f"INSERT INTO {t} (id) VALUES (2)")
                    raise ValueError("inner")
            async with conn.transaction():
                await conn.execute(f"INSERT INTO {t} (id) VALUES (3)")
                async with conn.transaction():
                    await conn.execute(f"INSERT INTO {t} (id) VALUES (4)")
        assert [r["id"] for r in await db.fetch(f"SELECT id FROM {t} ORDER BY id")] == [1, 3, 4]
        # The outer transaction rolled back takes its committed savepoints with it.
        with pytest.raises(KeyError):
            async with db.transaction() as conn:
                async with conn.transaction():
                    await conn.execute(f"INSERT INTO {t} (id) VALUES (5)")
                raise KeyError("outer")
        assert await db.fetchval(f"SELECT count(*) FROM {t}") == 3
        await db.close()

    asyncio.run(main())


def test_executemany_is_all_or_nothing(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        await db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)")
        await db.executemany(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", ((i, f"n{i}") for i in range(600)))
        assert await db.fetchval(f"SELECT count(*) FROM {t}") == 600
        with pytest.raises(UniqueViolationError):
            await db.executemany(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", [(1000, "a"), (5, "dup"), (1001, "b")])
        with pytest.raises(TypeError, match=r"\$2"):
            await db.executemany(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", [(2000, "a"), (2001, object())])
        assert await db.fetchval(f"SELECT count(*) FROM {t}") == 600
        async with db.acquire() as conn:  # on a held connection, inside its own transaction
            await conn.executemany(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", [(700, "x"), (701, "y")])
            assert not conn.in_transaction
        assert await db.fetchval(f"SELECT count(*) FROM {t}") == 602
        db.sync.executemany(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", [(800, "s")])
        assert db.sync.fetchval(f"SELECT name FROM {t} WHERE id = $1", 800) == "s"
        await db.close()

    asyncio.run(main())


def test_copy_records_to_table(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        table = 'we"ird ' + unique_name()
        quoted = '"' + table.replace('"', '""') + '"'
        await db.execute(f'CREATE TABLE {quoted} (id INTEGER PRIMARY KEY, "the name" TEXT, score DOUBLE PRECISION)')
        rows = [(i, f"name {i}", i / 4) for i in range(2500)]  # several statements
        assert await db.copy_records_to_table(table, records=rows) == "COPY 2500"
        assert await db.fetchval(f"SELECT count(*) FROM {quoted}") == 2500
        assert tuple(await db.fetchrow(f'SELECT id, "the name", score FROM {quoted} WHERE id = 2499')) == (
            2499, "name 2499", 624.75)
        more = [{"the name": "m1", "id": 3000}, {"id": 3001, "the name": "m2"}]
        assert await db.copy_records_to_table(table, records=more, columns=["id", "the name"]) == "COPY 2"
        assert await db.fetchval(f'SELECT "the name" FROM {quoted} WHERE id = 3001') == "m2"
        assert await db.copy_records_to_table(table, records=[]) == "COPY 0"
        with pytest.raises(UniqueViolationError):
            await db.copy_records_to_table(table, records=[(4000, "new", 0.0), (1, "dup", 0.0)])
        with pytest.raises(ValueError, match="expected 3"):
            await db.copy_records_to_table(table, records=[(4001, "a", 0.0), (4002, "short")])
        assert await db.fetchval(f"SELECT count(*) FROM {quoted}") == 2502
        with pytest.raises(TypeError, match=r"record 1: query parameter \$3: object values are not supported"):
            await db.copy_records_to_table(table, records=[(4003, "a", 0.0), (4004, "b", object())])
        if db.backend == "postgresql":  # COPY refuses the row; SQLite's dynamic typing would store the text
            with pytest.raises(DataError, match="invalid input syntax for type integer"):
                await db.copy_records_to_table(table, records=[(4005, "a", 0.0), ("not a number", "b", 0.0)])
        assert await db.fetchval(f"SELECT count(*) FROM {quoted}") == 2502
        assert db.sync.copy_records_to_table(table, records=[(5000, "sync", 1.0)]) == "COPY 1"
        # On a held connection (INSERT statements there), inside the transaction that is open.
        with pytest.raises(RuntimeError):
            async with db.transaction() as conn:
                assert await conn.copy_records_to_table(table, records=[(6000, "tx", 0.0)]) == "COPY 1"
                assert await conn.fetchval(f"SELECT count(*) FROM {quoted} WHERE id = 6000") == 1
                raise RuntimeError("roll back")
        assert await db.fetchval(f"SELECT count(*) FROM {quoted}") == 2503
        await db.close()

    asyncio.run(main())


def test_sql_injection_through_parameters_stays_data(database_url: str) -> None:
    async def main() -> None:
        db = Database(database_url)
        t = unique_name()
        await db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)")
        attacks = ["'; DROP TABLE " + t + "; --", "' OR '1'='1", "$1", "?1", "1); DELETE FROM " + t + " --",
                   "\\'; SELECT 1; --", '"; DROP TABLE x; --']
        for i, text in enumerate(attacks):
            await db.execute(f"INSERT INTO {t} (id, name) VALUES ($1, $2)", i, text)
        assert [r["name"] for r in await db.fetch(f"SELECT name FROM {t} ORDER BY id")] == attacks
        assert await db.fetch(f"SELECT id FROM {t} WHERE name = $1", "' OR '1'='1' --x") == []
        assert await db.fetchval(f"SELECT id FROM {t} WHERE name = $1", "' OR '1'='1") == 1
        assert await db.fetchval(f"SELECT count(*) FROM {t}") == len(attacks)
        with pytest.raises(ValueError, match="invalid SQL identifier"):
            await db.copy_records_to_table("bad\x00name", records=[(1,)])
        await db.close()

    asyncio.run(main())


def test_one_database_on_successive_event_loops(database_url: str) -> None:
    db = Database(database_url)
    assert asyncio.run(db.fetchval("SELECT $1::text || 'x'" if db.backend == "postgresql" else "SELECT $1 || 'x'",
                                   "a")) == "ax"
    assert asyncio.run(db.fetchval("SELECT 2")) == 2  # the eventfd watch moved to the new loop
    db.close_now()
    assert asyncio.run(db.fetchval("SELECT 3")) == 3  # a statement after close() opens it again
    db.close_now()


# --- The App ---

def make_app(url: str, table: str) -> App:
    app = App(database=url)

    @app.on_event("startup")
    async def create() -> None:  # the database is open before the lifespan runs
        await app.database.execute(f"CREATE TABLE IF NOT EXISTS {table} (id INTEGER PRIMARY KEY, name TEXT)")
        await app.database.execute(f"DELETE FROM {table}")
        await app.database.executemany(f"INSERT INTO {table} (id, name) VALUES ($1, $2)", [(1, "a"), (2, "b")])

    @app.get("/items")
    async def items(db: DB) -> Response:
        return await db.json_response(f"SELECT id, name FROM {table} ORDER BY id")

    @app.get("/raw")
    async def raw(db: DB) -> Response:
        return Response(await db.fetch_json(f"SELECT name FROM {table} WHERE id = $1", 2),
                        media_type="application/json")

    @app.get("/item/{item_id}")
    async def item(item_id: int, db: DB) -> Any:
        row = await db.fetchrow(f"SELECT id, name FROM {table} WHERE id = $1", item_id)
        return dict(row) if row is not None else None

    @app.post("/sync/{name}")
    def add_sync(name: str, db: DB) -> Any:
        with db.sync.transaction() as conn:
            new_id = conn.fetchval(f"SELECT max(id) + 1 FROM {table}")
            conn.execute(f"INSERT INTO {table} (id, name) VALUES ($1, $2)", new_id, name)
        return {"id": new_id, "count": db.sync.fetchval(f"SELECT count(*) FROM {table}")}

    @app.get("/broken")
    async def broken(db: DB) -> Any:
        return await db.fetch("SELECT secret_column FROM secret_table WHERE password = 'hunter2'")

    return app


def test_app_serves_database_rows(database_url: str) -> None:
    table = unique_name()
    app = make_app(database_url, table)
    assert isinstance(app.database, Database) and not app.database.native.is_open
    with TestClient(app, raise_server_exceptions=False) as client:
        assert app.database.native.is_open and app.database.ready
        r = client.get("/items")
        assert (r.status_code, r.headers["content-type"], r.content) == (
            200, "application/json", b'[{"id":1,"name":"a"},{"id":2,"name":"b"}]')
        r = client.get("/raw")
        assert (r.status_code, r.content) == (200, b'[{"name":"b"}]')
        assert client.get("/item/1").json() == {"id": 1, "name": "a"}
        assert client.get("/item/9").json() is None
        assert client.post("/sync/c").json() == {"id": 3, "count": 3}
        r = client.get("/broken")
        assert (r.status_code, r.text) == (500, "Internal Server Error")  # no SQL text, no server message
    assert not app.database.native.is_open and not app.database.ready


def test_app_takes_a_database_object_and_overrides(database_url: str, tmp_path: Any) -> None:
    db = Database(database_url, max_size=2)
    app = App(database=db)
    other = Database(f"sqlite://{tmp_path}/other.db")

    @app.get("/which")
    async def which(d: DB) -> Any:
        return d.backend + (" other" if d is other else "")

    with TestClient(app) as client:
        assert app.database is db
        assert client.get("/which").json() == db.backend
        app.dependency_overrides[get_database] = lambda: other
        assert client.get("/which").json() == "sqlite other"
    other.close_now()


def test_get_database_without_a_database_is_an_error() -> None:
    app = App()

    @app.get("/x")
    async def x(db: DB) -> Any:
        return 1

    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/x").status_code == 500


def test_two_event_loops_at_once(database_url: str) -> None:
    """The executor's loop watches the eventfd; a statement from another thread's loop is answered there."""
    app = App(database=database_url)

    @app.get("/value/{n}")
    async def value(n: int, db: DB) -> Any:
        return await db.fetchval("SELECT $1 + 1", n)

    with TestClient(app) as client:
        assert client.get("/value/1").json() == 2  # the executor's loop now watches

        async def elsewhere() -> list[int]:
            return list(await asyncio.gather(*(app.database.fetchval("SELECT $1 * 2", i) for i in range(20))))

        assert asyncio.run(elsewhere()) == [i * 2 for i in range(20)]
        assert client.get("/value/5").json() == 6
