"""Operation spans inside a traced request (FastAPI's names): fastapi.dependencies, fastapi.endpoint,
fastapi.serialization and fastapi.background_task, each with code.function.name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from opentelemetry.trace import StatusCode

from ..exceptions import HTTP_EXCEPTION, RequestValidationError
from ._request import current, exception_type

_NOTHING = nullcontext()


def _expected(exc: BaseException) -> bool:
    """Exceptions that are answers (HTTP errors, validation errors, a WebSocket closed normally), not failures."""
    from .._core.websocket import WebSocketDisconnect, WebSocketException

    if isinstance(exc, (HTTP_EXCEPTION, RequestValidationError, WebSocketException)):
        return True
    return isinstance(exc, WebSocketDisconnect) and getattr(exc, "code", None) in (1000, 1001)


def operation(name: str, function: Callable[..., Any] | None) -> Any:
    record = current()
    if record is None or record.tracer is None:
        return _NOTHING
    return _span(record.tracer, name, function)


@contextmanager
def _span(tracer: Any, name: str, function: Callable[..., Any] | None) -> Iterator[None]:
    attributes = {}
    if function is not None:
        module = getattr(function, "__module__", type(function).__module__)
        qualname = getattr(function, "__qualname__", type(function).__qualname__)
        attributes["code.function.name"] = f"{module}.{qualname}"
    with tracer.start_as_current_span(
        f"fastapi.{name}", attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            yield
        except Exception as exc:
            if name == "background_task" or not _expected(exc):
                span.set_attribute("error.type", exception_type(exc))
                span.set_status(StatusCode.ERROR)
            raise
