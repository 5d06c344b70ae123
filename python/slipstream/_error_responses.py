"""Exceptions -> responses, as Starlette's exception middleware answers them: the app's exception handlers, else
FastAPI's defaults (HTTPException -> its status and {"detail": ...}, RequestValidationError -> 422, else 500),
and one of ours: a database that cannot answer (unreachable, connection lost, no connection free in time, the
statement's deadline) -> 503 {"detail": "database unavailable"} with Retry-After, as the C++ apps answer it."""

from __future__ import annotations

import asyncio
import html
import inspect
import logging
import traceback
from typing import Any

from . import _server_errors
from ._database.errors import DatabaseError
from ._encoders import encode_fallback
from .exceptions import HTTP_EXCEPTION, RequestValidationError, _body_of  # the body FastAPI hands a handler
from .requests import Request
from .responses import HTMLResponse, JSONResponse, PlainTextResponse, Response

logger = logging.getLogger("slipstream.error")


async def _call_async_handler(handler: Any, request: Request, exc: BaseException) -> Response:
    result = handler(request, exc)
    if asyncio.iscoroutine(result):
        result = await result
    return result


async def handled_error_response(errors: Any, request: Request, exc: BaseException) -> Response | None:
    """Starlette's ExceptionMiddleware: the app's handler for `exc` (not the 500/Exception ones), else the
    defaults for HTTPException and RequestValidationError; None when nothing handles it."""
    handler = errors.lookup(exc) if errors is not None else None
    if handler is not None and (handler is errors.by_status.get(500) or handler is errors.by_class.get(Exception)):
        handler = None
    if handler is not None:
        return await _call_async_handler(handler, request, exc)
    if isinstance(exc, (HTTP_EXCEPTION, RequestValidationError)) or _database_unavailable(exc):
        return _default_response(exc, request)
    return None


def _database_unavailable(exc: BaseException) -> bool:
    return isinstance(exc, DatabaseError) and exc.status in ("unavailable", "timeout")


def _debug(errors: Any) -> bool:
    return bool(getattr(errors, "debug", False))


def debug_response(request: Request | None, exc: BaseException) -> Response:
    """Starlette's ServerErrorMiddleware with debug=True: the traceback, as an HTML page when the client accepts
    text/html, else as plain text (the app's 500 handler is not called)."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    accept = request.headers.get("accept", "") if request is not None else ""
    if "text/html" in accept:
        page = (f"<!DOCTYPE html><html><head><title>{html.escape(type(exc).__name__)}</title></head><body>"
                f"<h1>500 Server Error</h1><pre>{html.escape(text)}</pre></body></html>")
        return HTMLResponse(page, status_code=500)
    return PlainTextResponse(text, status_code=500)


async def server_error_response(errors: Any, request: Request, exc: BaseException) -> Response:
    """Starlette's ServerErrorMiddleware: the app's 500 (or Exception) handler, else a plain 500; logged. With the
    App's debug=True, the traceback instead."""
    logger.error("Exception in ASGI application%s", _where(request), exc_info=exc)
    _server_errors.report(getattr(request, "app", None), exc)
    if _debug(errors):
        return debug_response(request, exc)
    handler = None if errors is None else errors.by_status.get(500) or errors.by_class.get(Exception)
    if handler is not None:
        try:
            return await _call_async_handler(handler, request, exc)
        except Exception as second:
            logger.error("Exception in exception handler", exc_info=second)
    return PlainTextResponse("Internal Server Error", status_code=500)


def _where(request: Request | None) -> str:
    """"GET /path" for a log line (the path only: the query may carry secrets)."""
    if request is None:
        return ""
    try:
        return f": {request.method} {request.url.path}"
    except Exception:  # noqa: BLE001 - a log line must not fail
        return ""


def http_exception_response(exc: Any) -> Response:
    """FastAPI's answer to an HTTPException: {"detail": ...} with its status and headers; no body for the
    statuses that allow none (1xx, 204, 205, 304)."""
    headers = getattr(exc, "headers", None)
    if exc.status_code < 200 or exc.status_code in (204, 205, 304):
        return Response(status_code=exc.status_code, headers=headers)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)


def validation_error_response(exc: Any) -> Response:
    """FastAPI's answer to a RequestValidationError: 422 {"detail": [errors]}."""
    return JSONResponse({"detail": _jsonable(exc.errors())}, status_code=422)


