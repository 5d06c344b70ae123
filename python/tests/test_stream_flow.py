"""Streamed Python responses at the edges of their life, on a real socket: back-pressure against a client that
does not read (the generator is not stepped), and a graceful drain (event streams end cleanly and their
generators are closed; other streams run until the drain deadline cuts them)."""

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from slipstream import App, StreamingResponse
from slipstream.sse import EventSourceResponse, format_sse_event

RECORDS = 4096  # records of 16 bytes per chunk: 64 KiB
MIB = 100


class Served:
    """The app on 127.0.0.1, port 0, in this process."""

    def __init__(self, app: App, **options: Any) -> None:
        self.native = app.build(access_log=False, threads=1, compression=False, **options)
        self.native.listen("127.0.0.1", 0)
        self.native.start()
        self.port = self.native.port
        self.stopped = False

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.native.stop()
            self.native.wait()


class ChunkedStream:
    """A chunked response read one chunk at a time from a raw socket."""

    def __init__(self, port: int, path: str, rcvbuf: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:  # before connect, so the window stays small
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(30)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
        self.buf = b""
        self.status = 0

    def _fill(self) -> None:
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("closed")
        self.buf += data

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buf:
            self._fill()
        i = self.buf.index(marker) + len(marker)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def chunk(self) -> bytes:
        """The next chunk's payload; b"" for the terminating chunk; ConnectionError when the stream is cut."""
        if not self.status:
            self.status = int(self._until(b"\r\n\r\n").split(b" ", 2)[1])
        size = int(self._until(b"\r\n")[:-2], 16)
        while len(self.buf) < size + 2:
            self._fill()
        data, self.buf = self.buf[:size], self.buf[size + 2:]
        return data

    def close(self) -> None:
        self.sock.close()


def record_chunk(c: int) -> bytes:
    """Chunk `c`: its index as "%015d\\n", RECORDS times."""
    return (b"%015d\n" % c) * RECORDS


def assert_chunks(body: bytes) -> None:
    """Every chunk is record_chunk(its index): nothing lost, repeated or out of order. Checked one digit column
    at a time (the 10^d digit of record i is i // RECORDS // 10^d % 10), which is fast on 100 MB."""
    n = len(body) // 16
    assert len(body) == 16 * n and body[15::16] == b"\n" * n
    for d in range(15):
        run = 10**d * RECORDS
        cycle = b"".join(bytes([48 + k]) * run for k in range(10)) if run <= n else b"0"
        assert body[14 - d::16] == (cycle * (n // len(cycle) + 1))[:n], f"the 10^{d} digits"


def wait_until_stalled(progress: list[int]) -> int:
    """Polls the producer's progress until it stops moving; returns where it stopped."""
    deadline = time.monotonic() + 20
    last = -1
    while progress[0] != last:
        assert time.monotonic() < deadline, "the producer never paused"
        last = progress[0]
        time.sleep(0.3)
    return last


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_client_that_does_not_read_pauses_the_generator(kind: str) -> None:
    app = App()
    progress = [0]  # bytes produced so far

    async def agen() -> AsyncIterator[bytes]:
        for c in range(MIB * 16):
            chunk = record_chunk(c)
            progress[0] += len(chunk)
            yield chunk
            await asyncio.sleep(0)

    def gen() -> Iterator[bytes]:
        for c in range(MIB * 16):
            chunk = record_chunk(c)
            progress[0] += len(chunk)
            yield chunk

    @app.get("/bulk")
    def bulk() -> StreamingResponse:
        return StreamingResponse(agen() if kind == "async" else gen(), media_type="application/octet-stream")

    server = Served(app)
    try:
        stream = ChunkedStream(server.port, "/bulk", rcvbuf=64 * 1024)
        # Queued: the high-water mark (1 MiB) plus what the kernel buffers hold, far below 100 MB.
        assert wait_until_stalled(progress) < 24 * 1024 * 1024
        body = bytearray()
        while chunk := stream.chunk():
            body += chunk
        assert stream.status == 200
        assert len(body) == MIB * 1024 * 1024 == progress[0]
        assert_chunks(bytes(body))
        stream.close()
    finally:
        server.stop()


@pytest.mark.parametrize("kind", ["response", "yield"])
def test_drain_ends_an_event_stream_cleanly_and_closes_its_generator(kind: str) -> None:
    app = App()
    closed = threading.Event()

    async def ticks() -> AsyncIterator[bytes]:
        try:
            i = 0
            while True:
                i += 1
                yield format_sse_event(data_str=str(i))
                await asyncio.sleep(0.02)
        finally:
            closed.set()

    if kind == "response":
        @app.get("/events")
        def events() -> EventSourceResponse:
            return EventSourceResponse(ticks())
    else:
        @app.get("/events", response_class=EventSourceResponse)
        async def events() -> Any:  # type: ignore[misc]
            try:
                i = 0
                while True:
                    i += 1
                    yield {"tick": i}
                    await asyncio.sleep(0.02)
            finally:
                closed.set()

    server = Served(app, drain_timeout_ms=20_000)
    try:
        stream = ChunkedStream(server.port, "/events")
        assert stream.chunk().startswith(b"data: ")
        stopper = threading.Thread(target=server.stop)  # drains; returns once the server stopped
        stopper.start()
        while stream.chunk():  # events, then the terminating chunk (a cut stream raises instead)
            pass
        assert stream.sock.recv(1) == b""  # then the server closes the connection
        stream.close()
        assert closed.wait(10), "the generator was not closed"
        stopper.join(15)
        assert not stopper.is_alive(), "the open event stream held the drain"
    finally:
        server.stop()


def test_drain_deadline_cuts_a_plain_stream() -> None:
    app = App()
    closed = threading.Event()

    async def lines() -> AsyncIterator[bytes]:
        try:
            i = 0
            while True:
                yield b"line %d\n" % i
                i += 1
                await asyncio.sleep(0.02)
        finally:
            closed.set()

    @app.get("/plain")
    def plain() -> StreamingResponse:
        return StreamingResponse(lines(), media_type="text/plain")

    server = Served(app, drain_timeout_ms=600)
    try:
        stream = ChunkedStream(server.port, "/plain")
        assert stream.chunk() == b"line 0\n"
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        assert stream.chunk() == b"line 1\n"  # still running during the drain
        with pytest.raises(ConnectionError):  # cut at the deadline: no terminating chunk
            while stream.chunk():
                pass
        stopper.join(15)
        assert closed.wait(10), "the generator was not closed"
        stream.close()
    finally:
        server.stop()
