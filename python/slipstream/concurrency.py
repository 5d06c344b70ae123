"""Starlette's thread helpers as FastAPI exports them: run blocking code from async handlers without stalling
the executor's event loop. The threads are the App's pool (`thread_pool_size`; contextvars are copied into them)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, TypeVar

from . import _threads
from ._streaming import SyncSource

T = TypeVar("T")


async def run_in_threadpool(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`func(*args, **kwargs)` in a worker thread; its result (or its exception) once done."""
    return await _threads.run_sync(func, *args, **kwargs)


async def iterate_in_threadpool(iterator: Iterable[T]) -> AsyncIterator[T]:
    """The items of a blocking iterator, each `next()` in a worker thread."""
    async for item in SyncSource(iterator):
        yield item


async def run_until_first_complete(*args: tuple[Callable[..., Awaitable[Any]], dict[str, Any]]) -> None:
    """Runs each `func(**kwargs)` concurrently; when the first one returns, the others are cancelled."""
    tasks = [asyncio.ensure_future(func(**kwargs)) for func, kwargs in args]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        task.result()  # raises what a finished one raised


@contextlib.asynccontextmanager
async def contextmanager_in_threadpool(cm: contextlib.AbstractContextManager[T]) -> AsyncIterator[T]:
    """A blocking context manager used from async code: its __enter__ and __exit__ run in worker threads."""
    async with _threads.sync_context(cm) as value:
        yield value


__all__ = ["contextmanager_in_threadpool", "iterate_in_threadpool", "run_in_threadpool", "run_until_first_complete"]
