"""One app written against a framework namespace (FastAPI's or Slipstream's): the OpenAPI parity corpus."""

import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from . import openapi_models_b


class Color(str, enum.Enum):
    red = "red"
    blue = "blue"


class Level(enum.IntEnum):
    low = 1
    high = 2


class Tag(BaseModel):
    name: str = Field(min_length=1, max_length=20, pattern=r"^[a-z]+$")
    weight: float = 1.0


class Item(BaseModel):
    """An item for sale.

    Shown in the docs.\fNot shown: after the form feed.
    """

    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "pen", "price": 1.5}]})

    name: str = Field(description="the name", examples=["pen"])
    price: float = Field(gt=0, le=1e6)
    tax: decimal.Decimal | None = None
    tags: list[Tag] = []
    color: Color = Color.red
    level: Level | None = None
    attrs: dict[str, int] = {}
    created: datetime.datetime | None = None
    token: uuid.UUID | None = None


class ItemOut(BaseModel):
    id: int
    item: Item
    kind: Literal["a", "b"] = "a"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        return f"{self.id}"


class Node(BaseModel):
    value: int
    children: list["Node"] = []


class Message(BaseModel):
    detail: str


def build(fw: Any, **app_options: Any) -> Any:
    """The app, built with fw.FastAPI / fw.APIRouter / fw.Query ... (the same code for both frameworks)."""
    app = fw.FastAPI(title="Parity", version="3.2.1", description="The **parity** app.",
                     openapi_tags=[{"name": "items", "description": "Items of the shop"}], **app_options)
    items = fw.APIRouter(prefix="/items", tags=["items"])
    admin = fw.APIRouter(prefix="/admin", responses={403: {"description": "Forbidden"}})
    legacy = fw.APIRouter(prefix="/legacy", deprecated=True, tags=["legacy"])
    internal = fw.APIRouter(prefix="/internal")
    nested = fw.APIRouter(prefix="/nested", tags=["nested"])

    @app.get("/")
    def root() -> dict[str, str]:
        return {"hello": "world"}

    @items.get("/{item_id}", response_model=ItemOut, summary="Read one item",
               responses={404: {"model": Message, "description": "Not there"}, 418: {"description": "Teapot"}})
    def read_item(item_id: Annotated[int, fw.Path(ge=1, le=10_000, title="The item", description="Item id")],
                  q: str | None = None,
                  limit: Annotated[int, fw.Query(gt=0, le=100, description="page size")] = 10,
                  offset: int = 0,
                  ratio: Annotated[float, fw.Query(ge=0.0, lt=1.0, multiple_of=0.25)] = 0.5,
                  names: Annotated[list[str] | None, fw.Query(alias="name", max_length=5)] = None,
                  color: Color = Color.red,
                  level: Level | None = None,
                  when: datetime.date | None = None,
                  flag: bool = False,
                  code: Annotated[str, fw.Query(min_length=2, max_length=8, pattern=r"^[A-Z]+$")] = "AB",
                  old: Annotated[int | None, fw.Query(deprecated=True)] = None,
                  hidden: Annotated[str | None, fw.Query(include_in_schema=False)] = None,
                  sample: Annotated[str | None, fw.Query(examples=["x", "y"])] = None,
                  user_agent: Annotated[str | None, fw.Header()] = None,
                  x_token: Annotated[str, fw.Header(convert_underscores=False)] = "t",
                  tokens: Annotated[list[str], fw.Header()] = [],  # noqa: B006
                  session: Annotated[str | None, fw.Cookie()] = None,
                  ) -> Any:
        return {}

    @items.post("", status_code=201, response_model=ItemOut, tags=["write"], response_description="Created")
    def create_item(item: Item) -> Any:
        return {}

    @items.put("/{item_id}", deprecated=True, operation_id="replace-item")
    def replace_item(item_id: int, item: Item, user: openapi_models_b.Item,
                     importance: Annotated[int, fw.Body(gt=0)], note: Annotated[str | None, fw.Body()] = None):
        """Replace an item.

        Uses several bodies, so they are embedded.
        """
        return {}

    @items.patch("/{item_id}")
    def patch_item(item_id: int, item: Annotated[Item, fw.Body(embed=True)]) -> Item:
        return item

    @items.delete("/{item_id}", status_code=204)
    def delete_item(item_id: int) -> None:
        return None

    @items.get("/{item_id}/tags", response_model=list[Tag])
    def item_tags(item_id: int) -> Any:
        return []

    @items.post("/bulk")
    def bulk(batch: list[Item], dry_run: bool = False) -> list[ItemOut]:
        return []

    @items.post("/optional")
    def optional_body(item: Item | None = None) -> dict[str, Any]:
        return {}

    @items.post("/mapping")
    def mapping(values: dict[str, float]) -> dict[str, float]:
        return values

    @admin.get("/tree", response_model=Node, include_in_schema=True, name="the_tree")
    def tree() -> Any:
        return {"value": 1}

    @admin.get("/secret", include_in_schema=False)
    def secret() -> dict[str, str]:
        return {}

    @admin.post("/nodes", openapi_extra={"x-internal": True, "responses": {"200": {"headers": {"X-Rate": {
        "schema": {"type": "integer"}}}}}})
    def add_node(node: Node) -> Node:
        return node

    @nested.get("/html", response_class=fw.HTMLResponse)
    def html() -> str:
        return "<p>hi</p>"

    @nested.get("/text", response_class=fw.PlainTextResponse, responses={"default": {"model": Message}})
    def text() -> str:
        return "hi"

    @nested.get("/redirect", response_class=fw.RedirectResponse)
    def redirect() -> Any:
        return "/"

    @nested.get("/any")
    def anything() -> Any:
        return {}

    @nested.get("/union")
    def union() -> Item | Tag | None:
        return None

    @nested.get("/{path:path}")
    def catch_all(path: str) -> dict[str, str]:
        return {"path": path}

    @legacy.get("/ping", responses={403: {"description": "Not yours"}, 500: {"model": Message}})
    def legacy_ping(x: int = 0) -> dict[str, int]:
        return {"x": x}

    @internal.get("/state")
    def state() -> dict[str, str]:
        return {}

    admin.include_router(nested, prefix="/deep", tags=["deep"])
    app.include_router(items)
    app.include_router(admin, prefix="/v1", tags=["admin"], responses={401: {"model": Message}})
    app.include_router(legacy, responses={"5XX": {"description": "Server trouble"}})
    app.include_router(internal, include_in_schema=False)
    return app
