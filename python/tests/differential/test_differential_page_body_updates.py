"""FastAPI vs Slipstream on the tutorial page "Body - Updates": replacing a stored item with PUT (jsonable_encoder
of the model), partial updates with PATCH (`model_dump(exclude_unset=True)` and `model_copy(update=...)`), the
defaults a PUT without them resets, and the OpenAPI document of those operations.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Item(BaseModel):
    name: str | None = None
    description: str | None = None
    price: float | None = None
    tax: float = 10.5
    tags: list[str] = []


def body_updates_app(fw: Any) -> Any:
    app = new_app(fw)
    encoders = importlib.import_module(f"{fw.__name__}.encoders")
    items: dict[str, Any] = {
        "foo": {"name": "Foo", "price": 50.2},
        "bar": {"name": "Bar", "description": "The bartenders", "price": 62, "tax": 20.2},
        "baz": {"name": "Baz", "description": None, "price": 50.2, "tax": 10.5, "tags": []},
    }

    @app.get("/items/{item_id}", response_model=Item)
    async def read_item(item_id: str) -> Any:
        if item_id not in items:
            raise fw.HTTPException(status_code=404, detail="Item not found")
        return items[item_id]

    @app.put("/items/{item_id}", response_model=Item)
    async def update_item(item_id: str, item: Item) -> Any:
        update_item_encoded = encoders.jsonable_encoder(item)
        items[item_id] = update_item_encoded
        return update_item_encoded

    @app.patch("/items/{item_id}", response_model=Item)
    async def patch_item(item_id: str, item: Item) -> Any:
        stored_item_data = items.get(item_id, {})
        stored_item_model = Item(**stored_item_data)
        update_data = item.model_dump(exclude_unset=True)
        updated_item = stored_item_model.model_copy(update=update_data)
        items[item_id] = encoders.jsonable_encoder(updated_item)
        return updated_item

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"body-updates": body_updates_app})


# In order: each request sees the store the earlier ones left.
ROWS = [
    page_row("body-updates", "GET", "/items/foo"),
    page_row("body-updates", "GET", "/items/bar"),
    page_row("body-updates", "GET", "/items/nope"),
    page_row("body-updates", "PUT", "/items/bar", json={"name": "Barz", "price": 3, "description": None}),
    page_row("body-updates", "GET", "/items/bar"),
    page_row("body-updates", "PATCH", "/items/baz", json={"price": 7.5, "tags": ["new"]}),
    page_row("body-updates", "GET", "/items/baz"),
    page_row("body-updates", "PATCH", "/items/new", json={"name": "New"}),
    page_row("body-updates", "GET", "/items/new"),
    page_row("body-updates", "PATCH", "/items/foo", json={"tax": "lots"}),
    page_row("body-updates", "PUT", "/items/foo", json={"tags": "not-a-list"}),
    page_row("body-updates", "PUT", "/items/foo", content=b"{broken", headers={"content-type": "application/json"}),
    page_row("body-updates", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
