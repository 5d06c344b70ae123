"""FastAPI vs Slipstream on the tutorial pages "Server-Sent Events (SSE)" and "Stream JSON Lines": a handler that
yields models, dicts or `ServerSentEvent`s (data, event, id, retry, comment, raw data) with
`response_class=EventSourceResponse`, over GET and POST, an async generator annotated `AsyncIterable[Item]` answered
as JSON Lines, a sync generator, a validated body in front of a stream (its 422), and the OpenAPI document of all
of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import importlib
from collections.abc import AsyncIterable, Callable, Iterable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Item(BaseModel):
    name: str
    description: str | None = None


class Prompt(BaseModel):
    text: str
    repeat: int = 2


ITEMS = [Item(name="Plumbus", description="A multi-purpose household device."), Item(name="Portal Gun")]


def streaming_app(fw: Any) -> Any:
    app = new_app(fw)
    sse = importlib.import_module(f"{fw.__name__}.sse")
    EventSourceResponse, ServerSentEvent = sse.EventSourceResponse, sse.ServerSentEvent

    @app.get("/items/stream", response_class=EventSourceResponse)
    async def sse_items() -> AsyncIterable[Item]:
        for item in ITEMS:
            yield item

    @app.get("/items/dicts", response_class=EventSourceResponse)
    async def sse_dicts() -> AsyncIterable[dict]:
        yield {"n": 1}
        yield {"n": 2, "text": "two\nlines"}

    @app.get("/items/events", response_class=EventSourceResponse)
    async def sse_events() -> AsyncIterable[ServerSentEvent]:
        yield ServerSentEvent(comment="stream of items")
        for i, item in enumerate(ITEMS):
            yield ServerSentEvent(data=item, event="item_update", id=str(i + 1), retry=5000)
        yield ServerSentEvent(raw_data="[DONE]", event="done")

    @app.post("/chat/stream", response_class=EventSourceResponse)
    async def chat(prompt: Prompt) -> AsyncIterable[ServerSentEvent]:
        for i in range(prompt.repeat):
            yield ServerSentEvent(data={"token": prompt.text, "i": i}, event="token")

    @app.get("/items/jsonl")
    async def jsonl_items() -> AsyncIterable[Item]:
        for item in ITEMS:
            yield item

    @app.get("/items/jsonl-sync")
    def jsonl_sync() -> Iterable[Item]:
        yield from ITEMS

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"streaming": streaming_app})


ROWS = [
    page_row("streaming", "GET", "/items/stream"),
    page_row("streaming", "GET", "/items/dicts"),
    page_row("streaming", "GET", "/items/events"),
    page_row("streaming", "POST", "/chat/stream", json={"text": "hi", "repeat": 3}),
    page_row("streaming", "POST", "/chat/stream", json={"repeat": "x"}),
    page_row("streaming", "GET", "/items/jsonl"),
    page_row("streaming", "GET", "/items/jsonl-sync"),
    page_row("streaming", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
