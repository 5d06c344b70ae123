"""Database: PostgreSQL or SQLite by URL, asyncpg's method names, on the engine's own database threads.

    db = Database("postgresql://app@localhost/app")      # or "sqlite:///app.db"
    app = App(database=db)                                 # connected at startup, closed at shutdown, /readyz

    @app.get("/users/{id}")
    async def user(id: int, db: Database = Depends(get_database)):
        return await db.fetchrow("SELECT id, name FROM users WHERE id = $1", id)

Statements run on the database's thread (PostgreSQL: non-blocking libpq on its own event loop; SQLite: a pool of
worker threads); an awaiting handler gives the executor back until the answer is queued. `db.sync` has the same
methods, blocking, for `def` handlers. See python/README.md ("Database").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from . import _native
from ._database.connection import (
    Acquire,
    AsyncQueries,
    Connection,
    Transaction,
    begin_statement,
    copy_plan,
    timeout_ns,
)
from ._database.dispatch import SESSION, Completions
from ._database.errors import (
    CheckViolationError,
    ConnectionFailureError,
    ConnectionLostError,
    DatabaseError,
    DataError,
    DeadlockDetectedError,
    ForeignKeyViolationError,
    InFailedSQLTransactionError,
    IntegrityConstraintViolationError,
    InterfaceError,
    NotNullViolationError,
    PoolTimeoutError,
    PostgresSyntaxError,
    QueryCanceledError,
    QueryTimeoutError,
    SerializationError,
    SyntaxOrAccessError,
    TooManySessionsError,
    UndefinedColumnError,
    UndefinedTableError,
    UniqueViolationError,
    error_from_payload,
)
from ._database.records import Record
from ._database.sql import quote_ident
from ._database.sync import SyncConnection, SyncDatabase
from .requests import Request

__all__ = [
    "CheckViolationError",
    "Connection",
    "ConnectionFailureError",
    "ConnectionLostError",
    "DataError",
    "Database",
    "DatabaseError",
    "DeadlockDetectedError",
    "ForeignKeyViolationError",
    "InFailedSQLTransactionError",
    "IntegrityConstraintViolationError",
    "InterfaceError",
    "Listener",
    "NotNullViolationError",
    "Notification",
    "PoolTimeoutError",
    "PostgresSyntaxError",
    "QueryCanceledError",
    "QueryTimeoutError",
    "Record",
    "SerializationError",
    "SyncConnection",
    "SyntaxOrAccessError",
    "TooManySessionsError",
    "Transaction",
    "UndefinedColumnError",
    "UndefinedTableError",
    "UniqueViolationError",
    "get_database",
]


class Notification(NamedTuple):
    """One PostgreSQL NOTIFY: the channel, its payload ("" when none) and the notifying backend's process id."""

    channel: str
    payload: str
    pid: int


class Listener:
    """A LISTEN held on a connection of its own (made by Database.listen). `await remove()` or `close()` ends it
    (UNLISTEN, and the connection goes back to the pool)."""

    def __init__(self, database: Database, channel: str, token: int, sid: int) -> None:
        self._database = database
        self.channel = channel
        self._token = token
        self._sid: int | None = sid

    @property
    def active(self) -> bool:
        return self._sid is not None

    def close(self) -> None:
        sid, self._sid = self._sid, None
        if sid is not None:
            self._database._completions.remove_listener(self._token)
            self._database.native.close_session(sid)  # the session's close undoes its LISTENs
            self._database._listeners.discard(self)

    async def remove(self) -> None:
        self.close()


