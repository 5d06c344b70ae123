"""HTTP/1.1 as a client speaks it to the engine, for an App called as an ASGI app (_asgi/entry.py): the request
head from an ASGI scope, and the response's head and body read back from an asyncio StreamReader."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote, unquote

# Headers the ASGI server writes itself (its date and server, the body's framing and the connection's state):
# the engine's are not handed on.
HOP_HEADERS = frozenset({b"date", b"server", b"connection", b"keep-alive", b"transfer-encoding"})
# The longest response head read (the engine's own limit on what it writes is far below).
MAX_HEAD_BYTES = 1 << 20


class CutShort(ConnectionError):
    """The engine closed the connection before the response was complete (the app failed mid-body)."""


def strip_root(value: str, root_path: str) -> str:
    """`value` without the `root_path` prefix (uvicorn and Starlette's Mount keep it in the scope's path)."""
    if root_path and value.startswith(root_path) and (len(value) == len(root_path) or value[len(root_path)] == "/"):
        return value[len(root_path) :] or "/"
    return value


def request_target(scope: dict[str, Any], root_path: str) -> str:
    """The request target for the engine: the scope's raw_path where it matches its path (escapes such as %2F
    kept), else the path percent-encoded; without the root_path; with the query string."""
    path = strip_root(scope.get("path") or "/", root_path)
    target = ""
    raw = scope.get("raw_path")
    if raw:
        raw_text = strip_root(bytes(raw).decode("latin-1"), quote(root_path, safe="/"))
        if unquote(raw_text) == path:
            target = raw_text
    if not target:
        target = quote(path, safe="/:@!$&'()*+,;=-._~")
    query = scope.get("query_string") or b""
    if query:
        target += "?" + bytes(query).decode("latin-1")
    return target


def head_bytes(first_line: str, headers: list[tuple[bytes, bytes]]) -> bytes:
    """A request head: `first_line`, the headers (names and values as bytes, CR/LF refused), the blank line."""
    out = bytearray(first_line.encode("latin-1") + b"\r\n")
    for name, value in headers:
        if b"\r" in name or b"\n" in name or b"\r" in value or b"\n" in value or b":" in name:
            raise ValueError(f"invalid header in the ASGI scope: {name!r}: {value!r}")
        out += bytes(name) + b": " + bytes(value) + b"\r\n"
    out += b"\r\n"
    return bytes(out)


async def read_head(reader: asyncio.StreamReader) -> tuple[int, list[tuple[bytes, bytes]]]:
    """The status and headers (names lowercased) of the next final response (1xx interim answers skipped, 101
    returned)."""
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            raise CutShort("the engine closed the connection before a response") from exc
        except asyncio.LimitOverrunError as exc:
            raise CutShort("the engine's response head is too long") from exc
        status_line, *lines = head[:-4].split(b"\r\n")
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise CutShort(f"not an HTTP response: {status_line[:80]!r}")
        status = int(parts[1])
        if 100 <= status < 200 and status != 101:
            continue
        headers = []
        for line in lines:
            name, _, value = line.partition(b":")
            headers.append((name.strip().lower(), value.strip()))
        return status, headers


def header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    """The last value of `name` (lowercase) in `headers`."""
    found = None
    for key, value in headers:
        if key == name:
            found = value
    return found


async def body_chunks(
    reader: asyncio.StreamReader, headers: list[tuple[bytes, bytes]], no_body: bool
) -> AsyncIterator[tuple[bytes, bool]]:
    """The response body as it arrives, as (bytes, more) pairs whose last has more=False: by Content-Length,
    chunked, or until the connection closes. A body cut short raises CutShort."""
    if no_body:
        yield b"", False
        return
    coding = header(headers, b"transfer-encoding")
    if coding is not None and b"chunked" in coding.lower():
        async for chunk in _chunked(reader):
            yield chunk, True
        yield b"", False
        return
    length = header(headers, b"content-length")
    if length is not None:
        left = int(length)
        if left == 0:
            yield b"", False
        while left > 0:
            chunk = await reader.read(min(left, 1 << 16))
            if not chunk:
                raise CutShort("the engine closed the connection in the middle of a body")
            left -= len(chunk)
            yield chunk, left > 0
        return
    while True:  # no framing: the body ends with the connection
        chunk = await reader.read(1 << 16)
        if not chunk:
            yield b"", False
            return
        yield chunk, True


async def _chunked(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    try:
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, dropped
                    pass
                return
            data = await reader.readexactly(size + 2)
            yield data[:-2]
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
        raise CutShort("the engine closed the connection in the middle of a chunked body") from exc
