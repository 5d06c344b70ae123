"""HTTPException (answered with its status and {"detail": ...}) and RequestValidationError (422).

The errors the C++ validator forwards to Python when the app handles them itself are raised by _forwarded.py; the
request body they carry is read by _body_of."""

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


class NoMatchFound(Exception):
    """`url_path_for` / `request.url_for(name, **path_params)` found no route with that name and those path
    parameters (Starlette's exception, with its message)."""

    def __init__(self, name: str, path_params: dict[str, Any]) -> None:
        params = ", ".join(path_params)
        super().__init__(f'No route exists for name "{name}" and params "{params}".')
