"""Validation errors the C++ validator forwards to Python (RouteSpec.forward_errors) raised as FastAPI raises them:
through the app's exception handlers and HTTP middleware. `answer_forwarded` is the extension's entry point (an
AppRuntime attribute, read once by python/bindings/app_context.cpp)."""

from __future__ import annotations

import json
from typing import Any

from . import middleware, telemetry
from ._error_responses import conversion_exception
from .dependencies import param_models
from .exceptions import HTTPException, RequestValidationError, _body_of

_BODY_PARSE_ERROR = "There was an error parsing the body"


def forwarded_exception(text: str, request: Any) -> Exception:
    """The exception FastAPI raises for the response body the C++ validator wrote: RequestValidationError for a
    422 {"detail": [...]}, HTTPException(400) for a body that could not be read."""
    detail = json.loads(text).get("detail")
    if isinstance(detail, str):
        return HTTPException(400, _BODY_PARSE_ERROR)
    errors = [{**error, "loc": tuple(error.get("loc", ()))} for error in detail]
    return RequestValidationError(errors, body=_body_of(request))


def answer_forwarded(route: Any, request: Any, text: Any, reply: Any) -> Any:
    """Called by the extension for a route whose validation failures go through Python (RouteSpec.forward_errors):
    raises them as FastAPI does, through the app's HTTP middleware (a coroutine the extension runs) or straight to
    its exception handlers. `text`: the C++ validator's 422/400 body, or the ((exception, loc), ...) of arguments
    whose Python conversion raised; the errors of parameters pydantic validates (_fallback.py) are added."""
    rerun = getattr(getattr(route, "handler", None), "_slipstream_rerun", None)
    if isinstance(text, str):
        if rerun is not None and rerun.applies(text, request):  # dependency_overrides changed: read the new tree
            return rerun(request, reply)
        exc: Exception = forwarded_exception(text, request)
    else:  # arguments whose conversion raised (see _error_responses.conversion_exception)
        if rerun is not None and rerun.info.overridden():
            return rerun(request, reply)
        exc = conversion_exception(route, request, text)  # type: ignore[assignment]
    fallback = getattr(route, "fallback", None)
    if fallback is not None and isinstance(exc, RequestValidationError):  # add pydantic's errors (_fallback.py)
        exc = RequestValidationError(fallback.merge(exc.errors(), request), body=exc.body)
    models = getattr(getattr(route, "handler", None), "_slipstream_models", None)
    if models and isinstance(exc, RequestValidationError):
        exc = RequestValidationError(param_models.merge_errors(exc.errors(), models, request, route.params),
                                     body=exc.body)
    early = getattr(getattr(route, "handler", None), "_slipstream_early", None)
    if early is not None and not (isinstance(exc, RequestValidationError) and early.applies(exc.errors())):
        early = None
    app = getattr(request, "app", None)
    if app is not None and (getattr(app, "user_middleware", None) or getattr(app, "telemetry", None) is not None):
        return _through_middleware(app, request, exc, reply, early,
                                   getattr(getattr(route, "handler", None), "_slipstream_endpoint", None))
    if early is not None:
        return _after_dependencies(early, request, exc, reply)
    reply.fail(exc, request)
    return None


async def _after_dependencies(early: Any, request: Any, exc: RequestValidationError, reply: Any) -> None:
    """FastAPI's order: the dependencies with valid parameters run first; what one raises wins over the 422."""
    try:
        await early.run(exc, request)
    except Exception as raised:  # noqa: BLE001 - the 422, or what a dependency raised first, as in FastAPI
        reply.fail(raised, request)


async def _through_middleware(app: Any, request: Any, exc: Exception, reply: Any, early: Any = None,
                              function: Any = None) -> None:
    chain = getattr(app, "_slipstream_error_chain", None)
    if chain is None:
        chain = middleware.MiddlewareChain([middleware.dispatcher(m) for m in app.user_middleware],
                                           app.exception_handlers, getattr(app, "telemetry", None))
        app._slipstream_error_chain = chain

    async def endpoint(_request: Any) -> Any:
        with telemetry.operation("dependencies", function):  # FastAPI finds the errors solving the dependencies
            if early is not None:
                await early.run(exc, request)  # raises exc, or what a dependency raised
            raise exc

    record = chain.telemetry.start(request) if chain.telemetry is not None else None
    try:
        response = await chain.run(request, endpoint)
        reply.send(response)
        if record is not None:
            record.finish(response.status_code)
    finally:
        if record is not None:
            record.finish(error=ConnectionError("Client disconnected"))
            record.detach()
