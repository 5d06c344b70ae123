"""COPY ... TO STDOUT for `copy_from_table` / `copy_from_query` (asyncpg's names and options): the statement,
query arguments inlined as literals, and the data handed to `output`."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .errors import InterfaceError
from .sql import quote_ident

# PostgreSQL's string literals (also E'...' with backslash escapes), quoted identifiers and comments are skipped;
# `$n` outside them is a parameter.
_TOKENS = re.compile(
    r"""[eE]'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|/\*.*?\*/|\$(\d+)""", re.DOTALL
)


def _quote_literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def copy_options(
    *,
    format: str | None = None,
    oids: bool | None = None,
    delimiter: str | None = None,
    null: str | None = None,
    header: bool | None = None,
    quote: str | None = None,
    escape: str | None = None,
    force_quote: bool | Sequence[str] | None = None,
    encoding: str | None = None,
) -> str:
    """` WITH (FORMAT 'csv', HEADER True, ...)` for the options given ("" for none): values quoted as literals,
    force_quote's columns as identifiers (True: every column)."""
    opts = []
    for name, value in (
        ("format", format),
        ("oids", oids),
        ("delimiter", delimiter),
        ("null", null),
        ("header", header),
        ("quote", quote),
        ("escape", escape),
        ("encoding", encoding),
    ):
        if value is None:
            continue
        opts.append(
            f"{name.upper()} {value}" if name in ("oids", "header") else f"{name.upper()} {_quote_literal(value)}"
        )
    if isinstance(force_quote, bool):
        if force_quote:
            opts.append("FORCE_QUOTE *")
    elif force_quote is not None:
        opts.append("FORCE_QUOTE (" + ", ".join(quote_ident(c) for c in force_quote) + ")")
    return " WITH (" + ", ".join(opts) + ")" if opts else ""


def table_statement(table_name: str, columns: Sequence[str] | None, schema_name: str | None, options: str) -> str:
    table = quote_ident(table_name)
    if schema_name is not None:
        table = f"{quote_ident(schema_name)}.{table}"
    names = "" if columns is None else " (" + ", ".join(quote_ident(c) for c in columns) + ")"
    return f"COPY {table}{names} TO STDOUT{options}"


def arguments_query(count: int) -> str:
    """The statement whose one row is the server's quoting of `count` arguments (quote_nullable)."""
    return "SELECT " + ", ".join(f"quote_nullable(${i}::text)" for i in range(1, count + 1))


def substitute(query: str, quoted: Sequence[str]) -> str:
    """`query` with each $n outside string literals, quoted identifiers and comments replaced by `quoted[n - 1]`."""

    def literal(n: int) -> str:
        if not 1 <= n <= len(quoted):
            raise ValueError(f"copy_from_query: the query uses ${n} but {len(quoted)} argument(s) were given")
        return quoted[n - 1]

    return _TOKENS.sub(lambda m: literal(int(m[1])) if m[1] is not None else m[0], query)


async def inline_arguments(queries: Any, query: str, args: Sequence[Any]) -> str:
    """`query` with $1..$n replaced by the server's quoting of each argument (COPY takes no parameters; asyncpg
    does the same). A `$n` inside a string literal, quoted identifier or comment stays as it is."""
    if not args:
        return query
    quoted = await queries.fetchrow(arguments_query(len(args)), *args)
    assert quoted is not None
    return substitute(query, list(quoted))


# The most one step of a COPY TO STDOUT stream hands over (whole messages; at least one).
CHUNK_BYTES = 256 * 1024
# COPY data waiting between Python and a connection, by default (Database's copy_buffer_size).
BUFFER_BYTES = 4 * 1024 * 1024


class CopyOutStream:
    """The data of one `COPY ... TO STDOUT` as it arrives: `async for chunk in stream` gives bytes chunks (whole
    rows in text and CSV format, up to about 256 KiB each). At most `copy_buffer_size` bytes wait between the
    connection and the consumer: past that the connection stops reading and the server waits, so a slow consumer
    costs no memory. `count` is the row count once the data ended. Leaving `async with` (or aclose()) before the
    end cancels the COPY on the server; the connection goes on serving other statements."""

    def __init__(
        self, native: Any, completions: Any, sid: int, statement: Callable[[], Awaitable[str]], ns: int, limit: int
    ) -> None:
        self._native = native
        self._completions = completions
        self._sid = sid
        self._statement = statement
        self._ns = ns
        self._limit = limit
        self._token: int | None = None
        self._done: asyncio.Future[int] | None = None
        self._closed = False
        self.count: int | None = None

    async def _start(self) -> None:
        sql = await self._statement()
        started: list[int] = []

        def start(token: int) -> None:
            started.append(token)
            self._native.copy_out_stream(token, self._sid, sql, self._ns, self._limit)

        self._done = self._completions.call(start, cancellable=True)
        self._token = started[0]

    def __aiter__(self) -> CopyOutStream:
        return self

    async def __anext__(self) -> bytes:
        if self._closed:
            raise StopAsyncIteration
        if self._done is None:
            await self._start()
        assert self._done is not None
        token = self._token
        while True:
            chunk = self._native.copy_out_take(token, CHUNK_BYTES)
            if chunk is not None:
                return chunk
            if self._done.done():
                self._closed = True
                self._native.copy_out_close(token)
                self.count = self._done.result()  # the COPY's error, if it failed
                raise StopAsyncIteration
            await self._completions.call(lambda t: self._native.copy_out_wait(token, t))

    async def aclose(self) -> None:
        """Stops reading: a COPY still running is cancelled (its data dropped); the connection goes on."""
        self._abandon()

    def _abandon(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._token is not None:
            self._native.copy_out_close(self._token)
        if self._done is not None and not self._done.done():
            self._done.cancel()  # cancels the statement (Completions.call's cancellable)

    async def __aenter__(self) -> CopyOutStream:  # noqa: PYI034
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._abandon()

    def __del__(self) -> None:
        if not self._closed and self._token is not None:
            self._closed = True
            self._native.copy_out_close(self._token)
            self._native.cancel(self._token)


async def stream_to(stream: CopyOutStream, output: Any) -> str:
    """Each chunk of `stream` to `output` as it arrives (a path: written to that file on a worker thread; an object
    with write(): its write(chunk), awaited when it returns an awaitable; a callable: called with each chunk,
    awaited likewise); "COPY <n>" at the end. An error of `output` cancels the COPY and is raised."""
    if not isinstance(output, (str, bytes, os.PathLike)) and not hasattr(output, "write") and not callable(output):
        raise TypeError("output must be None, a path, a file-like object or a coroutine function")
    async with stream:
        if isinstance(output, (str, bytes, os.PathLike)):
            loop = asyncio.get_running_loop()
            f = await loop.run_in_executor(None, open, os.fspath(output), "wb")
            try:
                async for chunk in stream:
                    await loop.run_in_executor(None, f.write, chunk)
            finally:
                await loop.run_in_executor(None, f.close)
        else:
            write = output.write if hasattr(output, "write") else output
            async for chunk in stream:
                written = write(chunk)
                if inspect.isawaitable(written):
                    await written
    return f"COPY {stream.count}"


def refuse_on_sqlite(sqlite: bool) -> None:
    if sqlite:
        raise InterfaceError("COPY is PostgreSQL's; SQLite has no COPY TO STDOUT", status="invalid_argument")
