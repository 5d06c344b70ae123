"""FastAPI vs Slipstream on the tutorial page "Bigger Applications - Multiple Files": APIRouters declared apart and
included with `prefix`, `tags`, `dependencies` and `responses` (on the router and in `include_router`), an app-wide
dependency, a router included in another router, the same router included twice under two prefixes, route tags
added to the router's, a 404 raised by a route, and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


def bigger_app(fw: Any) -> Any:
    HTTPException, Depends, Header = fw.HTTPException, fw.Depends, fw.Header

    async def get_token_header(x_token: Annotated[str, Header()]) -> None:
        if x_token != "fake-super-secret-token":
            raise HTTPException(status_code=400, detail="X-Token header invalid")

    async def get_query_token(token: str) -> None:
        if token != "jessica":
            raise HTTPException(status_code=400, detail="No Jessica token provided")

    users = fw.APIRouter()

    @users.get("/users/", tags=["users"])
    async def read_users() -> Any:
        return [{"username": "Rick"}, {"username": "Morty"}]

    @users.get("/users/me", tags=["users"])
    async def read_user_me() -> Any:
        return {"username": "fakecurrentuser"}

    @users.get("/users/{username}", tags=["users"])
    async def read_user(username: str) -> Any:
        return {"username": username}

    items = fw.APIRouter(
        prefix="/items",
        tags=["items"],
        dependencies=[Depends(get_token_header)],
        responses={404: {"description": "Not found"}},
    )
    stock = {"plumbus": {"name": "Plumbus"}, "gun": {"name": "Portal Gun"}}

    @items.get("/")
    async def read_items() -> Any:
        return stock

    @items.get("/{item_id}")
    async def read_item(item_id: str) -> Any:
        if item_id not in stock:
            raise HTTPException(status_code=404, detail="Item not found")
        return {"name": stock[item_id]["name"], "item_id": item_id}

    @items.put("/{item_id}", tags=["custom"], responses={403: {"description": "Operation forbidden"}})
    async def update_item(item_id: str) -> Any:
        if item_id != "plumbus":
            raise HTTPException(status_code=403, detail="You can only update the item: plumbus")
        return {"item_id": item_id, "name": "The great Plumbus"}

    admin = fw.APIRouter()

    @admin.post("/")
    async def update_admin() -> Any:
        return {"message": "Admin getting schwifty"}

    parts = fw.APIRouter(prefix="/parts")

    @parts.get("/{part_id}")
    async def read_part(part_id: int) -> Any:
        return {"part_id": part_id}

    items.include_router(parts)

    app = new_app(fw, dependencies=[Depends(get_query_token)])
    app.include_router(users)
    app.include_router(items)
    app.include_router(
        admin,
        prefix="/admin",
        tags=["admin"],
        dependencies=[Depends(get_token_header)],
        responses={418: {"description": "I'm a teapot"}},
    )
    app.include_router(users, prefix="/v2", tags=["v2"])

    @app.get("/")
    async def root() -> Any:
        return {"message": "Hello Bigger Applications!"}

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"bigger": bigger_app})


TOKEN = {"x-token": "fake-super-secret-token"}
ROWS = [
    page_row("bigger", "GET", "/?token=jessica"),
    page_row("bigger", "GET", "/"),
    page_row("bigger", "GET", "/?token=rick"),
    page_row("bigger", "GET", "/users/?token=jessica"),
    page_row("bigger", "GET", "/users/me?token=jessica"),
    page_row("bigger", "GET", "/users/morty?token=jessica"),
    page_row("bigger", "GET", "/v2/users/morty?token=jessica"),
    page_row("bigger", "GET", "/items/?token=jessica", headers=TOKEN),
    page_row("bigger", "GET", "/items/?token=jessica"),
    page_row("bigger", "GET", "/items/?token=jessica", headers={"x-token": "wrong"}),
    page_row("bigger", "GET", "/items/plumbus?token=jessica", headers=TOKEN),
    page_row("bigger", "GET", "/items/bar?token=jessica", headers=TOKEN),
    page_row("bigger", "PUT", "/items/plumbus?token=jessica", headers=TOKEN),
    page_row("bigger", "PUT", "/items/gun?token=jessica", headers=TOKEN),
    page_row("bigger", "GET", "/items/parts/3?token=jessica", headers=TOKEN),
    page_row("bigger", "GET", "/items/parts/x?token=jessica", headers=TOKEN),
    page_row("bigger", "POST", "/admin/?token=jessica", headers=TOKEN),
    page_row("bigger", "POST", "/admin/?token=jessica"),
    page_row("bigger", "GET", "/openapi.json?token=jessica"),
]


test_same_answer = same_answer_test(ROWS)