class Database(AsyncQueries):
    """A pool of connections to one database (`postgresql://...`, `postgres://...`, `sqlite:///abs/path`,
    `sqlite://relative/path`, `sqlite://:memory:`).

    Limits: `min_size` connections opened at start and `max_size` at most (SQLite: worker threads, at most 8);
    `acquire_timeout` (seconds) to wait for a free connection (PoolTimeoutError); `connect_timeout` per connection
    attempt; `statement_timeout` the default deadline of every statement (None: none; QueryTimeoutError);
    `max_sessions` connections held at once by transactions, acquire() and listeners (TooManySessionsError);
    `statement_cache_size` PostgreSQL statements each connection keeps prepared (parsed and planned once, as
    asyncpg's cache; 0: none, for PgBouncer in transaction mode).
    A bad URL or limit raises ValueError here; nothing connects until connect() or the first statement.
    """

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10, acquire_timeout: float = 5.0,
                 connect_timeout: float = 5.0, statement_timeout: float | None = None,
                 max_sessions: int = 64, statement_cache_size: int = 256) -> None:
        if statement_timeout is not None and not statement_timeout > 0:
            raise ValueError("statement_timeout must be a positive number of seconds (None: no deadline)")
        self.url = url
        self.native = _native.NativeDatabase(url, min_size, max_size, acquire_timeout, connect_timeout,
                                             statement_timeout or 0.0, max_sessions, statement_cache_size)
        self.backend: str = self.native.backend  # "postgresql" or "sqlite"
        self._sqlite = self.backend == "sqlite"
        self._completions = Completions(self.native)
        self._open = False
        self._listeners: set[Listener] = set()
        self.sync = SyncDatabase(self)

    def __repr__(self) -> str:
        return f"<Database {self.backend} {'open' if self._open else 'closed'}>"

    # --- lifetime ---
    def _ensure_open(self) -> None:
        if not self._open:
            error = self.native.open()
            if error is not None:
                raise error_from_payload(error)
            self._open = True

    async def connect(self) -> None:
        """Starts the pool (the App's lifespan calls it at startup). SQLite opens its file now (DatabaseError when
        it cannot); PostgreSQL connects in the background: a server that is down makes `ready` false, not this
        fail. A statement made before connect() connects first."""
        self._ensure_open()

    async def close(self) -> None:
        """Ends the listeners, closes the connections and stops the database's thread (what is still in flight
        fails with QueryCanceledError). A later statement or connect() opens it again."""
        self.close_now()

    def close_now(self) -> None:
        """close(), from synchronous code."""
        for listener in list(self._listeners):
            listener.close()
        self._open = False
        self.native.close()
        self._completions.drain()  # what close() cancelled fails now, not never
        self._completions.detach()

    async def __aenter__(self) -> Database:  # noqa: PYI034
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def ready(self) -> bool:
        """Whether the database answered the last time it was asked (false while closed, after a failed connection
        attempt or a lost connection, until a probe succeeds; SQLite: true once open)."""
        return self.native.ready()

    # --- statements ---
    async def _query(self, sql: str, args: Sequence[Any], timeout: float | None) -> Any:
        self._ensure_open()
        text, ns = self._sql(sql), timeout_ns(timeout)
        return await self._completions.call(lambda t: self.native.query(t, text, args, ns), cancellable=True)

    async def _query_json(self, sql: str, args: Sequence[Any], timeout: float | None) -> bytes:
        self._ensure_open()
        text, ns = self._sql(sql), timeout_ns(timeout)
        return await self._completions.call(lambda t: self.native.fetch_json(t, text, args, ns), cancellable=True)

    async def _acquire_connection(self) -> Connection:
        self._ensure_open()
        sid = await self._completions.call(self.native.open_session, SESSION)
        return Connection(self.native, self._completions, sid, self._sqlite)

    def acquire(self) -> Acquire:
        """`async with db.acquire() as conn`: one connection held for the block (statements in order, session
        settings, temporary tables); a transaction left open is rolled back when the block ends."""
        return Acquire(self)

    def transaction(self, *, isolation: str | None = None, readonly: bool = False,
                    deferrable: bool = False) -> Transaction:
        """`async with db.transaction() as conn`: BEGIN on a held connection; COMMIT when the block ends, ROLLBACK
        when it raises. `conn.transaction()` inside it is a SAVEPOINT. isolation: "serializable",
        "repeatable_read", "read_committed" (PostgreSQL)."""
        return Transaction(self, begin_statement(self._sqlite, isolation, readonly, deferrable))

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]], *, timeout: float | None = None) -> None:
        """The statement once per parameter tuple, in one transaction on one connection (all or none)."""
        async with self.transaction() as conn:
            await conn._executemany(sql, args, timeout)

    async def copy_records_to_table(self, table_name: str, *, records: Iterable[Any],
                                    columns: Sequence[str] | None = None, schema_name: str | None = None,
                                    timeout: float | None = None) -> str:
        """Inserts `records` into the table, all or none, and returns "COPY <n>". `records`: tuples in `columns`
        order (all the table's columns when None), or mappings/Records when `columns` is given; identifiers are
        quoted. PostgreSQL: one `COPY ... FROM STDIN` (the rows are encoded in COPY's text format at once, then streamed); SQLite:
        multi-row INSERT statements of up to 1000 rows in one transaction."""
        if self._sqlite:
            async with self.transaction() as conn:
                return await conn._copy(table_name, records, columns, schema_name, timeout)
        self._ensure_open()
        plan, rows = copy_plan(False, table_name, records, columns, schema_name)
        if plan is None:
            return "COPY 0"
        records_list = list(rows)  # encoded twice when the binary format cannot take them
        sql, data = plan.copy(records_list, (await self._query(*plan.types_query(), timeout))[1])
        ns = timeout_ns(timeout)
        count = await self._completions.call(lambda t: self.native.copy_in(t, sql, data, ns), cancellable=True)
        return f"COPY {count}"

    async def listen(self, channel: str, callback: Callable[[Notification], Any]) -> Listener:
        """PostgreSQL LISTEN on a connection of its own: `callback(Notification)` (a function or a coroutine
        function, run on this event loop) for every NOTIFY on `channel` until the Listener is removed."""
        if self._sqlite:
            raise InterfaceError("listen() needs PostgreSQL (LISTEN/NOTIFY)", status="invalid_argument")
        conn = await self._acquire_connection()
        token = self._completions.add_listener(lambda payload: callback(Notification(*payload)))
        listener = Listener(self, channel, token, conn._sid)
        try:
            self.native.session_listen(conn._sid, token)
            await conn.execute("LISTEN " + quote_ident(channel))
        except BaseException:
            listener.close()
            raise
        self._listeners.add(listener)
        return listener


def get_database(request: Request) -> Database:
    """The dependency of the app's database: `db: Database = Depends(get_database)` (App(database=...))."""
    database = getattr(request.app, "database", None)
    if database is None:
        raise RuntimeError("the app has no database: pass App(database=...)")
    return database
