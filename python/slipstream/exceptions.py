"""HTTPException (answered with its status and {"detail": ...}) and RequestValidationError (422)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any


class HTTPException(Exception):
    """Raise in a handler to answer `status_code` with FastAPI's body {"detail": detail} and `headers`."""

    def __init__(self, status_code: int, detail: Any = None, headers: Mapping[str, str] | None = None) -> None:
        if detail is None:
            try:
                detail = HTTPStatus(status_code).phrase
            except ValueError:
                detail = ""
        self.status_code = status_code
        self.detail = detail
        self.headers = dict(headers) if headers is not None else None
        super().__init__(status_code, detail)

    def __str__(self) -> str:
        return f"{self.status_code}: {self.detail}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status_code={self.status_code!r}, detail={self.detail!r})"


class RequestValidationError(Exception):
    """Invalid request input found in Python (pydantic validators of a parameter or body model).

    Invalid input found by the C++ validator is answered 422 before any Python runs; this one goes through
    the app's exception handlers like FastAPI's.
    """

    def __init__(self, errors: Sequence[Any], *, body: Any = None) -> None:
        super().__init__(errors)
        self._errors = list(errors)
        self.body = body

    def errors(self) -> list[Any]:
        return self._errors

    def __str__(self) -> str:
        return f"{len(self._errors)} validation error(s): {self._errors!r}"
