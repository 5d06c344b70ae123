"""What the extension calls on the executor thread: the asyncio loop, coroutine hand-off, errors, Request objects."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Generator
from typing import Any

from ._encoders import encode_fallback
from ._plans import model_plan
from .exceptions import HTTPException, RequestValidationError
from .requests import Request
from .responses import JSONResponse, PlainTextResponse, Response

__all__ = [
    "Response",
    "conversion_failed",
    "encode_fallback",
    "handle_error",
    "make_request",
    "model_plan",
    "resume",
    "run_executor",
]

logger = logging.getLogger("slipstream.error")


def run_executor(event_fd: int, drain: Any) -> None:
    """Body of the executor thread: an asyncio loop that runs `drain` (a batch of requests) when the fd is ready."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    def on_ready() -> None:
        if drain():
            loop.stop()

    loop.add_reader(event_fd, on_ready)
    try:
        loop.run_forever()
    finally:
        loop.remove_reader(event_fd)
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()


class _Continue:
    """Awaitable that continues a coroutine already stepped once (it yielded `first`) inside a real Task."""

    __slots__ = ("coro", "first")

    def __init__(self, coro: Any, first: Any) -> None:
        self.coro = coro
        self.first = first

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, yielded = self.coro, self.first
        self.coro = self.first = None
        while True:
            try:
                sent = yield yielded
            except BaseException as exc:  # noqa: BLE001 - forwarded into the coroutine (cancellation included)
                try:
                    yielded = coro.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    yielded = coro.send(sent)
                except StopIteration as stop:
                    return stop.value


async def _finish(coro: Any, first: Any) -> Any:
    return await _Continue(coro, first)


def _settle(task: asyncio.Task[Any], reply: Any) -> None:
    if task.cancelled():
        reply.fail(asyncio.CancelledError())
        return
    exc = task.exception()
    if exc is None:
        reply.finish(task.result())
    else:
        reply.fail(exc)


def resume(coro: Any, first: Any, reply: Any) -> None:
    """A handler's coroutine awaited a real future: finish it as a task, then answer through `reply`."""
    task = asyncio.get_running_loop().create_task(_finish(coro, first))
    task.add_done_callback(lambda t: _settle(t, reply))


def make_request(method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                 path_params: dict[str, str], client: str, route: str) -> Request:
    return Request(method, path, query, headers, body, path_params, client, route)


def _default_response(exc: BaseException) -> Response:
    if isinstance(exc, HTTPException):
        if exc.status_code < 200 or exc.status_code in (204, 304):
            return Response(status_code=exc.status_code, headers=exc.headers)
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
    if isinstance(exc, RequestValidationError):
        return JSONResponse({"detail": _jsonable(exc.errors())}, status_code=422)
    logger.error("Exception in handler", exc_info=exc)
    return PlainTextResponse("Internal Server Error", status_code=500)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, BaseException):
        return {}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return _jsonable(encode_fallback(value))


def _call_handler(handler: Any, request: Request, exc: BaseException) -> Response:
    result = handler(request, exc)
    if asyncio.iscoroutine(result):
        try:
            result.send(None)
        except StopIteration as stop:
            result = stop.value
        else:
            result.close()
            raise RuntimeError("an async exception handler must not suspend (await real I/O) in slipstream")
    return result


def handle_error(route: Any, request: Request, exc: BaseException) -> Response:
    """The response for an exception raised by a handler: the app's exception handlers, else FastAPI's defaults."""
    handler = route.app_errors.lookup(exc) if route.app_errors is not None else None
    if handler is None:
        return _default_response(exc)
    try:
        return _call_handler(handler, request, exc)
    except Exception as second:
        logger.error("Exception in exception handler", exc_info=second)
        return PlainTextResponse("Internal Server Error", status_code=500)


def conversion_failed(route: Any, request: Request, exc: BaseException, loc: tuple[Any, ...]) -> Response:
    """An argument's Python conversion (pydantic validators, custom types) raised: FastAPI's 422, loc-prefixed."""
    errors = getattr(exc, "errors", None)
    if callable(errors) and type(exc).__name__ == "ValidationError":
        detail = []
        for error in exc.errors(include_url=False):
            error = dict(error)
            error["loc"] = (*loc, *error.get("loc", ()))
            detail.append(error)
        return handle_error(route, request, RequestValidationError(detail))
    return handle_error(route, request, exc)
