"""One HTTP/1.1 keep-alive connection of `slipstream bench` (TCP or TLS): a request at a time, answers read and
their bodies dropped."""

from __future__ import annotations

import asyncio

from .target import MAX_HEAD_BYTES, Target

READ_PIECE = 64 * 1024  # answer bodies are read and dropped in pieces of this size


class BadAnswer(Exception):
    """The server's bytes are not an HTTP answer this client can read."""


async def read_answer(reader: asyncio.StreamReader, head_only: bool) -> tuple[int, bool]:
    """Reads one answer (its body dropped): (status, whether the connection stays open)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError as exc:
        raise BadAnswer(f"answer head over {MAX_HEAD_BYTES} bytes") from exc
    lines = head[:-4].decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/1.") or not status_line[1].isdigit():
        raise BadAnswer(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    status = int(status_line[1])
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    keep = fields.get("connection", "").lower() != "close" and status_line[0] == "HTTP/1.1"
    if head_only or status in (204, 304) or 100 <= status < 200:
        return status, keep
    if "chunked" in fields.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, then the empty line
                    pass
                return status, keep
            await _drop(reader, size + 2)
    if "content-length" in fields:
        if not fields["content-length"].isdigit():
            raise BadAnswer(f"Content-Length {fields['content-length']!r}")
        await _drop(reader, int(fields["content-length"]))
        return status, keep
    while await reader.read(READ_PIECE):  # delimited by the end of the connection
        pass
    return status, False


async def _drop(reader: asyncio.StreamReader, count: int) -> None:
    while count > 0:
        piece = await reader.readexactly(min(count, READ_PIECE))
        count -= len(piece)


class Http1Connection:
    """One keep-alive connection, opened on first use and again after a close or an error."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self.request = target.http1_request()
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def exchange(self) -> int:
        """Sends the request and reads its answer; raises on a transport failure (the connection is closed)."""
        try:
            return await asyncio.wait_for(self._exchange(), self.timeout)
        except BaseException:
            self.close()
            raise

    async def _exchange(self) -> int:
        if self.streams is None:
            self.streams = await asyncio.open_connection(
                self.target.host, self.target.port, ssl=self.target.tls, limit=MAX_HEAD_BYTES
            )
        reader, writer = self.streams
        writer.write(self.request)
        await writer.drain()
        status, keep = await read_answer(reader, self.target.head_only)
        if not keep:
            self.close()
        return status

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None
