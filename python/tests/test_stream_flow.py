"""Streamed Python responses at the edges of their life, on a real socket: back-pressure against a client that
does not read (the generator is not stepped), and a graceful drain (event streams end cleanly and their
generators are closed; other streams run until the drain deadline cuts them)."""

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from slipstream import App, StreamingResponse, _streaming
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
        self.received = 0  # bytes taken from the socket

    def _fill(self) -> None:
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("closed")
        self.received += len(data)
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


BOUND = 24 * 1024 * 1024  # the high-water mark (1 MiB) plus what the kernel buffers hold, far below 100 MB


class Pauses:
    """The server side's signal that it paused a producer: each wait of the stream pump for a writable stream
    (slipstream._streaming.wait_writable, entered only when the writer refused more) is counted, on the
    executor's thread. A wake must come from the client reading the queue down (the writer takes more then);
    a wake with the writer still full is counted as spurious."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cond = threading.Condition()
        self.entered = 0
        self.left = 0
        self.spurious = 0
        self.done = False  # the producer ran to its end
        self.ran_away = False  # the producer got BOUND ahead of what the client received
        original = _streaming.wait_writable

        async def wait_writable(writer: Any) -> None:
            with self.cond:
                self.entered += 1
                self.cond.notify_all()
            await original(writer)
            with self.cond:
                self.left += 1
                if not writer.writable and not writer.cancelled:
                    self.spurious += 1
                self.cond.notify_all()

        monkeypatch.setattr(_streaming, "wait_writable", wait_writable)

    def paused(self) -> bool:
        return self.entered > self.left

    def flag(self, attr: str) -> None:
        with self.cond:
            setattr(self, attr, True)
            self.cond.notify_all()

    def wait_for(self, what: str, ready: Callable[[], bool]) -> None:
        """Until ready() holds (the producer paused, or it ended); fails when it ran away, or after 20 s."""
        with self.cond:
            assert self.cond.wait_for(lambda: ready() or self.ran_away, timeout=20), f"no {what} in 20 s"
            assert not self.ran_away, f"the producer got {BOUND} bytes ahead of the client"


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_client_that_does_not_read_pauses_the_generator(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    app = App()
    pauses = Pauses(monkeypatch)
    progress = [0]  # bytes produced so far
    received = [0]  # bytes the client took from its socket so far

    def produced(chunk: bytes) -> bytes:
        progress[0] += len(chunk)
        if progress[0] - received[0] > BOUND:
            pauses.flag("ran_away")
        return chunk

    async def agen() -> AsyncIterator[bytes]:
        for c in range(MIB * 16):
            yield produced(record_chunk(c))
            await asyncio.sleep(0)
        pauses.flag("done")

    def gen() -> Iterator[bytes]:
        for c in range(MIB * 16):
            yield produced(record_chunk(c))
        pauses.flag("done")

    @app.get("/bulk")
    def bulk() -> StreamingResponse:
        return StreamingResponse(agen() if kind == "async" else gen(), media_type="application/octet-stream")

    server = Served(app)
    try:
        stream = ChunkedStream(server.port, "/bulk", rcvbuf=64 * 1024)
        # Nothing is read until the server paused the producer: it must, long before the body's 100 MB.
        pauses.wait_for("pause", pauses.paused)
        assert progress[0] < BOUND
        # Then the client reads only while the producer is paused: every byte produced past that point was
        # made room for by the client, and the producer never gets BOUND ahead of it.
        body = bytearray()
        while True:
            pauses.wait_for("pause or end", lambda: pauses.paused() or pauses.done)
            chunk = stream.chunk()
            received[0] = stream.received
            if not chunk:
                break
            body += chunk
        assert stream.status == 200
        assert len(body) == MIB * 1024 * 1024 == progress[0]
        assert_chunks(bytes(body))
        assert pauses.spurious == 0, "the producer was woken while the client had not read the queue down"
        assert pauses.entered > 1  # paused again and again while the client caught up
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
