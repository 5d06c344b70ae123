"""One HTTP/2 connection of `slipstream bench` (ALPN h2 over TLS, prior knowledge over TCP), shared by several
concurrent requests: each is a stream, answers are read and their bodies dropped (and given back to the flow
control window). On the `h2` package (PyPI) for the protocol state; asyncio for the socket."""

from __future__ import annotations

import asyncio
from typing import Any

from .http1 import READ_PIECE, BadAnswer
from .target import Target

try:  # optional: `pip install slipstream[bench]` (or h2) for --http2
    import h2.config
    import h2.connection
    import h2.errors
    import h2.events
    import h2.exceptions
except ImportError:  # pragma: no cover - depends on the environment
    h2 = None  # type: ignore[assignment]


def available() -> bool:
    return h2 is not None


class Http2Connection:
    """Opened on first use (by whichever stream comes first) and again after the connection failed; a stream that
    times out is reset (CANCEL) and the connection kept."""

    def __init__(self, target: Target, timeout: float) -> None:
        if h2 is None:
            raise ValueError("--http2 needs the h2 package: pip install 'slipstream[bench]'")
        self.target = target
        self.timeout = timeout
        self._opening: asyncio.Lock = asyncio.Lock()
        self._conn: Any = None
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._pending: dict[int, tuple[asyncio.Future[int], list[int]]] = {}
        self._window = asyncio.Event()  # set when the server gives flow-control credit or a stream ends
        self._headers = [
            (":method", target.method),
            (":scheme", "https" if target.tls else "http"),
            (":authority", target.authority),
            (":path", target.path),
            *target.headers,
            *([("content-length", str(len(target.body)))] if target.body else []),
        ]

    async def exchange(self) -> int:
        """Sends the request on a new stream and waits for its whole answer; raises on a failure."""
        await self._open()
        conn = self._conn
        while conn.open_outbound_streams >= conn.remote_settings.max_concurrent_streams:
            self._window.clear()
            await asyncio.wait_for(self._window.wait(), self.timeout)
            if self._conn is not conn:
                raise BadAnswer("the connection ended while a stream waited for a slot")
        stream_id = conn.get_next_available_stream_id()
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending[stream_id] = (done, [])
        try:
            conn.send_headers(stream_id, self._headers, end_stream=not self.target.body)
            self._flush()
            if self.target.body:
                await asyncio.wait_for(self._send_body(conn, stream_id), self.timeout)
            return await asyncio.wait_for(asyncio.shield(done), self.timeout)
        except (asyncio.TimeoutError, TimeoutError):
            self._reset(conn, stream_id)
            raise
        except h2.exceptions.ProtocolError as exc:  # the connection ended under this stream
            raise BadAnswer(f"HTTP/2 protocol error: {exc}") from exc
        finally:
            self._pending.pop(stream_id, None)

    async def _open(self) -> None:
        async with self._opening:
            if self._conn is not None:
                return
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(self.target.host, self.target.port, ssl=self.target.tls), self.timeout
            )
            if self.target.tls is not None and writer.get_extra_info("ssl_object").selected_alpn_protocol() != "h2":
                writer.close()
                raise BadAnswer("the server did not agree to HTTP/2 (ALPN h2)")
            conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="latin-1"))
            conn.initiate_connection()
            self._conn, self._writer = conn, writer
            self._flush()
            self._reader_task = asyncio.get_running_loop().create_task(self._read(conn, reader))

    async def _send_body(self, conn: Any, stream_id: int) -> None:
        body = memoryview(self.target.body)
        offset = 0
        while offset < len(body):
            if self._conn is not conn:
                raise BadAnswer("the connection ended while the body was sent")
            room = min(conn.local_flow_control_window(stream_id), conn.max_outbound_frame_size)
            if room <= 0:
                self._window.clear()
                await self._window.wait()
                continue
            piece = body[offset : offset + room]
            offset += len(piece)
            conn.send_data(stream_id, bytes(piece), end_stream=offset == len(body))
            self._flush()
            assert self._writer is not None
            await self._writer.drain()

    async def _read(self, conn: Any, reader: asyncio.StreamReader) -> None:
        failure: BaseException = asyncio.IncompleteReadError(b"", None)
        try:
            while data := await reader.read(READ_PIECE):
                for event in conn.receive_data(data):
                    self._on_event(conn, event)
                self._flush()
        except h2.exceptions.ProtocolError as exc:
            failure = BadAnswer(f"HTTP/2 protocol error: {exc}")
        except (OSError, BadAnswer) as exc:
            failure = exc
        self._end(conn, failure)

    def _on_event(self, conn: Any, event: Any) -> None:
        if isinstance(event, h2.events.ResponseReceived):
            entry = self._pending.get(event.stream_id)
            status = dict(event.headers).get(":status", "")
            if entry is not None and status.isdigit():
                entry[1].append(int(status))
        elif isinstance(event, h2.events.DataReceived):
            conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            entry = self._pending.get(event.stream_id)
            if entry is not None and not entry[0].done():
                if entry[1]:
                    entry[0].set_result(entry[1][0])
                else:
                    entry[0].set_exception(BadAnswer("a stream ended without a :status"))
            self._window.set()
        elif isinstance(event, h2.events.StreamReset):
            entry = self._pending.get(event.stream_id)
            if entry is not None and not entry[0].done():
                entry[0].set_exception(BadAnswer(f"stream reset by the server ({event.error_code!s})"))
            self._window.set()
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
            self._window.set()
        elif isinstance(event, h2.events.ConnectionTerminated):
            raise BadAnswer(f"GOAWAY from the server ({event.error_code!s})")

    def _flush(self) -> None:
        if self._conn is not None and self._writer is not None and (data := self._conn.data_to_send()):
            self._writer.write(data)

    def _reset(self, conn: Any, stream_id: int) -> None:
        if self._conn is conn:
            try:
                conn.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
                self._flush()
            except h2.exceptions.ProtocolError:  # the stream had ended meanwhile
                pass

    def _end(self, conn: Any, failure: BaseException) -> None:
        """The connection is over: every stream still waiting fails with `failure`; the next request opens anew."""
        if self._conn is conn:
            self._conn = None
            if self._writer is not None:
                self._writer.close()
            self._writer = None
        for done, _ in list(self._pending.values()):
            if not done.done():
                done.set_exception(failure)
        self._window.set()

    def close(self) -> None:
        if self._reader_task is not None:
            self._reader_task.cancel()
        if self._conn is not None:
            try:
                self._conn.close_connection()
                self._flush()
            except h2.exceptions.ProtocolError:
                pass
            self._end(self._conn, ConnectionResetError("closed by the client"))
