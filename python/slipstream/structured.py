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
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _native

__all__ = ["StreamFailure", "StreamState", "StreamValidator"]


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
        the first value."""
        text, pointers = self._native.snapshot()
        return (None if text is None else json.loads(text)), pointers

    def result(self) -> Any:
        """The finished document: validated by pydantic into the type given, or the parsed JSON for a schema
        dict. ValueError unless the stream is COMPLETE."""
        if self.state is not StreamState.COMPLETE:
            raise ValueError(f"the stream is {self.state.value}, not complete")
        text, _ = self._native.snapshot()
        return json.loads(text) if self._adapter is None else self._adapter.validate_json(text)
