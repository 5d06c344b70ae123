"""Structured output validated while it streams in (an LLM's JSON, token by token).

    validator = StreamValidator(Answer)        # a pydantic model, any type pydantic accepts, or a JSON Schema dict
    for chunk in llm_stream:
        if validator.feed(chunk) is StreamState.INVALID:
            raise RuntimeError(validator.failure)   # offset, JSON pointer, schema keyword, message
        render(validator.partial()[0])              # the value so far, open strings and containers included
    validator.finish()
    answer = validator.result()                # an Answer

Parsing and validation run in C++ (agent/structured's StreamValidator): each chunk costs its own length, never
the length of what came before. A prefix is rejected at the byte that proves no continuation can satisfy the
schema (a wrong type started, a key `additionalProperties: false` refuses, a string past `maxLength` or matching
no `enum` member, an object closed without a `required` key, ...); the final verdict is the whole-document
validator's. The schema is the type's JSON Schema as pydantic writes it (`TypeAdapter(t).json_schema()`);
result() validates the finished document with pydantic too.

`ValidatedStreamResponse(source, Model)` streams such output to the client as it arrives (Server-Sent Events or
NDJSON): the value so far after every piece, then the document, or an error event naming the JSON pointer as soon
as the output can no longer be valid, which also closes the source (an async generator over an LLM client's
stream stops there, and with it the upstream request).
"""

from __future__ import annotations

import enum
import functools
import inspect
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from . import _native
from ._streaming_responses import StreamingResponse
from .sse import format_sse_event

__all__ = ["StreamFailure", "StreamState", "StreamValidator", "ValidatedStreamResponse", "stream_endpoint",
           "validated_events"]


class StreamState(enum.Enum):
    PARTIAL = "partial"    # every byte so far is the prefix of some valid document
    COMPLETE = "complete"  # the document ended and is valid
    INVALID = "invalid"    # no continuation can make it valid


_STATES = (StreamState.PARTIAL, StreamState.COMPLETE, StreamState.INVALID)


@dataclass(frozen=True)
class StreamFailure:
    """Why a stream is invalid: the byte offset that proved it, the instance location (JSON pointer), the schema
    keyword that can no longer be satisfied ("json" for malformed JSON) and a message."""

    offset: int
    pointer: str
    keyword: str
    message: str


class StreamValidator:
    """Validates one JSON document against a type's schema as chunks (str or bytes, split anywhere) arrive."""

    def __init__(self, schema: Any, *, max_depth: int = 64, max_string_bytes: int = 1 << 20) -> None:
        if isinstance(schema, Mapping):
            self.schema: dict[str, Any] = dict(schema)
            self._adapter: Any = None
        else:
            from pydantic import TypeAdapter  # a pydantic type only: a plain schema needs no pydantic

            self._adapter = TypeAdapter(schema)
            self.schema = self._adapter.json_schema()
        self._native = _native.NativeStreamValidator(json.dumps(self.schema), max_depth, max_string_bytes)
        self.state = StreamState.PARTIAL

    def feed(self, chunk: str | bytes) -> StreamState:
        """Consumes the next chunk; once INVALID, later chunks change nothing."""
        self.state = _STATES[self._native.feed(chunk)]
        return self.state

    def finish(self) -> StreamState:
        """The input ended: COMPLETE, or INVALID (also for a truncated document)."""
        self.state = _STATES[self._native.finish()]
        return self.state

    @property
    def failure(self) -> StreamFailure | None:
        got = self._native.failure()
        return None if got is None else StreamFailure(*got)

    def partial(self) -> tuple[Any, list[str]]:
        """(the value so far, JSON pointers of its incomplete parts): open objects and arrays as far as they
        go, an open string as far as it has come, a member whose value has not started left out. (None, []) before
        the first value. The value is one live object, updated in place as pieces arrive (a call costs about the
        open string's length, not the document's): copy it to keep a version."""
        value, pointers = self._native.snapshot_value()
        return value, pointers

    def result(self) -> Any:
        """The finished document: validated by pydantic into the type given, or the parsed JSON for a schema
        dict. ValueError unless the stream is COMPLETE."""
        if self.state is not StreamState.COMPLETE:
            raise ValueError(f"the stream is {self.state.value}, not complete")
        text, _ = self._native.snapshot()
        return json.loads(text) if self._adapter is None else self._adapter.validate_json(text)


