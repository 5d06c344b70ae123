"""The coroutine a route with dependencies (or any route of an app with HTTP middleware) runs as its handler.

The extension calls it with the route's validated arguments as keywords "a<n>", the Request ("__request__",
when needed) and the reply ("__reply__", python/bindings/pending_reply.h). It solves the dependencies, calls
the handler, answers through the reply, then runs background tasks and the exit code of `yield` dependencies
after the response is sent, as FastAPI does (FastAPI 0.165: "function"-scoped exits before the response,
"request"-scoped ones after it and after the background tasks).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

from .. import _server_errors, telemetry
from .._endpoint import FROM_GENERATOR
from ..responses import Response
from . import late
from .program import Exchange, Program, solve

logger = logging.getLogger("slipstream.error")


# A runner keyword: the request carries no C++-validated values (its validation failed against a dependency tree
# that dependency_overrides have replaced since, or the route was added after the server started).
UNVALIDATED = "__slipstream_unvalidated__"


class FastAPIError(RuntimeError):
    """A dependency with `yield` swallowed the handler's exception (FastAPI answers 500 then, too)."""


_NOT_AWAITED = ("Response not awaited. There's a high chance that the application code is raising an exception and "
                "a dependency with yield has a block with a bare except, or a block with except Exception, and is "
                "not raising the exception again.")


class RouteInfo:
    """What a runner needs about its route: the program, response rules and the app's hooks."""

    def __init__(self, program: Program, *, prepare: Any, status_code: int, hooks: Any,
                 overrides: Callable[[], dict[Any, Any]], snapshot: dict[Any, Any],
                 rebuild: Callable[[dict[Any, Any]], Any]) -> None:
        self.program = program
        self.prepare = prepare
        self.status_code = status_code
        self.hooks = hooks
        self.overrides = overrides
        self.snapshot = snapshot
        self.rebuild = rebuild  # overrides -> the route's new dependency tree
        self._late: dict[bool, tuple[dict[Any, Any], Program, Any]] = {}

    def overridden(self) -> bool:
        """Whether dependency_overrides differ from those the route was built with."""
        overrides = self.overrides()
        return not (not overrides and not self.snapshot or overrides == self.snapshot)

    def current(self, flat: dict[str, Any], request_of: Callable[[], Any]) -> tuple[Program, dict[str, Any]]:
        """The program for the overrides in force now (dependency_overrides may change after the app starts).
        `flat` holding UNVALIDATED (no C++-validated values: see late_routes.py): every parameter is read here."""
        everything = bool(flat.pop(UNVALIDATED, False))
        if not everything and not self.overridden():
            return self.program, flat
        overrides = self.overrides()
        cached = self._late.get(everything)
        if cached is None or cached[0] != overrides:
            program, plan = late.recompile(self, dict(overrides), reuse=not everything)
            cached = self._late[everything] = (dict(overrides), program, plan)
        _, program, plan = cached
        return program, late.fill(plan, flat, request_of())


def adopt_sub_response(result: Response, ex: Exchange) -> None:
    """A generator handler's streamed Response takes the status and headers that dependencies set on the
    injected Response, as FastAPI builds its JSONL, SSE and raw streams (a Response the handler returned
    itself is sent as it is)."""
    sub = ex.response
    if sub is None or not getattr(result, FROM_GENERATOR, False):
        return
    if sub.status_code:
        result.status_code = sub.status_code
    result.raw_headers.extend(sub.raw_headers)


def deliver(reply: Any, result: Any, ex: Exchange) -> Any:
    """Answers with the handler's result through the C++ encoder; returns the background tasks to run."""
    if isinstance(result, Response):
        adopt_sub_response(result, ex)
        own = getattr(result, "background", None)
        if own is None and ex.background is not None and getattr(result, "_take_background", None) is not None:
            # A streamed body: FastAPI attaches the dependencies' tasks to the response, so they run after it.
            result.background = own = ex.background
        reply.finish(result)
        # A streamed response took its background to run after the body (see _streaming.start).
        return None if getattr(result, "stream_done", None) is not None else own if own is not None \
            else ex.background
    sub = ex.response
    if sub is not None and (sub.status_code is not None or sub.raw_headers):
        reply.finish(result, sub.status_code or 0, tuple(sub.raw_headers))
    else:
        reply.finish(result)
    return ex.background


async def wait_streamed(response: Any) -> None:
    """A streamed or file response is sent by its own task: the exit code of `yield` dependencies waits for it
    (and for its background tasks), as in FastAPI. The task never raises."""
    done = getattr(response, "stream_done", None) if isinstance(response, Response) else None
    if done is not None:
        await asyncio.shield(done)


