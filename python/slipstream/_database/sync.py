"""Statements from `def` code (`db.sync`): the same methods, blocking; the GIL is released while they wait.

A `def` handler runs on the engine's executor thread: while it waits here no other Python handler runs. Use these
from `def` handlers that must stay synchronous, scripts and tests; prefer the `async` methods in handlers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..responses import Response
from . import copy_out as _copy_out
from . import records as _records
from .connection import _FAILED_COMMIT, begin_statement, copy_plan, record_error, timeout_ns
from .errors import InFailedSQLTransactionError, InterfaceError, error_from_payload
from .sql import sqlite_placeholders


def _answer(result: tuple[bool, Any]) -> Any:
    ok, payload = result
    if not ok:
        raise error_from_payload(payload)
    return payload


class SyncQueries:
    """fetch / fetchrow / fetchval / execute / fetch_json / json_response, blocking."""

    _sqlite: bool

    def _query(self, sql: str, args: Sequence[Any], timeout: float | None) -> Any:
        raise NotImplementedError

    def _query_json(self, sql: str, args: Sequence[Any], timeout: float | None) -> bytes:
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sqlite_placeholders(sql) if self._sqlite else sql

    def fetch(self, sql: str, *args: Any, timeout: float | None = None) -> list[_records.Record]:
        return _records.records(self._query(sql, args, timeout))

    def fetchrow(self, sql: str, *args: Any, timeout: float | None = None) -> _records.Record | None:
        return _records.first_record(self._query(sql, args, timeout))

    def fetchval(self, sql: str, *args: Any, column: int = 0, timeout: float | None = None) -> Any:
        return _records.first_value(self._query(sql, args, timeout), column)

    def execute(self, sql: str, *args: Any, timeout: float | None = None) -> str:
        return _records.command_tag(self._query(sql, args, timeout), sql)

    def fetch_json(self, sql: str, *args: Any, timeout: float | None = None) -> bytes:
        return self._query_json(sql, args, timeout)

    def json_response(
        self,
        sql: str,
        *args: Any,
        timeout: float | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        body = self._query_json(sql, args, timeout)
        return Response(content=body, status_code=status_code, headers=headers, media_type="application/json")

    def _copy_out(self, copy_sql: str, timeout: float | None) -> tuple[int, bytes]:
        raise NotImplementedError

    def _copy_out_to(self, copy_sql: str, write: Any, timeout: float | None) -> int:
        raise NotImplementedError

    def _copy_to(self, sql: str, output: Any, timeout: float | None) -> bytes | str:
        """The data itself (output None, gathered), or each chunk to `output` as it arrives: "COPY <n>"."""
        if output is None:
            return self._copy_out(sql, timeout)[1]
        if isinstance(output, (str, bytes, os.PathLike)):
            with open(os.fspath(output), "wb") as f:
                return self._copy_to(sql, f, timeout)
        write = output.write if hasattr(output, "write") else output
        if not callable(write):
            raise TypeError("output must be None, a path, a file-like object or a function")
        return f"COPY {self._copy_out_to(sql, write, timeout)}"

    def copy_from_table(
        self,
        table_name: str,
        *,
        output: Any = None,
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
        **options: Any,
    ) -> bytes | str:
        """The async copy_from_table(), blocking; `output` may be a path, a file-like object or a function, each
        chunk handed over as it arrives (the GIL released while waiting; an exception of `output` cancels the COPY
        and is raised)."""
        _copy_out.refuse_on_sqlite(self._sqlite)
        sql = _copy_out.table_statement(table_name, columns, schema_name, _copy_out.copy_options(**options))
        return self._copy_to(sql, output, timeout)

    def copy_from_query(
        self, query: str, *args: Any, output: Any = None, timeout: float | None = None, **options: Any
    ) -> bytes | str:
        """The async copy_from_query(), blocking."""
        _copy_out.refuse_on_sqlite(self._sqlite)
        if args:
            quoted = self.fetchrow(_copy_out.arguments_query(len(args)), *args)
            assert quoted is not None
            query = _copy_out.substitute(query, list(quoted))
        return self._copy_to(f"COPY ({query}) TO STDOUT{_copy_out.copy_options(**options)}", output, timeout)


class SyncConnection(SyncQueries):
    """A held connection for blocking code (`db.sync.transaction()`, `db.sync.acquire()`)."""

    def __init__(self, native: Any, sid: int, sqlite: bool, copy_buffer_size: int = _copy_out.BUFFER_BYTES) -> None:
        self._native = native
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
                "this connection was released: use it inside its `with` block only", status="cancelled"
            )

    def _query(self, sql: str, args: Sequence[Any], timeout: float | None) -> Any:
        self._check()
        return _answer(self._native.session_query_blocking(self._sid, self._sql(sql), args, timeout_ns(timeout)))

    def _query_json(self, sql: str, args: Sequence[Any], timeout: float | None) -> bytes:
        self._check()
        return _answer(self._native.session_fetch_json_blocking(self._sid, self._sql(sql), args, timeout_ns(timeout)))

    def transaction(
        self, *, isolation: str | None = None, readonly: bool = False, deferrable: bool = False
    ) -> SyncTransaction:
        return SyncTransaction(self, begin_statement(self._sqlite, isolation, readonly, deferrable))

    def executemany(self, sql: str, args: Iterable[Sequence[Any]], *, timeout: float | None = None) -> None:
        """Once per parameter tuple, all or none; one statement after the other."""
        if self._depth == 0:
            with self.transaction():
                self._executemany(sql, args, timeout)
        else:
            self._executemany(sql, args, timeout)

    def _executemany(self, sql: str, args: Iterable[Sequence[Any]], timeout: float | None) -> None:
        for row in args:
            self._query(sql, row, timeout)

    def copy_records_to_table(
        self,
        table_name: str,
        *,
        records: Iterable[Any],
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
    ) -> str:
        if not self._sqlite:  # one COPY on this connection, inside its transaction when one is open
            plan, rows = copy_plan(False, table_name, records, columns, schema_name)
            if plan is None:
                return "COPY 0"
            records_list = list(rows)
            types_sql, types_args = plan.types_query()
            sql, data = plan.copy(records_list, self.fetch(types_sql, *types_args, timeout=timeout))
            self._check()
            return f"COPY {_answer(self._native.session_copy_in_blocking(self._sid, sql, data, timeout_ns(timeout)))}"
        if self._depth == 0:
            with self.transaction():
                return self._copy(table_name, records, columns, schema_name, timeout)
        return self._copy(table_name, records, columns, schema_name, timeout)

    def _copy(
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
        for text, params in plan.batches(rows):
            self._check()
            try:
                _answer(self._native.session_query_blocking(self._sid, text, params, timeout_ns(timeout)))
            except (TypeError, ValueError) as exc:
                raise record_error(exc, count, plan.width) from None
            count += len(params) // plan.width
        return f"COPY {count}"

    def _copy_out(self, copy_sql: str, timeout: float | None) -> tuple[int, bytes]:
        self._check()
        return _answer(self._native.copy_out_blocking(self._sid, copy_sql, timeout_ns(timeout)))

    def _copy_out_to(self, copy_sql: str, write: Any, timeout: float | None) -> int:
        self._check()
        ns = timeout_ns(timeout)
        return _answer(self._native.copy_out_to_blocking(self._sid, copy_sql, ns, self._copy_buffer_size, write))

    def _release(self) -> None:
        if not self._released:
            self._released = True
            self._native.close_session(self._sid)


class SyncTransaction:
    """`with`: BEGIN / SAVEPOINT, COMMIT / RELEASE, ROLLBACK on an exception (see connection.Transaction)."""

    def __init__(self, owner: Any, begin: str) -> None:
        self._owner = owner
        self._begin = begin
        self._connection: SyncConnection | None = None
        self._savepoint: str | None = None
        self._own = False

    def __enter__(self) -> SyncConnection:
        if isinstance(self._owner, SyncConnection):
            conn = self._owner
        else:
            conn = self._owner._acquire_connection()
            self._own = True
        try:
            if conn._depth == 0:
                conn.execute(self._begin)
            else:
                self._savepoint = f"ss_savepoint_{conn._depth}"
                conn.execute("SAVEPOINT " + self._savepoint)
        except BaseException:
            if self._own:
                conn._release()
            raise
        conn._depth += 1
        self._connection = conn
        return conn

    def __exit__(self, exc_type: type[BaseException] | None, exc: object, tb: object) -> None:
        conn = self._connection
        assert conn is not None
        conn._depth -= 1
        try:
            if self._savepoint is not None:
                if exc_type is None:
                    conn.execute("RELEASE SAVEPOINT " + self._savepoint)
                else:
                    _quietly(conn, "ROLLBACK TO SAVEPOINT " + self._savepoint)
                    _quietly(conn, "RELEASE SAVEPOINT " + self._savepoint)
            elif exc_type is None:
                if conn.execute("COMMIT") == "ROLLBACK":
                    raise InFailedSQLTransactionError(_FAILED_COMMIT, sqlstate="25P02", status="invalid_argument")
            elif not self._own:
                _quietly(conn, "ROLLBACK")
        finally:
            if self._own:
                conn._release()


def _quietly(conn: SyncConnection, sql: str) -> None:
    try:
        conn.execute(sql)
    except Exception:  # noqa: BLE001, S110 - the exception already propagating is the one to report
        pass


class SyncAcquire:
    def __init__(self, database: Any) -> None:
        self._database = database
        self._connection: SyncConnection | None = None

    def __enter__(self) -> SyncConnection:
        self._connection = self._database._acquire_connection()
        return self._connection

    def __exit__(self, *exc_info: object) -> None:
        if self._connection is not None:
            self._connection._release()


class SyncDatabase(SyncQueries):
    """`Database.sync`: the database's statements, blocking."""

    def __init__(self, database: Any) -> None:
        self._database = database
        self._native = database.native
        self._sqlite = database.backend == "sqlite"
        self._copy_buffer_size = database.copy_buffer_size

    def _query(self, sql: str, args: Sequence[Any], timeout: float | None) -> Any:
        self._database._ensure_open()
        return _answer(self._native.query_blocking(self._sql(sql), args, timeout_ns(timeout)))

    def _query_json(self, sql: str, args: Sequence[Any], timeout: float | None) -> bytes:
        self._database._ensure_open()
        return _answer(self._native.fetch_json_blocking(self._sql(sql), args, timeout_ns(timeout)))

    def _copy_out(self, copy_sql: str, timeout: float | None) -> tuple[int, bytes]:
        self._database._ensure_open()
        return _answer(self._native.copy_out_blocking(0, copy_sql, timeout_ns(timeout)))

    def _copy_out_to(self, copy_sql: str, write: Any, timeout: float | None) -> int:
        self._database._ensure_open()
        ns = timeout_ns(timeout)
        return _answer(self._native.copy_out_to_blocking(0, copy_sql, ns, self._copy_buffer_size, write))

    def _acquire_connection(self) -> SyncConnection:
        self._database._ensure_open()
        sid = _answer(self._native.open_session_blocking())
        return SyncConnection(self._native, sid, self._sqlite, self._copy_buffer_size)

    def acquire(self) -> SyncAcquire:
        """`with db.sync.acquire() as conn`: a connection held for the block."""
        return SyncAcquire(self)

    def transaction(
        self, *, isolation: str | None = None, readonly: bool = False, deferrable: bool = False
    ) -> SyncTransaction:
        """`with db.sync.transaction() as conn`: a connection in a transaction for the block."""
        return SyncTransaction(self, begin_statement(self._sqlite, isolation, readonly, deferrable))

    def executemany(self, sql: str, args: Iterable[Sequence[Any]], *, timeout: float | None = None) -> None:
        with self.transaction() as conn:
            conn._executemany(sql, args, timeout)

    def copy_records_to_table(
        self,
        table_name: str,
        *,
        records: Iterable[Any],
        columns: Sequence[str] | None = None,
        schema_name: str | None = None,
        timeout: float | None = None,
    ) -> str:
        if self._sqlite:
            with self.transaction() as conn:
                return conn._copy(table_name, records, columns, schema_name, timeout)
        self._database._ensure_open()
        plan, rows = copy_plan(False, table_name, records, columns, schema_name)
        if plan is None:
            return "COPY 0"
        records_list = list(rows)  # encoded twice when the binary format cannot take them
        types_sql, types_args = plan.types_query()
        sql, data = plan.copy(records_list, self.fetch(types_sql, *types_args, timeout=timeout))
        return f"COPY {_answer(self._native.copy_in_blocking(sql, data, timeout_ns(timeout)))}"
