"""COPY ... TO STDOUT for `copy_from_table` / `copy_from_query` (asyncpg's names and options): the statement,
query arguments inlined as literals, and the data handed to `output`."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
from collections.abc import Sequence
from typing import Any

from .errors import InterfaceError
from .sql import quote_ident

# PostgreSQL's string literals (also E'...' with backslash escapes), quoted identifiers and comments are skipped;
# `$n` outside them is a parameter.
_TOKENS = re.compile(r"""[eE]'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|/\*.*?\*/|\$(\d+)""", re.DOTALL)


def _quote_literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def copy_options(*, format: str | None = None, oids: bool | None = None, delimiter: str | None = None,
                 null: str | None = None, header: bool | None = None, quote: str | None = None,
                 escape: str | None = None, force_quote: bool | Sequence[str] | None = None,
                 encoding: str | None = None) -> str:
    """` WITH (FORMAT 'csv', HEADER True, ...)` for the options given ("" for none): values quoted as literals,
    force_quote's columns as identifiers (True: every column)."""
    opts = []
    for name, value in (("format", format), ("oids", oids), ("delimiter", delimiter), ("null", null),
                        ("header", header), ("quote", quote), ("escape", escape), ("encoding", encoding)):
        if value is None:
            continue
        opts.append(f"{name.upper()} {value}" if name in ("oids", "header") else f"{name.upper()} {_quote_literal(value)}")
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


async def deliver(data: bytes, count: int, output: Any) -> Any:
    """The data to `output` (None: returned as bytes; a path: written to that file; an object with write(): its
    write(data), awaited when it is a coroutine; a coroutine function: awaited with the data). Else "COPY <n>"."""
    if output is None:
        return data
    if isinstance(output, (str, bytes, os.PathLike)):
        path = os.fspath(output)
        await asyncio.get_running_loop().run_in_executor(None, _write_file, path, data)
    elif hasattr(output, "write"):
        written = output.write(data)
        if inspect.isawaitable(written):
            await written
    elif callable(output):
        result = output(data)
        if inspect.isawaitable(result):
            await result
    else:
        raise TypeError("output must be None, a path, a file-like object or a coroutine function")
    return f"COPY {count}"


def deliver_sync(data: bytes, count: int, output: Any) -> Any:
    """deliver() for blocking code: a coroutine function is not accepted."""
    if output is None:
        return data
    if isinstance(output, (str, bytes, os.PathLike)):
        _write_file(os.fspath(output), data)
    elif hasattr(output, "write"):
        output.write(data)
    elif callable(output):
        output(data)
    else:
        raise TypeError("output must be None, a path, a file-like object or a function")
    return f"COPY {count}"


def _write_file(path: str | bytes, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def refuse_on_sqlite(sqlite: bool) -> None:
    if sqlite:
        raise InterfaceError("COPY is PostgreSQL's; SQLite has no COPY TO STDOUT", status="invalid_argument")
