"""The pydantic models behind the schema benchmark: their JSON Schemas are what every validator checks."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, TypeAdapter


class Dimensions(BaseModel):
    width: float = Field(gt=0)
    height: float = Field(gt=0)
    unit: Literal["cm", "in"]


class Item(BaseModel):
    id: int = Field(ge=1)
    name: str = Field(min_length=1, max_length=64)
    description: str | None = None
    price: float = Field(gt=0)
    tags: list[str] = []
    dimensions: Dimensions
    in_stock: bool = True


ITEM = TypeAdapter(Item)
ITEM_LIST = TypeAdapter(list[Item])