async def validated_events(source: Any, schema: Any, *, partial: bool = True) -> AsyncIterator[tuple[str, Any]]:
    """(kind, payload) for each step of `source` (an async or sync iterable of str/bytes pieces of one JSON
    document) validated against `schema`: ("partial", the value so far) after each piece (`partial=False`:
    ("delta", the piece's text) instead), then ("complete", the document), or ("error", {offset, pointer, keyword,
    message}) at the first piece that makes it invalid, after which the source is closed and nothing more is read."""
    validator = schema if isinstance(schema, StreamValidator) else StreamValidator(schema)
    items = source.__aiter__() if hasattr(source, "__aiter__") else _as_async(source)
    try:
        async for piece in items:
            if validator.feed(piece) is StreamState.INVALID:
                yield "error", asdict(validator.failure)
                return
            if partial:
                yield "partial", validator.partial()[0]
            else:
                yield "delta", piece.decode() if isinstance(piece, bytes) else piece
        if validator.finish() is StreamState.INVALID:
            yield "error", asdict(validator.failure)
            return
        yield "complete", validator.partial()[0]
    finally:
        close = getattr(items, "aclose", None)
        if close is not None:
            result = close()
            if inspect.isawaitable(result):
                await result


async def _as_async(items: Any) -> AsyncIterator[Any]:
    for item in items:
        yield item


class ValidatedStreamResponse(StreamingResponse):
    """Streams `source` (str/bytes pieces of one JSON document, e.g. an LLM's output) validated against `schema`
    while it arrives (validated_events). `format="sse"` (default): `text/event-stream` events named partial / delta,
    complete, error, each `data:` compact JSON; `format="ndjson"`: `application/x-ndjson`, one
    {"type": ..., "value": ...} object per line. The status is 200 whatever the output turns out to be: the error
    event says why it stopped."""

    def __init__(self, source: Any, schema: Any, *, format: str = "sse", partial: bool = True,
                 status_code: int = 200, headers: Mapping[str, str] | None = None, background: Any = None) -> None:
        if format not in ("sse", "ndjson"):
            raise ValueError('format must be "sse" or "ndjson"')
        validator = StreamValidator(schema)  # a bad schema fails here, before anything is sent
        events = validated_events(source, validator, partial=partial)
        body = _sse(events) if format == "sse" else _ndjson(events)
        super().__init__(body, status_code=status_code, headers=headers,
                         media_type="text/event-stream" if format == "sse" else "application/x-ndjson",
                         background=background)
        if format == "sse":
            for name, value in (("cache-control", "no-cache"), ("x-accel-buffering", "no")):
                if name not in self.headers:
                    self.headers[name] = value


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def _sse(events: AsyncIterator[tuple[str, Any]]) -> AsyncIterator[bytes]:
    async for kind, value in events:
        yield format_sse_event(data_str=_compact(value), event=kind)


async def _ndjson(events: AsyncIterator[tuple[str, Any]]) -> AsyncIterator[bytes]:
    async for kind, value in events:
        yield (_compact({"type": kind, "value": value}) + "\n").encode()


def stream_endpoint(endpoint: Any, schema: Any, *, format: str = "sse", partial: bool = True) -> Any:
    """`@app.post(..., response_stream=Model)`: the handler (an async or sync generator of str/bytes pieces, or a
    function returning an iterable of them) answers a ValidatedStreamResponse of its pieces against `schema`. The
    wrapper keeps the handler's parameters (dependencies, body, query) and is checked at the decorator."""
    StreamValidator(schema)  # a schema that does not compile fails at the decorator

    @functools.wraps(endpoint)
    async def streamed(*args: Any, **kwargs: Any) -> ValidatedStreamResponse:
        source = endpoint(*args, **kwargs)
        if inspect.isawaitable(source):
            source = await source
        return ValidatedStreamResponse(source, schema, format=format, partial=partial)

    streamed.__annotations__ = {**getattr(endpoint, "__annotations__", {}), "return": ValidatedStreamResponse}
    signature = inspect.signature(endpoint)
    streamed.__signature__ = signature.replace(return_annotation=ValidatedStreamResponse)  # type: ignore[attr-defined]
    return streamed
