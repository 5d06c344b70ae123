"""SQL text helpers: identifier quoting, and PostgreSQL-style `$n` parameters rewritten for SQLite."""

from __future__ import annotations

import functools
import re

# String literals, quoted identifiers and comments are skipped; `$n` outside them is a parameter.
_TOKENS = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]|--[^\n]*|/\*.*?\*/|\$(\d+)""",
                     re.DOTALL)


@functools.lru_cache(maxsize=512)
def sqlite_placeholders(sql: str) -> str:
    """`$1`, `$2` as SQLite's numbered `?1`, `?2` (SQLite reads `$1` as a *named* parameter, numbered by first
    appearance, so `... $2 ... $1` would bind in the wrong order)."""
    if "$" not in sql:
        return sql
    return _TOKENS.sub(lambda m: f"?{m[1]}" if m[1] is not None else m[0], sql)


def quote_ident(name: str) -> str:
    """A double-quoted SQL identifier (inner double quotes doubled); ValueError for "" or a NUL character."""
    if not name or "\x00" in name:
        raise ValueError(f"invalid SQL identifier: {name!r}")
    return '"' + name.replace('"', '""') + '"'
