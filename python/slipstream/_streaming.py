"""Drives a streamed body on the executor's loop: chunks go to the C++ StreamWriter as they are produced; a client
that leaves cancels the task (the writer's cancel eventfd), which closes the generator, as Starlette does.

Back-pressure: while the connection holds more of the stream than its high-water mark (ServerOptions
stream_high_water_bytes), the producer is not stepped; it resumes once the client read the queue down to half."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from . import _server_errors

logger = logging.getLogger("slipstream.error")
_DONE: Any = object()


class SyncSource:
    """A sync iterator stepped in worker threads (Starlette's iterate_in_threadpool); one step at a time."""

    def __init__(self, iterable: Iterable[Any]) -> None:
        self._it = iter(iterable)
        self._lock = threading.Lock()

    def step(self) -> Any:
        with self._lock:
            return next(self._it, _DONE)

    def close(self) -> None:
        with self._lock:  # after a step still running in a thread
            close = getattr(self._it, "close", None)
            if close is not None:
                close()

    async def __aiter__(self) -> AsyncIterator[Any]:
        loop = asyncio.get_running_loop()
        while True:
            item = await loop.run_in_executor(None, self.step)
            if item is _DONE:
                return
            yield item


def as_bytes(chunk: Any, charset: str) -> bytes:
    if isinstance(chunk, bytes):
        return chunk
    if isinstance(chunk, (bytearray, memoryview)):
        return bytes(chunk)
    return str(chunk).encode(charset)


def start(writer: Any, produce: Callable[[Any], Awaitable[None]], *, close: Callable[[], Any] | None = None,
          background: Any = None) -> asyncio.Task[None]:
    """Runs `produce(writer)` as a task on the running loop; it answers through the writer. A client that leaves
    cancels the task; `close` runs when the task ends (however it ends); then `background`, after a clean end.
    Returns the task: awaiting it (it never raises) waits for the body to be sent or abandoned."""
    loop = asyncio.get_running_loop()
    task = loop.create_task(_guard(writer, produce, close, background))
    fd = writer.cancel_fd()

    def on_cancel() -> None:
        loop.remove_reader(fd)
        task.cancel()

    def on_done(_: asyncio.Task[Any]) -> None:
        if writer is not None:  # keeps the writer (and its eventfd) alive until the reader is gone
            loop.remove_reader(fd)

    loop.add_reader(fd, on_cancel)
    task.add_done_callback(on_done)
    return task


async def _guard(writer: Any, produce: Callable[[Any], Awaitable[None]], close: Callable[[], Any] | None,
                 background: Any) -> None:
    ok = False
    try:
        await produce(writer)
        ok = True
    except asyncio.CancelledError:
        writer.abort()  # the client left (or the server stops): not an error of the task's awaiters
    except Exception as exc:
        logger.error("Exception in a streamed response", exc_info=exc)
        _server_errors.report_unowned(exc)  # raised in the test by a TestClient (raise_server_exceptions)
        if writer.started:
            writer.abort()  # the connection is cut: a truncated body must not look complete
        else:
            writer.fail()
    finally:
        if close is not None:
            try:
                result = close()
                if asyncio.iscoroutine(result):
                    await result
            except Exception as exc:
                logger.error("Exception while closing a streamed body", exc_info=exc)
    if ok and background is not None:
        await background()


def iterate(content: Any) -> tuple[AsyncIterator[Any], Callable[[], Any] | None]:
    """An async iterator over `content` (async or sync iterable) and what closes it."""
    if isinstance(content, AsyncIterable):
        iterator = content.__aiter__()
        return iterator, getattr(iterator, "aclose", None)
    source = SyncSource(content)
    loop = asyncio.get_running_loop()

    def close() -> None:
        # The generator's cleanup runs in a thread once its last step there finished; it is not awaited, so a
        # step blocked forever cannot hold the task.
        loop.run_in_executor(None, source.close)

    return source.__aiter__(), close


async def wait_writable(writer: Any) -> None:
    """Returns at once while the writer takes more; else once its queue drained to the low-water mark, the stream
    ended or the client left (the next write tells which). Cancellation (the client left) interrupts the wait."""
    if writer.writable:
        return
    loop = asyncio.get_running_loop()
    fd = writer.writable_fd()  # armed: turns readable when the queue drained (at once if it already has)
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


async def pump(writer: Any, chunks: AsyncIterator[Any], charset: str) -> None:
    """Starts the stream and writes every chunk, pausing while the client reads slowly; stops early when the
    client left."""
    writer.start()
    if writer.head_only:
        writer.end()
        return
    async for chunk in chunks:
        if not writer.write(as_bytes(chunk, charset)):
            break
        if writer.writable:
            await asyncio.sleep(0)  # a checkpoint: other requests (and cancellation) get their turn
        else:
            await wait_writable(writer)  # the producer is not stepped until the client caught up
    if writer.cancelled:
        writer.abort()
    else:
        writer.end()


__all__ = ["SyncSource", "as_bytes", "iterate", "pump", "start", "wait_writable"]
