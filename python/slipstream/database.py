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

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, NamedTuple

from . import _native
from ._database.connection import (
    Acquire,
    AsyncQueries,
    Connection,
    Transaction,
    begin_statement,
    copy_records,
    timeout_ns,
)
from ._database.copy_out import BUFFER_BYTES, CopyOutStream
from ._database.dispatch import LISTENER, SESSION, Completions
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
from ._database.sync import SyncConnection, SyncDatabase
from .requests import Request

logger = logging.getLogger("slipstream.error")

__all__ = [
    "CheckViolationError",
    "Connection",
    "ConnectionFailureError",
    "ConnectionLostError",
    "CopyOutStream",
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
    """A LISTEN on a connection of its own (made by Database.listen). When that connection is lost (the server
    restarted, the backend was terminated) it reconnects (after 0.1 s, doubling up to 5 s between attempts),
    LISTENs again, counts `reconnects` and calls `on_reconnect(listener)`: NOTIFYs sent meanwhile may have been
    missed, so re-read what you watch there. `await remove()` or `close()` ends it (the connection closes)."""

    def __init__(
        self,
        database: Database,
        channel: str,
        callback: Callable[[Notification], Any],
        on_reconnect: Callable[[Listener], Any] | None,
    ) -> None:
        self._database = database
        self.channel = channel
        self._callback = callback
        self._token = database._completions.add_listener(self._event)
        self._lid: int | None = None
        self._on_reconnect = on_reconnect
        self.reconnects = 0

    @property
    def active(self) -> bool:
        return self._lid is not None

    @property
    def connected(self) -> bool:
        """Connected and LISTENing now (false while reconnecting, and once removed)."""
        return self._lid is not None and self._database.native.listener_connected(self._lid)

    def _event(self, payload: tuple[Any, ...]) -> Any:
        if len(payload) == 3:
            return self._callback(Notification(*payload))
        kind, why = payload
        if kind == "connection_lost":
            logger.warning("Database listener on %r lost its connection (%s); reconnecting", self.channel, why)
            return None
        self.reconnects += 1
        if self._on_reconnect is not None:
            return self._on_reconnect(self)
        return None

    def close(self) -> None:
        lid, self._lid = self._lid, None
        self._database._completions.remove_listener(self._token)
        if lid is not None:
            self._database.native.close_listener(lid)
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
    asyncpg's cache; 0: none, for PgBouncer in transaction mode); `copy_buffer_size` bytes of COPY data at most
    waiting between Python and the connection (copy_records_to_table's encoded records, copy_from_table's data not
    yet consumed; default 4 MiB).
    A bad URL or limit raises ValueError here; nothing connects until connect() or the first statement.
    """

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        acquire_timeout: float = 5.0,
        connect_timeout: float = 5.0,
        statement_timeout: float | None = None,
        max_sessions: int = 64,
        statement_cache_size: int = 256,
        copy_buffer_size: int = BUFFER_BYTES,
    ) -> None:
        if statement_timeout is not None and not statement_timeout > 0:
            raise ValueError("statement_timeout must be a positive number of seconds (None: no deadline)")
        if not isinstance(copy_buffer_size, int) or copy_buffer_size < 64 * 1024:
            raise ValueError("copy_buffer_size must be an int of at least 65536 bytes")
        self.copy_buffer_size = copy_buffer_size
        self.url = url
        self.native = _native.NativeDatabase(
            url,
            min_size,
            max_size,
            acquire_timeout,
            connect_timeout,
            statement_timeout or 0.0,
            max_sessions,
            statement_cache_size,
        )
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

    async def _copy_out(self, copy_sql: str, timeout: float | None) -> tuple[int, bytes]:
        self._ensure_open()
        ns = timeout_ns(timeout)
        return await self._completions.call(lambda t: self.native.copy_out(t, copy_sql, ns), cancellable=True)

    def _copy_stream(self, statement: Callable[[], Awaitable[str]], timeout: float | None) -> CopyOutStream:
        self._ensure_open()
        return CopyOutStream(self.native, self._completions, 0, statement, timeout_ns(timeout), self.copy_buffer_size)

    async def _acquire_connection(self) -> Connection:
        self._ensure_open()
        sid = await self._completions.call(self.native.open_session, SESSION)
        return Connection(self.native, self._completions, sid, self._sqlite, self.copy_buffer_size)

    def acquire(self) -> Acquire:
        """`async with db.acquire() as conn`: one connection held for the block (statements in order, session
        settings, temporary tables); a transaction left open is rolled back when the block ends."""
        return Acquire(self)

    def transaction(
        self, *, isolation: str | None = None, readonly: bool = False, deferrable: bool = False
    ) -> Transaction:
        """`async with db.transaction() as conn`: BEGIN on a held connection; COMMIT when the block ends, ROLLBACK
        when it raises. `conn.transaction()` inside it is a SAVEPOINT. isolation: "serializable",
        "repeatable_read", "read_committed" (PostgreSQL)."""
        return Transaction(self, begin_statement(self._sqlite, isolation, readonly, deferrable))

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]], *, timeout: float | None = None) -> None:
        """The statement once per parameter tuple, in one transaction on one connection (all or none)."""
        async with self.transaction() as conn:
            await conn._executemany(sql, args, timeout)

    async def copy_records_to_table(
        self,
        table_name: str,
        *,
        records: Iterable[Any],
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """Inserts `records` into the table, all or none, and returns "COPY <n>". `records`: tuples in `columns`
        order (all the table's columns when None), or mappings/Records when `columns` is given; identifiers are
        quoted. PostgreSQL: one `COPY ... FROM STDIN`, encoded by the engine piece by piece while the pieces before
        are sent (at most `copy_buffer_size` bytes waiting: any number of records, from a generator too, in bounded
        memory), in the binary format when every column type has one (COPY text otherwise). A value the binary form
        does not take (a str for an int column, say): records given as a list or tuple are sent again as COPY text,
        where the server judges the value; from an iterator that cannot be read twice, a TypeError names the record
        and the column. SQLite: multi-row INSERT statements of up to 1000 rows in one transaction."""
        if self._sqlite:
            async with self.transaction() as conn:
                return await conn._copy(table_name, records, columns, schema_name, timeout)
        self._ensure_open()
        return await copy_records(
            self,
            self.native,
            self._completions,
            0,
            self.copy_buffer_size,
            table_name,
            records,
            columns,
            schema_name,
            timeout,
        )

    async def listen(
        self,
        channel: str,
        callback: Callable[[Notification], Any],
        *,
        on_reconnect: Callable[[Listener], Any] | None = None,
    ) -> Listener:
        """PostgreSQL LISTEN on a connection of its own: `callback(Notification)` (a function or a coroutine
        function, run on this event loop) for every NOTIFY on `channel` until the Listener is removed. A lost
        connection is re-opened and LISTENs again; then `on_reconnect(listener)` runs (same kinds of function):
        notifications sent while it was away may have been missed."""
        if self._sqlite:
            raise InterfaceError("listen() needs PostgreSQL (LISTEN/NOTIFY)", status="invalid_argument")
        self._ensure_open()
        listener = Listener(self, channel, callback, on_reconnect)
        try:
            listener._lid = await self._completions.call(
                lambda t: self.native.open_listener(t, listener._token), LISTENER
            )
            await self._completions.call(lambda t: self.native.listener_listen(listener._lid, t, channel, True))
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
