"""Statements from `async def` code: the query methods, a held connection (session) and its transactions."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from .. import _native
from ..responses import Response
from . import copy_out as _copy_out
from . import records as _records
from .dispatch import Completions
from .errors import DatabaseError, InFailedSQLTransactionError, InterfaceError
from .sql import quote_ident, sqlite_placeholders

_NONE = object()
_PIPELINE = 256  # executemany: statements in flight at once on one session


# PostgreSQL answers COMMIT with the tag ROLLBACK, and no error, when a statement of the transaction had failed.
_FAILED_COMMIT = "the transaction was rolled back, not committed: a statement in it had failed"


def timeout_ns(timeout: float | None) -> int:
    """A call's `timeout` in seconds -> the engine's nanoseconds (-1: the database's statement_timeout)."""
    if timeout is None:
        return -1
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return int(timeout * 1e9)


def begin_statement(sqlite: bool, isolation: str | None, readonly: bool, deferrable: bool) -> str:
    """BEGIN with PostgreSQL's transaction modes; on SQLite BEGIN IMMEDIATE (the write lock up front, so two
    writers do not deadlock on the upgrade), or a deferred BEGIN when readonly."""
    if sqlite:
        if isolation not in (None, "serializable") or deferrable:
            raise ValueError("SQLite transactions are serializable; isolation and deferrable are PostgreSQL's")
        return "BEGIN" if readonly else "BEGIN IMMEDIATE"
    parts = ["BEGIN"]
    if isolation is not None:
        levels = {
            "serializable": "SERIALIZABLE",
            "repeatable_read": "REPEATABLE READ",
            "read_committed": "READ COMMITTED",
            "read_uncommitted": "READ UNCOMMITTED",
        }
        if isolation not in levels:
            raise ValueError(f"isolation must be one of {sorted(levels)}, not {isolation!r}")
        parts.append("ISOLATION LEVEL " + levels[isolation])
    if readonly:
        parts.append("READ ONLY")
    if deferrable:
        parts.append("DEFERRABLE")
    return " ".join(parts)


class CopyPlan:
    """copy_records_to_table: the records as rows of `width` values, for PostgreSQL's COPY (`copy_sql`) or as
    multi-row INSERT statements of at most `rows_per_statement` rows (SQLite, and a held connection)."""

    def __init__(
        self, sqlite: bool, table_name: str, columns: Sequence[str] | None, schema_name: str | None, width: int
    ) -> None:
        if width < 1:
            raise ValueError("copy_records_to_table: a record must have at least one value")
        self.sqlite = sqlite
        self.columns = list(columns) if columns is not None else None
        self.width = width
        table = quote_ident(table_name)
        target = table if schema_name is None else f"{quote_ident(schema_name)}.{table}"
        self.target = target
        names = "" if columns is None else " (" + ", ".join(quote_ident(c) for c in columns) + ")"
        self.copy_sql = f"COPY {target}{names} FROM STDIN"
        self.head = f"INSERT INTO {target}{names} VALUES "
        # PostgreSQL takes 65535 parameters a statement, SQLite (before 3.32) 999.
        self.rows_per_statement = max(1, min(1000, (999 if sqlite else 32767) // width))
        self._sql: dict[int, str] = {}

    def row(self, record: Any) -> Sequence[Any]:
        if self.columns is not None and (isinstance(record, (Mapping, _records.Record))):
            values = [record[c] for c in self.columns]
        else:
            values = list(record)
        if len(values) != self.width:
            raise ValueError(f"copy_records_to_table: a record has {len(values)} values, expected {self.width}")
        return values

    def copy_data(self, records: Iterable[Any]) -> bytes:
        """The records in COPY's text format, encoded by the engine (values as row() reads them)."""
        columns = tuple(self.columns) if self.columns is not None else None
        return _native.encode_copy_records(records, self.width, columns, (Mapping, _records.Record))

    def types_query(self) -> tuple[str, tuple[Any, ...]]:
        """PostgreSQL: the statement and arguments whose rows are the type OIDs of the copied columns, in order."""
        if self.columns is None:
            return _TABLE_TYPES, (self.target,)
        return _COLUMN_TYPES, (self.target, self.columns)

    def copy(self, records: Sequence[Any], types: Sequence[Any]) -> tuple[str, bytes]:
        """(COPY statement, data): PostgreSQL's binary format when every column type has one in the engine and every
        value is of its column's own Python type (the server then parses nothing), else COPY's text format."""
        oids = [row[0] for row in types]
        if len(oids) == self.width:
            columns = tuple(self.columns) if self.columns is not None else None
            data = _native.encode_copy_records_binary(records, self.width, columns, (Mapping, _records.Record), oids)
            if data is not None:
                return self.copy_sql + " WITH (FORMAT binary)", data
        return self.copy_sql, self.copy_data(records)

    def column_types(self, types: Sequence[Any]) -> tuple[list[int], list[str]] | None:
        """The copied columns' type OIDs and names (rows of types_query()) when every type has PostgreSQL's binary
        COPY form in the engine, else None (the data then goes as COPY text)."""
        oids = [row[0] for row in types]
        if len(oids) != self.width or not all(_native.has_binary_copy_form(oid) for oid in oids):
            return None
        return oids, [row[1] for row in types]

    def sql(self, rows: int) -> str:
        text = self._sql.get(rows)
        if text is None:
            mark = "?" if self.sqlite else "$"
            groups = []
            for r in range(rows):
                base = r * self.width
                groups.append("(" + ", ".join(f"{mark}{base + c + 1}" for c in range(self.width)) + ")")
            text = self._sql[rows] = self.head + ", ".join(groups)
        return text

    def batches(self, records: Iterable[Any]) -> Iterable[tuple[str, list[Any]]]:
        """(sql, flat parameters) per statement; nothing for no records."""
        params: list[Any] = []
        rows = 0
        for record in records:
            if rows == self.rows_per_statement:
                yield self.sql(rows), params
                params, rows = [], 0
            params.extend(self.row(record))
            rows += 1
        if rows:
            yield self.sql(rows), params


# The type OIDs of a table's columns as COPY without a column list takes them (generated columns excluded), and of
# named columns in the order given (a name that is not a column yields fewer rows: COPY reports it).
_TABLE_TYPES = (
    "SELECT a.atttypid::int8, a.attname::text FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 "
    "AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum"
)
_COLUMN_TYPES = (
    "SELECT a.atttypid::int8, a.attname::text FROM json_array_elements_text($2::json) WITH ORDINALITY AS c(name, i) "
    "JOIN pg_attribute a ON a.attrelid = $1::regclass AND a.attname = c.name AND NOT a.attisdropped "
    "ORDER BY c.i"
)

_PARAMETER = re.compile(r"query parameter \$(\d+): ")


def record_error(exc: Exception, first_record: int, width: int) -> Exception:
    """A parameter error of one INSERT statement of copy_records_to_table, named by record as COPY names it
    ("record 7: query parameter $2: ...")."""
    m = _PARAMETER.match(str(exc))
    if m is None:
        return exc
    flat = int(m[1]) - 1
    text = f"record {first_record + flat // width}: query parameter ${flat % width + 1}: {str(exc)[m.end() :]}"
    return type(exc)(text)


def copy_plan(
    sqlite: bool, table_name: str, records: Iterable[Any], columns: Sequence[str] | None, schema_name: str | None
) -> tuple[CopyPlan | None, Iterable[Any]]:
    """The plan for these records (None when there are none) and the records again (the first one peeked at)."""
    it = iter(records)
    first = next(it, _NONE)
    if first is _NONE:
        return None, ()
    width = len(columns) if columns is not None else len(first)
    return CopyPlan(sqlite, table_name, columns, schema_name, width), itertools.chain((first,), it)


async def copy_records(
    queries: Any,
    native: Any,
    completions: Completions,
    sid: int,
    limit: int,
    table_name: str,
    records: Iterable[Any],
    columns: Sequence[str] | None,
    schema_name: str | None,
    timeout: float | None,
) -> str:
    """PostgreSQL copy_records_to_table through the pool (`sid` 0) or on a held connection: the column types read
    with `queries._query`, then one COPY streamed from the records (binary when every type has the form, else
    text; a list or tuple sent again as text when a value does not fit the binary form)."""
    plan, rows = copy_plan(False, table_name, records, columns, schema_name)
    if plan is None:
        return "COPY 0"
    types = (await queries._query(*plan.types_query(), timeout))[1]
    ns = timeout_ns(timeout)
    again = isinstance(records, (list, tuple))  # can be read a second time, as COPY text
    source = records if again else rows
    binary = plan.column_types(types)
    stream = functools.partial(copy_streamed, native, completions, sid, limit, plan, source, ns=ns)
    if binary is not None:
        count = await stream(plan.copy_sql + " WITH (FORMAT binary)", *binary, strict=not again)
        if count is not None:
            return f"COPY {count}"
    count = await stream(plan.copy_sql, [], [], strict=True)
    assert count is not None
    return f"COPY {count}"


async def copy_streamed(
    native: Any,
    completions: Completions,
    sid: int,
    limit: int,
    plan: CopyPlan,
    source: Iterable[Any],
    sql: str,
    oids: list[int],
    names: list[str],
    *,
    strict: bool,
    ns: int,
) -> int | None:
    """One COPY whose data the engine encodes from `source` while what it made before is sent; it waits (without
    blocking the loop) while `limit` bytes wait to be sent. None when a value did not fit the binary form and not
    `strict` (the COPY was aborted: nothing kept). An error while encoding aborts it too."""
    columns = tuple(plan.columns) if plan.columns is not None else None
    started: list[int] = []

    def start(token: int) -> None:
        started.append(token)
        native.copy_in_stream(
            token, sid, sql, ns, source, plan.width, columns, (Mapping, _records.Record), oids, names, strict, limit
        )

    done = completions.call(start, cancellable=True)
    token = started[0]
    try:
        while True:
            state = native.copy_stream_records(token)
            if state == 1 or done.done():  # all encoded, or the COPY ended early (its answer says why)
                break
            if state < 0:
                native.copy_stream_end(token, "a value has no binary form: sent as COPY text instead")
                with contextlib.suppress(DatabaseError):
                    await done
                return None
            await completions.call(lambda t: native.copy_stream_wait(token, t))
    except BaseException as exc:
        native.copy_stream_end(token, f"encoding the records failed: {type(exc).__name__}")
        with contextlib.suppress(DatabaseError, asyncio.CancelledError):
            await done
        raise
    native.copy_stream_end(token, None)
    return await done


class AsyncQueries:
    """fetch / fetchrow / fetchval / execute / fetch_json / json_response over one way of running a statement."""

    _sqlite: bool

    async def _query(self, sql: str, args: Sequence[Any], timeout: float | None) -> Any:
        raise NotImplementedError

    async def _query_json(self, sql: str, args: Sequence[Any], timeout: float | None) -> bytes:
        raise NotImplementedError

    async def _copy_out(self, copy_sql: str, timeout: float | None) -> tuple[int, bytes]:
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sqlite_placeholders(sql) if self._sqlite else sql

    async def fetch(self, sql: str, *args: Any, timeout: float | None = None) -> list[_records.Record]:
        """Every row, as Records."""
        return _records.records(await self._query(sql, args, timeout))

    async def fetchrow(self, sql: str, *args: Any, timeout: float | None = None) -> _records.Record | None:
        """The first row, or None when there is none."""
        return _records.first_record(await self._query(sql, args, timeout))

    async def fetchval(self, sql: str, *args: Any, column: int = 0, timeout: float | None = None) -> Any:
        """One value of the first row (by position, or name), or None when there is no row."""
        return _records.first_value(await self._query(sql, args, timeout), column)

    async def execute(self, sql: str, *args: Any, timeout: float | None = None) -> str:
        """Runs one statement; returns its command tag ("INSERT 0 1", "UPDATE 3", "CREATE TABLE")."""
        return _records.command_tag(await self._query(sql, args, timeout), sql)

    async def fetch_json(self, sql: str, *args: Any, timeout: float | None = None) -> bytes:
        """The rows as a JSON array of objects (UTF-8 bytes), written by the engine without Python objects."""
        return await self._query_json(sql, args, timeout)

    async def json_response(
        self,
        sql: str,
        *args: Any,
        timeout: float | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """fetch_json() as an application/json Response."""
        body = await self._query_json(sql, args, timeout)
        return Response(content=body, status_code=status_code, headers=headers, media_type="application/json")

    def _copy_stream(self, statement: Callable[[], Awaitable[str]], timeout: float | None) -> _copy_out.CopyOutStream:
        raise NotImplementedError

    def _table_statement(
        self, table_name: str, columns: Sequence[str] | None, schema_name: str | None, options: dict[str, Any]
    ) -> Callable[[], Awaitable[str]]:
        _copy_out.refuse_on_sqlite(self._sqlite)
        sql = _copy_out.table_statement(table_name, columns, schema_name, _copy_out.copy_options(**options))

        async def statement() -> str:
            return sql

        return statement

    def _query_statement(
        self, query: str, args: Sequence[Any], options: dict[str, Any]
    ) -> Callable[[], Awaitable[str]]:
        _copy_out.refuse_on_sqlite(self._sqlite)
        suffix = _copy_out.copy_options(**options)

        async def statement() -> str:
            text = await _copy_out.inline_arguments(self, query, args)
            return f"COPY ({text}) TO STDOUT{suffix}"

        return statement

    async def _copy_to(self, statement: Callable[[], Awaitable[str]], output: Any, timeout: float | None) -> Any:
        if output is None:  # the data itself: gathered in memory
            _count, data = await self._copy_out(await statement(), timeout)
            return data
        return await _copy_out.stream_to(self._copy_stream(statement, timeout), output)

    async def copy_from_table(
        self,
        table_name: str,
        *,
        output: Any = None,
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
        **options: Any,
    ) -> bytes | str:
        """PostgreSQL `COPY table TO STDOUT`: the table's rows (in `columns`) in COPY's text format, or the one
        `format=` names ("csv", "binary"), with asyncpg's options (oids, delimiter, null, header, quote, escape,
        force_quote, encoding). `output`: a path, a file-like object (its write() is called, awaited when it
        returns an awaitable) or a function or coroutine function taking bytes: each chunk is handed over as it
        arrives (a slow output holds the server back; at most `copy_buffer_size` bytes wait), and the result is
        "COPY <n>"; an error of `output` cancels the COPY. Without `output` the data itself is returned (bytes,
        gathered in memory). `copy_from_table_stream()` gives the chunks as an async iterator."""
        return await self._copy_to(self._table_statement(table_name, columns, schema_name, options), output, timeout)

    async def copy_from_query(
        self, query: str, *args: Any, output: Any = None, timeout: float | None = None, **options: Any
    ) -> bytes | str:
        """PostgreSQL `COPY (query) TO STDOUT`, as copy_from_table(). `args` are inlined as literals the server
        quotes (COPY takes no parameters; asyncpg does the same)."""
        return await self._copy_to(self._query_statement(query, args, options), output, timeout)

    def copy_from_table_stream(
        self,
        table_name: str,
        *,
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
        **options: Any,
    ) -> _copy_out.CopyOutStream:
        """copy_from_table()'s data as it arrives: `async with db.copy_from_table_stream("t") as chunks:` then
        `async for chunk in chunks` (bytes, whole rows, up to about 256 KiB each; `chunks.count` at the end).
        Leaving the block early cancels the COPY."""
        return self._copy_stream(self._table_statement(table_name, columns, schema_name, options), timeout)

    def copy_from_query_stream(
        self, query: str, *args: Any, timeout: float | None = None, **options: Any
    ) -> _copy_out.CopyOutStream:
        """copy_from_query()'s data as it arrives, as copy_from_table_stream()."""
        return self._copy_stream(self._query_statement(query, args, options), timeout)


class Connection(AsyncQueries):
    """A connection held for several statements (`Database.acquire()`, `Database.transaction()`): statements run
    in call order on the same connection. Usable only inside its `async with` block."""

    def __init__(
        self,
        native: Any,
        completions: Completions,
        sid: int,
        sqlite: bool,
        copy_buffer_size: int = _copy_out.BUFFER_BYTES,
    ) -> None:
        self._native = native
        self._completions = completions
        self._sid = sid
        self._sqlite = sqlite
        self._copy_buffer_size = copy_buffer_size
        self._depth = 0
        self._released = False

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def _check(self) -> None:
        if self._released:
            raise InterfaceError(
                "this connection was released: use it inside its `async with` block only", status="cancelled"
            )

    # A cancelled task cancels its statement on the server (inside a transaction the server then fails the
    # transaction: the `async with` block's exit rolls it back).
    async def _query(self, sql: str, args: Sequence[Any], timeout: float | None) -> Any:
        self._check()
        text, ns = self._sql(sql), timeout_ns(timeout)
        return await self._completions.call(
            lambda t: self._native.session_query(self._sid, t, text, args, ns), cancellable=True
        )

    async def _query_json(self, sql: str, args: Sequence[Any], timeout: float | None) -> bytes:
        self._check()
        text, ns = self._sql(sql), timeout_ns(timeout)
        return await self._completions.call(
            lambda t: self._native.session_fetch_json(self._sid, t, text, args, ns), cancellable=True
        )

    def _copy_stream(self, statement: Callable[[], Awaitable[str]], timeout: float | None) -> _copy_out.CopyOutStream:
        self._check()
        return _copy_out.CopyOutStream(
            self._native, self._completions, self._sid, statement, timeout_ns(timeout), self._copy_buffer_size
        )

    async def _copy_out(self, copy_sql: str, timeout: float | None) -> tuple[int, bytes]:
        self._check()
        ns = timeout_ns(timeout)
        return await self._completions.call(
            lambda t: self._native.session_copy_out(self._sid, t, copy_sql, ns), cancellable=True
        )

    def transaction(
        self, *, isolation: str | None = None, readonly: bool = False, deferrable: bool = False
    ) -> Transaction:
        """A transaction on this connection, or a SAVEPOINT inside the one already open."""
        return Transaction(self, begin_statement(self._sqlite, isolation, readonly, deferrable))

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]], *, timeout: float | None = None) -> None:
        """The statement once per parameter tuple, all or none (in a transaction, or the one already open); the
        statements are pipelined on the connection."""
        if self._depth == 0:
            async with self.transaction():
                await self._executemany(sql, args, timeout)
        else:
            await self._executemany(sql, args, timeout)

    async def _executemany(self, sql: str, args: Iterable[Sequence[Any]], timeout: float | None) -> None:
        self._check()
        text, ns = self._sql(sql), timeout_ns(timeout)
        batch: list[asyncio.Future[Any]] = []
        try:
            for row in args:
                batch.append(
                    self._completions.call(lambda t, row=row: self._native.session_query(self._sid, t, text, row, ns))
                )
                if len(batch) == _PIPELINE:
                    await _all(batch)
                    batch = []
        finally:
            if batch:  # also when a parameter failed to convert: what was sent is awaited first
                await _all(batch)

    async def copy_records_to_table(
        self,
        table_name: str,
        *,
        records: Iterable[Any],
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """Inserts `records` (tuples in `columns` order, or mappings when `columns` is given) into the table, all
        or none; returns "COPY <n>". PostgreSQL: one `COPY ... FROM STDIN` on this connection, inside its
        transaction when one is open (a failure fails that transaction); SQLite: multi-row INSERT statements in a
        transaction (or the open one)."""
        if not self._sqlite:
            return await self._copy_in(table_name, records, columns, schema_name, timeout)
        if self._depth == 0:
            async with self.transaction():
                return await self._copy(table_name, records, columns, schema_name, timeout)
        return await self._copy(table_name, records, columns, schema_name, timeout)

    async def _copy_in(
        self,
        table_name: str,
        records: Iterable[Any],
        columns: Sequence[str] | None,
        schema_name: str | None,
        timeout: float | None,
    ) -> str:
        self._check()
        if isinstance(records, (list, tuple)):
            # Encoded at once: a value that does not fit the binary form is found before anything is sent, so the
            # records go as COPY text instead without failing the transaction this connection may hold.
            plan, _rows = copy_plan(False, table_name, records, columns, schema_name)
            if plan is None:
                return "COPY 0"
            sql, data = plan.copy(records, (await self._query(*plan.types_query(), timeout))[1])
            ns = timeout_ns(timeout)
            count = await self._completions.call(
                lambda t: self._native.session_copy_in(self._sid, t, sql, data, ns), cancellable=True
            )
            return f"COPY {count}"
        return await copy_records(
            self,
            self._native,
            self._completions,
            self._sid,
            self._copy_buffer_size,
            table_name,
            records,
            columns,
            schema_name,
            timeout,
        )

    async def _copy(
        self,
        table_name: str,
        records: Iterable[Any],
        columns: Sequence[str] | None,
        schema_name: str | None,
        timeout: float | None,
    ) -> str:
        plan, rows = copy_plan(self._sqlite, table_name, records, columns, schema_name)
        if plan is None:
            return "COPY 0"
        count = 0
        ns = timeout_ns(timeout)
        width = plan.width
        for text, params in plan.batches(rows):
            self._check()
            try:
                await self._completions.call(
                    lambda t, text=text, params=params: self._native.session_query(self._sid, t, text, params, ns)
                )
            except (TypeError, ValueError) as exc:
                raise record_error(exc, count, width) from None
            count += len(params) // width
        return f"COPY {count}"

    def _release(self) -> None:
        if not self._released:
            self._released = True
            self._native.close_session(self._sid)


async def _all(futures: list[asyncio.Future[Any]]) -> None:
    results = await asyncio.gather(*futures, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


class Transaction:
    """`async with`: BEGIN (or SAVEPOINT when one is open) on enter, yielding the Connection; COMMIT (RELEASE) when
    the block ends, ROLLBACK (ROLLBACK TO SAVEPOINT) when it raises. Made by Database.transaction() (which holds a
    connection for the block) or Connection.transaction()."""

    def __init__(self, owner: Any, begin: str) -> None:
        self._owner = owner
        self._begin = begin
        self._connection: Connection | None = None
        self._savepoint: str | None = None
        self._own = False

    async def __aenter__(self) -> Connection:
        if isinstance(self._owner, Connection):
            conn = self._owner
        else:
            conn = await self._owner._acquire_connection()
            self._own = True
        try:
            if conn._depth == 0:
                await conn.execute(self._begin)
            else:
                self._savepoint = f"ss_savepoint_{conn._depth}"
                await conn.execute("SAVEPOINT " + self._savepoint)
        except BaseException:
            if self._own:
                conn._release()
            raise
        conn._depth += 1
        self._connection = conn
        return conn

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: object, tb: object) -> None:
        conn = self._connection
        assert conn is not None
        conn._depth -= 1
        try:
            if self._savepoint is not None:
                if exc_type is None:
                    await conn.execute("RELEASE SAVEPOINT " + self._savepoint)
                else:
                    await _quietly(conn, "ROLLBACK TO SAVEPOINT " + self._savepoint)
                    await _quietly(conn, "RELEASE SAVEPOINT " + self._savepoint)
            elif exc_type is None:
                if await conn.execute("COMMIT") == "ROLLBACK":
                    raise InFailedSQLTransactionError(_FAILED_COMMIT, sqlstate="25P02", status="invalid_argument")
            elif not self._own:  # a held connection goes on: roll back now (an owned one rolls back on release)
                await _quietly(conn, "ROLLBACK")
        finally:
            if self._own:
                conn._release()


async def _quietly(conn: Connection, sql: str) -> None:
    """A rollback while an exception propagates: its own failure (connection lost) must not replace that one."""
    try:
        await conn.execute(sql)
    except Exception:  # noqa: BLE001, S110 - the original exception is the one to report
        pass


class Acquire:
    """`async with db.acquire() as conn`: a Connection held for the block."""

    def __init__(self, database: Any) -> None:
        self._database = database
        self._connection: Connection | None = None

    async def __aenter__(self) -> Connection:
        self._connection = await self._database._acquire_connection()
        return self._connection

    async def __aexit__(self, *exc_info: object) -> None:
        if self._connection is not None:
            self._connection._release()