async def answer_through_chain(chain: Any, request: Any, reply: Any, hooks: Any,
                               respond: Callable[[Any, list[Callable[[], Any]]], Any]) -> None:
    """Runs `respond(request, after)` inside the HTTP middleware `chain`, sends its response, then (once a streamed
    body was sent) the `after` steps and the response's own background; an exception goes to the reply, or to the
    log once the response was sent. `hooks` bracket the whole exchange."""
    after: list[Callable[[], Any]] = []
    traced = getattr(chain, "telemetry", None)
    record = traced.start(request) if traced is not None else None  # the app's telemetry: None when off
    hooks.begin()
    try:
        response = await chain.run(request, lambda req: respond(req, after))
        reply.send(response)
        await wait_streamed(response)  # `yield` dependencies exit after a streamed body was sent
        if record is not None:
            record.finish(response.status_code)
        outer = getattr(response, "background", None)
        for step in after:
            await step()
        if outer is not None and all(getattr(step, "wrapped", step) is not outer for step in after):
            await outer()
    except Exception as exc:
        if record is not None:
            record.finish(error=exc)
        if reply.done:
            logger.error("Exception after the response was sent", exc_info=exc)
            _server_errors.report(getattr(hooks, "app", None), exc)
        else:
            reply.fail(exc, request)
    finally:
        if record is not None:
            record.finish(error=ConnectionError("Client disconnected"))  # cancelled before an answer (or no-op)
            record.detach()
        hooks.end()


async def _async_answer(hooks: Any, reply: Any, exc: BaseException, request: Any) -> bool:
    """The app's `async def` exception handler awaited here, in the request's task (AppRuntime.answer_async_error);
    False when there is none for `exc`."""
    answer = getattr(hooks, "answer_async_error", None)
    return bool(answer is not None and await answer(reply, exc, request))


def _request_of(ex: Exchange, reply: Any) -> Any:
    if ex.request is None:
        ex.request = reply.make_request()
    return ex.request


def make_runner(info: RouteInfo) -> Callable[..., Any]:
    """The handler of a route with dependencies in an app without HTTP middleware."""

    async def run(__reply__: Any, __request__: Any = None, **flat: Any) -> None:
        reply = __reply__
        ex = Exchange(__request__)
        hooks = info.hooks
        hooks.begin()
        sent = False
        try:
            program, values = info.current(flat, lambda: _request_of(ex, reply))
            if program.needs_request:
                _request_of(ex, reply)
            async with AsyncExitStack() as rstack:
                ex.rstack = rstack
                async with AsyncExitStack() as fstack:
                    ex.fstack = fstack
                    result = await solve(program, values, ex)
                background = deliver(reply, result, ex)
                sent = True
                await wait_streamed(result)
                if background is not None:
                    await background()
        except BaseException as exc:
            if sent:
                logger.error("Exception after the response was sent", exc_info=exc)
                _server_errors.report(getattr(hooks, "app", None), exc)
            elif not isinstance(exc, Exception) or not await _async_answer(hooks, reply, exc, ex.request):
                reply.fail(exc, ex.request)
            if not isinstance(exc, Exception):
                raise
        finally:
            hooks.end()
        if not sent and not reply.done:
            reply.fail(FastAPIError(_NOT_AWAITED), ex.request)

    return run


def to_response(result: Any, ex: Exchange, reply: Any, info: RouteInfo) -> Response:
    """The Response object FastAPI would have built from the handler's result (for HTTP middleware to see)."""
    if isinstance(result, Response):
        adopt_sub_response(result, ex)
        if getattr(result, "background", None) is None and ex.background is not None:
            result.background = ex.background  # type: ignore[attr-defined]
        return result
    endpoint = info.program.root.call if info.program is not None and telemetry.operating() else None
    with telemetry.operation("serialization", endpoint):
        value = info.prepare(result) if info.prepare is not None else result
        encoded = None if isinstance(value, Response) else reply.encode(value)
    sub = ex.response
    status = sub.status_code if sub is not None and sub.status_code else info.status_code
    if isinstance(value, Response):
        response = value
        if sub is not None and sub.status_code:
            response.status_code = sub.status_code
    else:
        response = Response(encoded, status_code=status, media_type="application/json")
    if sub is not None:
        response.raw_headers.extend(sub.raw_headers)
    response.background = ex.background  # type: ignore[attr-defined]
    return response


async def endpoint_response(info: RouteInfo, flat: dict[str, Any], request: Any, reply: Any,
                            after: list[Callable[[], Any]]) -> Response:
    """Solves and calls the handler inside the middleware chain; what must run after the response is sent
    (background tasks, then the exit code of "request"-scoped `yield` dependencies) goes to `after`."""
    ex = Exchange(request)
    program, values = info.current(flat, lambda: request)
    rstack = AsyncExitStack()
    ex.rstack = rstack
    try:
        async with AsyncExitStack() as fstack:
            ex.fstack = fstack
            result = await solve(program, values, ex)
        response = to_response(result, ex, reply, info)
    except BaseException as exc:
        if not await rstack.__aexit__(type(exc), exc, exc.__traceback__):
            raise
        raise FastAPIError(_NOT_AWAITED) from exc
    background = getattr(response, "background", None)
    if background is not None:
        after.append(_in_context(background))
    after.append(_in_context(rstack.aclose) if program.exits else rstack.aclose)
    return response


def _in_context(step: Callable[[], Any]) -> Callable[[], Any]:
    """`step` run later in the contextvars of now: FastAPI runs the background tasks and the exit code of `yield`
    dependencies in the task that called the endpoint, inside the HTTP middleware (whose contextvars they see)."""
    context = contextvars.copy_context()

    async def run() -> None:
        await asyncio.get_running_loop().create_task(step(), context=context)

    run.wrapped = step  # type: ignore[attr-defined]
    return run
