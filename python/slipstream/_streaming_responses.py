"""StreamingResponse and EventSourceResponse: bodies produced after the head, sent as they come (FileResponse,
another streamed body, is in _file_response.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from . import _streaming
from ._core.response import Response


class _Streamed(Response):
    """A Response whose body is not bytes: the engine hands this object a StreamWriter (_slipstream_start).

    Once started, `stream_done` is the task sending the body: await it to run code after the body was sent
    (or abandoned by the client); it never raises."""

    stream_done: asyncio.Task[None] | None = None

    def _slipstream_render(self) -> tuple[int, str | None, tuple[tuple[str, str], ...], Any]:
        status, content_type, headers, _ = super()._slipstream_render()
        return status, content_type, headers, self

    def _take_background(self) -> Any:
        # Run after the body is complete, as Starlette does, not when the head goes out.
        background, self.background = self.background, None
        return background

    def _slipstream_start(self, writer: Any) -> None:
        raise NotImplementedError


class StreamingResponse(_Streamed):
    """A body from an async iterable or a sync iterable (stepped in worker threads), sent chunk by chunk with
    chunked encoding as it is produced. str chunks are encoded with `charset`. A client that disconnects
    cancels the producer: an async generator is closed (or sees CancelledError), a sync one is closed."""

    def __init__(self, content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None, background: Any = None) -> None:
        self.body_iterator = content
        super().__init__(None, status_code=status_code, headers=headers, media_type=media_type,
                         background=background)

    def _slipstream_start(self, writer: Any) -> None:
        chunks, close = _streaming.iterate(self.body_iterator)
        charset = self.charset
        self.stream_done = _streaming.start(writer, lambda w: _streaming.pump(w, chunks, charset), close=close,
                                            background=self._take_background())


class EventSourceResponse(StreamingResponse):
    """Server-Sent Events (`text/event-stream`), with `Cache-Control: no-cache` and `X-Accel-Buffering: no`.
    `content` yields bytes/str already in the SSE format (see slipstream.sse.format_sse_event), or use it as
    `response_class=` on a handler that yields (each item becomes an event, as FastAPI does). The engine sends
    a heartbeat comment on an idle stream (ServerOptions sse_heartbeat_ms)."""

    media_type = "text/event-stream"

    def __init__(self, content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None, background: Any = None) -> None:
        super().__init__(content, status_code=status_code, headers=headers, media_type=media_type,
                         background=background)
        if "cache-control" not in self.headers:
            self.headers["cache-control"] = "no-cache"
        if "x-accel-buffering" not in self.headers:
            self.headers["x-accel-buffering"] = "no"


__all__ = ["EventSourceResponse", "StreamingResponse"]
