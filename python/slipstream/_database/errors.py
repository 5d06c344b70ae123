"""Typed database errors, made from the engine's error payload (python/bindings/db_values.h, error_payload).

Named as asyncpg names them where it has the class. The SQL text is never part of an error: a DatabaseError that
escapes a handler becomes a plain 500 like any other exception (the message is logged, never sent).
"""

from __future__ import annotations

from typing import Any

# SQLite's extended result codes (DbError.native_code) for the constraint classes named below.
_SQLITE_CONSTRAINT_FOREIGNKEY = 787
_SQLITE_CONSTRAINT_NOTNULL = 1299
_SQLITE_CONSTRAINT_PRIMARYKEY = 1555
_SQLITE_CONSTRAINT_UNIQUE = 2067
_SQLITE_CONSTRAINT_CHECK = 275


class DatabaseError(Exception):
    """A statement failed. `sqlstate` (PostgreSQL's five characters, "" for SQLite and for client-side errors),
    `message`, `detail`, `hint`, `position` (1-based offset in the statement, 0 when unknown), `status` (the
    engine's code: "invalid_argument", "timeout", "unavailable", ...), `native_code` (SQLite's extended code)."""

    def __init__(self, message: str, *, sqlstate: str = "", detail: str = "", hint: str = "", position: int = 0,
                 status: str = "internal", native_code: int = 0, connection_lost: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.sqlstate = sqlstate
        self.detail = detail
        self.hint = hint
        self.position = position
        self.status = status
        self.native_code = native_code
        self.connection_lost = connection_lost

    def __str__(self) -> str:
        return f"{self.message} (SQLSTATE {self.sqlstate})" if self.sqlstate else self.message


class InterfaceError(DatabaseError):
    """The API was misused: a connection used after its block ended, listen() on SQLite, ..."""


class IntegrityConstraintViolationError(DatabaseError):
    """SQLSTATE class 23 (or a SQLite constraint)."""


class UniqueViolationError(IntegrityConstraintViolationError):
    """23505, or SQLite's UNIQUE / PRIMARY KEY constraint."""


class ForeignKeyViolationError(IntegrityConstraintViolationError):
    """23503, or SQLite's FOREIGN KEY constraint."""


class NotNullViolationError(IntegrityConstraintViolationError):
    """23502, or SQLite's NOT NULL constraint."""


class CheckViolationError(IntegrityConstraintViolationError):
    """23514, or SQLite's CHECK constraint."""


class SyntaxOrAccessError(DatabaseError):
    """SQLSTATE class 42: syntax errors, unknown tables and columns, missing privileges."""


class PostgresSyntaxError(SyntaxOrAccessError):
    """42601 (asyncpg's name), or a SQLite statement that does not parse. `position` points into the statement."""


class UndefinedTableError(SyntaxOrAccessError):
    """42P01."""


class UndefinedColumnError(SyntaxOrAccessError):
    """42703."""


class InFailedSQLTransactionError(DatabaseError):
    """25P02: a statement of the transaction failed; only ROLLBACK is accepted (a block that caught the error and
    ended normally: its COMMIT rolled back)."""


class DataError(DatabaseError):
    """SQLSTATE class 22: a value the column's type refuses (bad input syntax, out of range, ...)."""


class SerializationError(DatabaseError):
    """40001: retry the transaction."""


class DeadlockDetectedError(DatabaseError):
    """40P01: retry the transaction."""


class QueryCanceledError(DatabaseError):
    """57014, or a statement the engine stopped: the database closed while it was in flight."""


class QueryTimeoutError(QueryCanceledError, TimeoutError):
    """The statement's deadline (`timeout=` or the database's statement_timeout) passed; it was cancelled."""


class PoolTimeoutError(DatabaseError, TimeoutError):
    """No connection became free within acquire_timeout."""


class TooManySessionsError(DatabaseError):
    """max_sessions transactions / acquired connections / listeners are already open."""


class ConnectionFailureError(DatabaseError):
    """The server cannot be reached (connection refused, server down)."""


class ConnectionLostError(ConnectionFailureError):
    """The connection broke while the statement was in flight: it may or may not have run."""


_BY_SQLSTATE: dict[str, type[DatabaseError]] = {
    "23505": UniqueViolationError,
    "23503": ForeignKeyViolationError,
    "23502": NotNullViolationError,
    "23514": CheckViolationError,
    "42601": PostgresSyntaxError,
    "42P01": UndefinedTableError,
    "42703": UndefinedColumnError,
    "40001": SerializationError,
    "40P01": DeadlockDetectedError,
    "57014": QueryCanceledError,
    "25P02": InFailedSQLTransactionError,
}
_BY_CLASS: dict[str, type[DatabaseError]] = {
    "23": IntegrityConstraintViolationError,
    "42": SyntaxOrAccessError,
    "22": DataError,
    "08": ConnectionFailureError,
}
_BY_SQLITE_CODE: dict[int, type[DatabaseError]] = {
    _SQLITE_CONSTRAINT_UNIQUE: UniqueViolationError,
    _SQLITE_CONSTRAINT_PRIMARYKEY: UniqueViolationError,
    _SQLITE_CONSTRAINT_FOREIGNKEY: ForeignKeyViolationError,
    _SQLITE_CONSTRAINT_NOTNULL: NotNullViolationError,
    _SQLITE_CONSTRAINT_CHECK: CheckViolationError,
}


def _error_class(status: str, message: str, sqlstate: str, native_code: int, connection_lost: bool,
                 from_statement: bool) -> type[DatabaseError]:
    if connection_lost:
        return ConnectionLostError
    if sqlstate:
        return _BY_SQLSTATE.get(sqlstate) or _BY_CLASS.get(sqlstate[:2]) or DatabaseError
    if native_code:
        found = _BY_SQLITE_CODE.get(native_code)
        if found is not None:
            return found
        if native_code & 0xFF == 19:  # SQLITE_CONSTRAINT, another kind
            return IntegrityConstraintViolationError
        if native_code == 1 and "syntax error" in message:  # SQLITE_ERROR
            return PostgresSyntaxError
    if status == "timeout":
        return QueryTimeoutError if from_statement else PoolTimeoutError
    if status == "unavailable":
        return ConnectionFailureError
    if status == "resource_exhausted" and not from_statement:
        return TooManySessionsError
    if status == "cancelled":
        return QueryCanceledError
    return DatabaseError


def error_from_payload(payload: tuple[Any, ...]) -> DatabaseError:
    """The exception for (status, message, sqlstate, detail, hint, position, native_code, connection_lost,
    from_statement)."""
    status, message, sqlstate, detail, hint, position, native_code, connection_lost, from_statement = payload
    cls = _error_class(status, message, sqlstate, native_code, connection_lost, from_statement)
    return cls(message, sqlstate=sqlstate, detail=detail, hint=hint, position=position, status=status,
               native_code=native_code, connection_lost=connection_lost)
