"""HTTPException (answered with its status and {"detail": ...}) and RequestValidationError (422); and the errors the
C++ validator forwards to Python when the app handles them itself (answer_forwarded)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

try:  # FastAPI's hierarchy: its HTTPException is Starlette's, so handlers for either class see both
    from starlette.exceptions import HTTPException as _StarletteHTTPException
except ImportError:  # Starlette is optional
    _StarletteHTTPException = None

_Base: Any = _StarletteHTTPException if _StarletteHTTPException is not None else Exception


class HTTPException(_Base):  # type: ignore[misc]
    """Raise in a handler to answer `status_code` with FastAPI's body {"detail": detail} and `headers`.

    A subclass of `starlette.exceptions.HTTPException` when Starlette is installed (as FastAPI's is): one raised
    from Starlette's class gets the same answer, and a handler registered for Starlette's class catches this one."""

    def __init__(self, status_code: int, detail: Any = None, headers: Mapping[str, str] | None = None) -> None:
        if detail is None:
            try:
                detail = HTTPStatus(status_code).phrase
            except ValueError:
                detail = ""
        self.status_code = status_code
        self.detail = detail
        self.headers = dict(headers) if headers is not None else None
        Exception.__init__(self, status_code, detail)

    def __str__(self) -> str:
        return f"{self.status_code}: {self.detail}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status_code={self.status_code!r}, detail={self.detail!r})"


HTTP_EXCEPTION: Any = _StarletteHTTPException if _StarletteHTTPException is not None else HTTPException
"""The class whose instances are answered with their status and {"detail": ...}: Starlette's HTTPException when
Starlette is installed (slipstream's is one), else slipstream's."""


class RequestValidationError(Exception):
    """Invalid request input: `errors()` is FastAPI's list ({type, loc (a tuple), msg, input, ctx?}), `body` the
    request body as FastAPI passes it (parsed JSON, the text of invalid JSON, None when empty).

    Invalid input found by the C++ validator is answered 422 before any Python runs, unless the app registers a
    handler for this class or has HTTP middleware: then it is raised here too, and goes through them as in FastAPI.
    """

    def __init__(self, errors: Sequence[Any], *, body: Any = None) -> None:
        super().__init__(errors)
        self._errors = list(errors)
        self.body = body

    def errors(self) -> list[Any]:
        return self._errors

    def __str__(self) -> str:
        return f"{len(self._errors)} validation error(s): {self._errors!r}"


_BODY_PARSE_ERROR = "There was an error parsing the body"


def _body_of(request: Any) -> Any:
    """The body as FastAPI sets `RequestValidationError.body`: parsed JSON, the text of invalid JSON, None when
    empty, the bytes of a body that is not JSON."""
    raw = getattr(request, "body_bytes", b"")
    if not raw:
        return None
    content_type = request.headers.get("content-type", "") if hasattr(request, "headers") else ""
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or (media.startswith("application/") and media.endswith("+json")):
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")
    return raw


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
    else:  # arguments whose conversion raised (see _runtime.conversion_exception)
        from ._runtime import conversion_exception

        if rerun is not None and rerun.info.overridden():
            return rerun(request, reply)
        exc = conversion_exception(route, request, text)  # type: ignore[assignment]
    fallback = getattr(route, "fallback", None)
    if fallback is not None and isinstance(exc, RequestValidationError):  # add pydantic's errors (_fallback.py)
        exc = RequestValidationError(fallback.merge(exc.errors(), request), body=exc.body)
    models = getattr(getattr(route, "handler", None), "_slipstream_models", None)
    if models and isinstance(exc, RequestValidationError):
        from .dependencies import param_models

        exc = RequestValidationError(param_models.merge_errors(exc.errors(), models, request, route.params),
                                     body=exc.body)
    early = getattr(getattr(route, "handler", None), "_slipstream_early", None)
    if early is not None and not (isinstance(exc, RequestValidationError) and early.applies(exc.errors())):
        early = None
    app = getattr(request, "app", None)
    if app is not None and getattr(app, "user_middleware", None):
        return _through_middleware(app, request, exc, reply, early)
    if early is not None:
        return _after_dependencies(early, request, exc, reply)
    reply.fail(exc, request)
    return None


async def _after_dependencies(early: Any, request: Any, exc: RequestValidationError, reply: Any) -> None:
    """FastAPI's order: the dependencies with valid parameters run first; what one raises wins over the 422."""
    try:
        await early.run(exc.errors(), request)
    except Exception as raised:  # noqa: BLE001 - whatever a dependency raises is the answer, as in FastAPI
        reply.fail(raised, request)
        return
    reply.fail(exc, request)


async def _through_middleware(app: Any, request: Any, exc: Exception, reply: Any, early: Any = None) -> None:
    from . import middleware

    chain = getattr(app, "_slipstream_error_chain", None)
    if chain is None:
        chain = middleware.MiddlewareChain([middleware.dispatcher(m) for m in app.user_middleware],
                                           app.exception_handlers)
        app._slipstream_error_chain = chain

    async def endpoint(_request: Any) -> Any:
        if early is not None:
            await early.run(exc.errors(), request)  # type: ignore[attr-defined]
        raise exc

    reply.send(await chain.run(request, endpoint))
