"""FastAPI vs Slipstream on the tutorial pages "Extra Models" and "Response Model - Return Type": input, output and
stored models of one user (the password never answered), `Union`/`anyOf` responses, lists and dicts of models,
return-type annotations as the response model, `response_model=None`, response_model_exclude_unset/_defaults/
_none, include/exclude, and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Any, Literal, Union

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel, EmailStr

from .diff_support import client_pairs, new_app, page_row, same_answer_test

pytest.importorskip("email_validator")


class UserBase(BaseModel):
    username: str
    email: EmailStr
    full_name: str | None = None


class UserIn(UserBase):
    password: str


class UserOut(UserBase):
    pass


class UserInDB(UserBase):
    hashed_password: str


class BaseItem(BaseModel):
    description: str
    type: str


class CarItem(BaseItem):
    type: Literal["car"] = "car"


class PlaneItem(BaseItem):
    type: Literal["plane"] = "plane"
    size: int


class Item(BaseModel):
    name: str
    description: str | None = None
    price: float
    tax: float = 10.5
    tags: list[str] = []


ITEMS = {
    "car": {"description": "All my friends drive a low rider", "type": "car"},
    "plane": {"description": "Music is my aeroplane, it's my aeroplane", "type": "plane", "size": 5},
}
PRICED = {
    "foo": {"name": "Foo", "price": 50.2},
    "bar": {"name": "Bar", "description": "The bartenders", "price": 62, "tax": 20.2},
    "baz": {"name": "Baz", "description": None, "price": 50.2, "tax": 10.5, "tags": []},
}


def models_app(fw: Any) -> Any:
    app = new_app(fw)

    def fake_save_user(user_in: UserIn) -> UserInDB:
        return UserInDB(**user_in.model_dump(), hashed_password="supersecret" + user_in.password)

    @app.post("/user/", response_model=UserOut)
    async def create_user(user_in: UserIn) -> Any:
        return fake_save_user(user_in)

    @app.post("/user-typed/")
    async def create_user_typed(user: UserIn) -> UserBase:
        return user

    @app.get("/items/{item_id}", response_model=Union[PlaneItem, CarItem])  # noqa: UP007 - the page's spelling
    async def read_item(item_id: str) -> Any:
        return ITEMS[item_id]

    @app.get("/items/", response_model=list[CarItem])
    async def read_items() -> Any:
        return [ITEMS["car"], {"description": "another", "type": "car"}]

    @app.get("/keyword-weights/", response_model=dict[str, float])
    async def read_keyword_weights() -> Any:
        return {"foo": 2.3, "bar": 3.4}

    @app.get("/priced/{item_id}", response_model=Item, response_model_exclude_unset=True)
    async def read_priced(item_id: str) -> Any:
        return PRICED[item_id]

    @app.get("/priced/{item_id}/defaults", response_model=Item, response_model_exclude_defaults=True)
    async def read_priced_defaults(item_id: str) -> Any:
        return PRICED[item_id]

    @app.get("/priced/{item_id}/none", response_model=Item, response_model_exclude_none=True)
    async def read_priced_none(item_id: str) -> Any:
        return PRICED[item_id]

    @app.get("/priced/{item_id}/name", response_model=Item, response_model_include={"name", "description"})
    async def read_item_name(item_id: str) -> Any:
        return PRICED[item_id]

    @app.get("/priced/{item_id}/public", response_model=Item, response_model_exclude={"tax"})
    async def read_item_public_data(item_id: str) -> Any:
        return PRICED[item_id]

    @app.get("/portal", response_model=None)
    async def get_portal(teleport: bool = False) -> Any:
        if teleport:
            return fw.responses.RedirectResponse(url="https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        return fw.responses.JSONResponse(content={"message": "Here's your interdimensional portal."})

    @app.get("/teleport")
    async def get_teleport() -> fw.responses.RedirectResponse:
        return fw.responses.RedirectResponse(url="https://www.youtube.com/watch?v=dQw4w9WgXcQ")

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"models": models_app})


USER = {"username": "john", "password": "secret", "email": "john@example.com", "full_name": "John Doe"}
ROWS = [
    page_row("models", "POST", "/user/", json=USER),
    page_row("models", "POST", "/user/", json={**USER, "email": "not-an-email"}),
    page_row("models", "POST", "/user/", json={"username": "ann"}),
    page_row("models", "POST", "/user-typed/", json=USER),
    page_row("models", "GET", "/items/car"),
    page_row("models", "GET", "/items/plane"),
    page_row("models", "GET", "/items/"),
    page_row("models", "GET", "/keyword-weights/"),
    page_row("models", "GET", "/priced/foo"),
    page_row("models", "GET", "/priced/bar"),
    page_row("models", "GET", "/priced/baz"),
    page_row("models", "GET", "/priced/bar/defaults"),
    page_row("models", "GET", "/priced/baz/none"),
    page_row("models", "GET", "/priced/bar/name"),
    page_row("models", "GET", "/priced/bar/public"),
    page_row("models", "GET", "/portal"),
    page_row("models", "GET", "/portal?teleport=true"),
    page_row("models", "GET", "/teleport"),
    page_row("models", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
