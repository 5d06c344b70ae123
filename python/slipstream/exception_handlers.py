"""FastAPI's default exception handlers, for apps that answer as FastAPI does after their own work (logging,
metrics): `return await http_exception_handler(request, exc)` inside a handler registered with
`@app.exception_handler(HTTPException)`."""

from __future__ import annotations

from typing import Any

from ._error_responses import _jsonable, http_exception_response, validation_error_response
from .requests import Request
from .responses import Response

WS_1008_POLICY_VIOLATION = 1008


async def http_exception_handler(request: Request, exc: Any) -> Response:
    """{"detail": exc.detail} with the exception's status and headers (no body for 1xx, 204, 205 and 304)."""
    return http_exception_response(exc)


async def request_validation_exception_handler(request: Request, exc: Any) -> Response:
    """422 {"detail": exc.errors()}."""
    return validation_error_response(exc)


async def websocket_request_validation_exception_handler(websocket: Any, exc: Any) -> None:
    """Closes the WebSocket with 1008 (policy violation) and the errors as the reason."""
    errors = exc.errors() if callable(exc.errors) else exc.errors
    await websocket.close(code=WS_1008_POLICY_VIOLATION, reason=str(_jsonable(errors)))


__all__ = ["http_exception_handler", "request_validation_exception_handler",
           "websocket_request_validation_exception_handler"]
