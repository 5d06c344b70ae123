"""The tutorial's validation app: a request body model, constrained parameters and a response model."""

from typing import Annotated

from pydantic import BaseModel, Field
from slipstream import App, HTTPException, Path, Query

app = App(title="Shop")


class Item(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    price: float = Field(gt=0)
    tags: list[str] = []


class StoredItem(Item):
    id: int


ITEMS: dict[int, StoredItem] = {}


@app.post("/items", status_code=201)
def create_item(item: Item) -> StoredItem:
    stored = StoredItem(id=len(ITEMS) + 1, **item.model_dump())
    ITEMS[stored.id] = stored
    return stored


@app.get("/items/{item_id}")
def read_item(item_id: Annotated[int, Path(ge=1)]) -> StoredItem:
    if item_id not in ITEMS:
        raise HTTPException(status_code=404, detail="Item not found")
    return ITEMS[item_id]


@app.get("/items")
def list_items(limit: Annotated[int, Query(ge=1, le=100)] = 10, tag: str | None = None) -> list[StoredItem]:
    items = [item for item in ITEMS.values() if tag is None or tag in item.tags]
    return items[:limit]
