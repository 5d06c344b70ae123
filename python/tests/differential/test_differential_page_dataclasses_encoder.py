"""FastAPI vs Slipstream on the tutorial page "JSON Compatible Encoder" and the advanced pages "Using Dataclasses"
and "Separate OpenAPI Schemas for Input and Output or Not": a dataclass as the request body, as `response_model`
and as the return annotation, nested dataclasses with lists and defaults, `jsonable_encoder` of a model holding a
datetime (stored, then answered), a model whose field has a default read from one route and written by another
(`Item-Input`/`Item-Output`), the same with `separate_input_output_schemas=False`, and the OpenAPI documents.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import datetime as dt
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import client_pairs, new_app, page_row, same_answer_test


@dataclass
class Tool:
    name: str
    price: float
    description: str | None = None
    tax: float | None = None


@dataclass
class Part:
    name: str
    tags: list[str] = field(default_factory=list)


@dataclass
class Kit:
    name: str
    parts: list[Part]
    note: str = "assembled"


class Entry(BaseModel):
    title: str
    timestamp: dt.datetime
    description: str | None = None


class Item(BaseModel):
    name: str
    description: str | None = None


def dataclasses_app(fw: Any) -> Any:
    app = new_app(fw)
    encoders = importlib.import_module(f"{fw.__name__}.encoders")
    store: dict[str, Any] = {}

    @app.post("/tools/")
    async def create_tool(tool: Tool) -> Any:
        return tool

    @app.get("/tools/next", response_model=Tool)
    async def read_next_tool() -> Any:
        return {"name": "Island In The Moon", "price": 12.99, "description": "A place to be playin' and havin' fun"}

    @app.post("/kits/")
    async def create_kit(kit: Kit) -> Kit:
        kit.note = f"{len(kit.parts)} parts"
        return kit

    @app.get("/kits/", response_model=list[Kit])
    async def read_kits() -> Any:
        return [{"name": "Box", "parts": [{"name": "lid"}, {"name": "base", "tags": ["wood"]}]}]

    @app.put("/entries/{entry_id}")
    def update_entry(entry_id: str, entry: Entry) -> Any:
        store[entry_id] = encoders.jsonable_encoder(entry)
        return {"stored": store[entry_id], "type": type(store[entry_id]["timestamp"]).__name__}

    @app.post("/items/")
    def create_item(item: Item) -> Item:
        return item

    @app.get("/items/")
    def read_items() -> list[Item]:
        return [Item(name="Portal Gun", description="Device to travel through the multi-rick-verse"), Item(name="P")]

    return app


def joined_app(fw: Any) -> Any:
    app = new_app(fw, separate_input_output_schemas=False)

    @app.post("/items/")
    def create_item(item: Item) -> Item:
        return item

    @app.get("/items/")
    def read_items() -> list[Item]:
        return [Item(name="Plumbus")]

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"dataclasses": dataclasses_app, "joined": joined_app})


ROWS = [
    page_row("dataclasses", "POST", "/tools/", json={"name": "Saw", "price": "9.5"}),
    page_row("dataclasses", "POST", "/tools/", json={"name": "Saw"}),
    page_row("dataclasses", "GET", "/tools/next"),
    page_row(
        "dataclasses", "POST", "/kits/", json={"name": "K", "parts": [{"name": "a"}, {"name": "b", "tags": ["x"]}]}
    ),
    page_row("dataclasses", "POST", "/kits/", json={"name": "K", "parts": [{"tags": "x"}]}),
    page_row("dataclasses", "GET", "/kits/"),
    page_row("dataclasses", "PUT", "/entries/e1", json={"title": "T", "timestamp": "2026-12-07T10:00:00+02:00"}),
    page_row("dataclasses", "PUT", "/entries/e1", json={"title": "T", "timestamp": 1765101600}),
    page_row("dataclasses", "POST", "/items/", json={"name": "Gun"}),
    page_row("dataclasses", "GET", "/items/"),
    page_row("dataclasses", "GET", "/openapi.json"),
    page_row("joined", "GET", "/items/"),
    page_row("joined", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