def _default_response(exc: BaseException, request: Request | None = None) -> Response:
    if isinstance(exc, HTTP_EXCEPTION):
        return http_exception_response(exc)
    if isinstance(exc, RequestValidationError):
        return validation_error_response(exc)
    if _database_unavailable(exc):
        logger.warning("database unavailable: %s", exc)
        return JSONResponse({"detail": "database unavailable"}, status_code=503, headers={"Retry-After": "1"})
    logger.error("Exception in handler%s", _where(request), exc_info=exc)
    return PlainTextResponse("Internal Server Error", status_code=500)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):  # as FastAPI's jsonable_encoder(sqlalchemy_safe=True): "_sa*" keys left out
        return {str(k): _jsonable(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("_sa"))}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, BaseException):
        return {}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return _jsonable(encode_fallback(value))


def _call_handler(handler: Any, request: Request, exc: BaseException) -> Any:
    """The handler's Response; for an `async def` handler, a coroutine that gives it (never raising), which the
    engine steps as a handler's coroutine: in the request's task, going on there when it suspends."""
    result = handler(request, exc)
    if asyncio.iscoroutine(result):
        return _guarded(result)
    return result


async def _guarded(coro: Any) -> Response:
    try:
        return await coro  # type: ignore[no-any-return]
    except Exception as second:
        logger.error("Exception in exception handler", exc_info=second)
        return PlainTextResponse("Internal Server Error", status_code=500)


def _reaches_server_layer(errors: Any, handler: Any, exc: BaseException) -> bool:
    """Whether Starlette's ServerErrorMiddleware sees `exc` (and re-raises it, after the app's 500/Exception
    handler answered): no handler took it, and it is not one that FastAPI's defaults answer."""
    if handler is not None and handler is not errors.by_status.get(500) and handler is not errors.by_class.get(Exception):
        return False
    return not (isinstance(exc, (HTTP_EXCEPTION, RequestValidationError)) or _database_unavailable(exc))


def handle_error(route: Any, request: Request, exc: BaseException) -> Response:
    """The response for an exception raised by a handler: the app's exception handlers, else FastAPI's defaults."""
    errors = route.app_errors
    handler = errors.lookup(exc) if errors is not None else None
    if _reaches_server_layer(errors, handler, exc):
        _server_errors.report(getattr(request, "app", None), exc)
        if _debug(errors):
            logger.error("Exception in handler%s", _where(request), exc_info=exc)
            return debug_response(request, exc)
    if handler is None:
        return _default_response(exc, request)
    try:
        return _call_handler(handler, request, exc)
    except Exception as second:
        logger.error("Exception in exception handler", exc_info=second)
        return PlainTextResponse("Internal Server Error", status_code=500)


def async_handler_for(errors: Any, exc: BaseException) -> Any:
    """The app's `async def` exception handler for `exc`, or None (then handle_error answers, synchronously)."""
    handler = errors.lookup(exc) if errors is not None else None
    if handler is None or (_debug(errors) and _reaches_server_layer(errors, handler, exc)):
        return None
    call = getattr(handler, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return handler if inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(call) else None


async def await_handler(errors: Any, handler: Any, request: Request, exc: BaseException) -> Response:
    """handle_error() for an `async def` handler, awaited in the caller's task (a runner's: it may suspend)."""
    if _reaches_server_layer(errors, handler, exc):
        _server_errors.report(getattr(request, "app", None), exc)
    try:
        return await handler(request, exc)  # type: ignore[no-any-return]
    except Exception as second:
        logger.error("Exception in exception handler", exc_info=second)
        return PlainTextResponse("Internal Server Error", status_code=500)


def conversion_exception(route: Any, request: Request, failures: Any) -> BaseException:
    """The exception FastAPI raises for arguments whose Python conversion (pydantic validators, custom types,
    parameters pydantic validates) raised: `failures` is a tuple of (exception, loc prefix). A RequestValidationError
    with every parameter's errors, loc-prefixed (the body as FastAPI passes it), or the first exception that is not
    a ValidationError."""
    detail = []
    for exc, loc in failures:
        if not isinstance(exc, BaseException):  # a conversion that failed without raising: a bug, answered 500
            return RuntimeError(f"argument conversion failed without an exception at {loc!r}")
        errors = getattr(exc, "errors", None)
        if not (callable(errors) and type(exc).__name__ == "ValidationError"):
            return exc
        for error in exc.errors(include_url=False):
            error = dict(error)
            error["loc"] = (*loc, *error.get("loc", ()))
            detail.append(error)
    return RequestValidationError(detail, body=_body_of(request))


def conversion_failed(route: Any, request: Request, failures: Any, _loc: Any = None) -> Response:
    """conversion_exception() answered through the app's exception handlers (or FastAPI's defaults), with the
    errors of parameters pydantic validates in FastAPI's order."""
    exc = conversion_exception(route, request, failures)
    fallback = getattr(route, "fallback", None)
    if fallback is not None and isinstance(exc, RequestValidationError):
        exc = RequestValidationError(fallback.merge(exc.errors(), request), body=exc.body)
    return handle_error(route, request, exc)
