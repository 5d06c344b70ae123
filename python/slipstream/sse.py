"""Server-Sent Events as FastAPI spells them (fastapi.sse): EventSourceResponse, ServerSentEvent, format_sse_event.

A handler that `yield`s with `response_class=EventSourceResponse` streams each item as one event: a ServerSentEvent
as given, anything else JSON-encoded into `data:`. The wire format is built in C++ (_native.format_sse).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field, model_validator

from . import _native
from ._streaming_responses import EventSourceResponse

KEEPALIVE_COMMENT = b": ping\n\n"


def _single_line(v: str | None, name: str) -> str | None:
    if v is not None and ("\r" in v or "\n" in v):
        raise ValueError(f"SSE '{name}' must be a single line")
    return v


def _check_event(v: str | None) -> str | None:
    return _single_line(v, "event")


def _check_id(v: str | None) -> str | None:
    if v is not None and "\0" in v:
        raise ValueError("SSE 'id' must not contain null characters")
    return _single_line(v, "id")


class ServerSentEvent(BaseModel):
    """One event: `data` (JSON-encoded) or `raw_data` (sent as is), `event`, `id`, `retry` (ms), `comment`."""

    data: Any = None
    raw_data: str | None = None
    event: Annotated[str | None, AfterValidator(_check_event)] = None
    id: Annotated[str | None, AfterValidator(_check_id)] = None
    retry: Annotated[int | None, Field(ge=0)] = None
    comment: str | None = None

    @model_validator(mode="after")
    def _check_data_exclusive(self) -> ServerSentEvent:
        if self.data is not None and self.raw_data is not None:
            raise ValueError("Cannot set both 'data' and 'raw_data' on the same ServerSentEvent. Use 'data' for "
                             "JSON-serialized payloads or 'raw_data' for pre-formatted strings.")
        return self


def format_sse_event(*, data_str: str | None = None, event: str | None = None, id: str | None = None,
                     retry: int | None = None, comment: str | None = None) -> bytes:
    """FastAPI's wire format: comment lines, `event:`, one `data:` per line (CRLF, CR, LF), `id:`, `retry:`, blank."""
    return _native.format_sse(data_str, event, id, retry, comment)


__all__ = ["KEEPALIVE_COMMENT", "EventSourceResponse", "ServerSentEvent", "format_sse_event"]
