"""FastAPI vs Slipstream on the tutorial pages "Handling Errors" and "Path Operation Configuration": HTTPException
with headers, a custom exception and its handler, overriding the RequestValidationError handler (exc.errors(),
exc.body) and Starlette's HTTPException handler, reusing FastAPI's default handlers; status codes, tags (with
Enum tags), summary, description from the docstring, response_description and deprecated in the OpenAPI document.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import importlib
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class UnicornException(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


class Item(BaseModel):
    title: str
    size: int


class Tags(Enum):
    items = "items"
    users = "users"


def errors_app(fw: Any, overrides: bool) -> Any:
    app = new_app(fw)
    responses = fw.responses
    handlers = importlib.import_module(f"{fw.__name__}.exception_handlers")
    encoders = importlib.import_module(f"{fw.__name__}.encoders")
    items = {"foo": "The Foo Wrestlers"}

    @app.exception_handler(UnicornException)
    async def unicorn_exception_handler(request: fw.Request, exc: UnicornException) -> Any:
        return responses.JSONResponse(
            status_code=418, content={"message": f"Oops! {exc.name} did something. There goes a rainbow..."}
        )

    if overrides:
        from starlette.exceptions import HTTPException as StarletteHTTPException

        @app.exception_handler(StarletteHTTPException)
        async def http_exception_handler(request: fw.Request, exc: Any) -> Any:
            if exc.status_code == 410:  # the default handler, reused
                return await handlers.http_exception_handler(request, exc)
            return responses.PlainTextResponse(str(exc.detail), status_code=exc.status_code)

        @app.exception_handler(fw.exceptions.RequestValidationError)
        async def validation_exception_handler(request: fw.Request, exc: Any) -> Any:
            if request.url.path == "/default-422":
                return await handlers.request_validation_exception_handler(request, exc)
            return responses.JSONResponse(
                status_code=422, content=encoders.jsonable_encoder({"detail": exc.errors(), "body": exc.body})
            )

    @app.get("/items/{item_id}")
    async def read_item(item_id: str) -> Any:
        if item_id not in items:
            raise fw.HTTPException(status_code=404, detail="Item not found")
        return {"item": items[item_id]}

    @app.get("/items-header/{item_id}")
    async def read_item_header(item_id: str) -> Any:
        if item_id not in items:
            raise fw.HTTPException(status_code=404, detail="Item not found", headers={"X-Error": "There goes my error"})
        return {"item": items[item_id]}

    @app.get("/gone")
    async def gone() -> Any:
        raise fw.HTTPException(status_code=410, detail={"reason": "gone", "since": 2020})

    @app.get("/unicorns/{name}")
    async def read_unicorn(name: str) -> Any:
        if name == "yolo":
            raise UnicornException(name=name)
        return {"unicorn_name": name}

    @app.get("/numbers/{item_id}")
    async def read_number(item_id: int) -> Any:
        if item_id == 3:
            raise fw.HTTPException(status_code=418, detail="Nope! I don't like 3.")
        return {"item_id": item_id}

    @app.post("/items/")
    async def create_item(item: Item) -> Any:
        return item

    @app.post("/default-422")
    async def default_422(item: Item) -> Any:
        return item

    @app.post(
        "/configured/",
        status_code=201,
        tags=["items"],
        summary="Create an item",
        response_description="The created item",
        response_model=Item,
    )
    async def create_configured(item: Item) -> Any:
        """
        Create an item with all the information:

        - **title**: each item must have a title
        - **size**: a whole number
        \f
        :param item: not shown in the documentation.
        """
        return item

    @app.get("/tagged/", tags=[Tags.items], description="Items, by an Enum tag")
    async def tagged() -> Any:
        return ["Portal gun", "Plumbus"]

    @app.get("/users/", tags=[Tags.users])
    async def read_users() -> Any:
        return ["Rick", "Morty"]

    @app.get("/elements/", tags=["items"], deprecated=True)
    async def read_elements() -> Any:
        return [{"item_id": "Foo"}]

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"errors": lambda fw: errors_app(fw, False), "overrides": lambda fw: errors_app(fw, True)})


ROWS = [
    page_row(app, method, url, **kwargs)
    for app in ("errors", "overrides")
    for method, url, kwargs in [
        ("GET", "/items/foo", {}),
        ("GET", "/items/bar", {}),
        ("GET", "/items-header/bar", {}),
        ("GET", "/gone", {}),
        ("GET", "/unicorns/yolo", {}),
        ("GET", "/unicorns/ann", {}),
        ("GET", "/numbers/3", {}),
        ("GET", "/numbers/three", {}),
        ("GET", "/nowhere", {}),
        ("DELETE", "/items/foo", {}),
        ("POST", "/items/", {"json": {"title": "towel", "size": "XL"}}),
        ("POST", "/items/", {"json": {"title": "towel", "size": 3}}),
        ("POST", "/items/", {"content": b"[1, 2", "headers": {"content-type": "application/json"}}),
        ("POST", "/default-422", {"json": {"title": "towel"}}),
        ("POST", "/configured/", {"json": {"title": "towel", "size": 3}}),
        ("GET", "/tagged/", {}),
        ("GET", "/elements/", {}),
        ("GET", "/openapi.json", {}),
    ]
]


test_same_answer = same_answer_test(ROWS)


# App(debug=True): Starlette's ServerErrorMiddleware answers an unhandled exception with its traceback (plain text,
# or an HTML page for a client that accepts text/html) instead of the app's 500 handler. The frames differ between
# the frameworks, so the status, the content type and the traceback's last line (the exception) are compared.
def debug_app(fw: Any, debug: bool) -> Any:
    app = new_app(fw, debug=debug)

    @app.exception_handler(500)
    async def five_hundred(request: fw.Request, exc: Exception) -> Any:
        return fw.responses.JSONResponse({"handled": type(exc).__name__}, status_code=500)

    def failing() -> None:
        raise RuntimeError("from a dependency")

    @app.get("/plain")
    async def plain() -> Any:
        raise ValueError("boom")

    @app.get("/sync")
    def sync() -> Any:
        raise KeyError("missing")

    @app.get("/dep", dependencies=[fw.Depends(failing)])
    async def dep() -> Any:
        return {}

    @app.get("/http")
    async def http() -> Any:
        raise fw.HTTPException(status_code=418, detail="teapot")

    return app


def _debug_view(response: Any) -> tuple[Any, ...]:
    text = response.text.strip()
    kind = response.headers.get("content-type")
    last = text.splitlines()[-1] if kind.startswith("text/plain") else "<html>" if "<html" in text.lower() else text
    return response.status_code, kind, last


@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("url", ["/plain", "/sync", "/dep", "/http"])
@pytest.mark.parametrize("accept", ["*/*", "text/html"])
def test_debug_tracebacks(debug: bool, url: str, accept: str) -> None:
    import slipstream
    from fastapi.testclient import TestClient as FastAPIClient

    from .diff_support import Outcome, record

    case_id = f"debug={debug} GET {url} accept={accept}"
    with slipstream.TestClient(debug_app(slipstream, debug), raise_server_exceptions=False) as ours, \
            FastAPIClient(debug_app(fastapi, debug), raise_server_exceptions=False) as theirs:
        got = _debug_view(ours.get(url, headers={"accept": accept}))
        expected = _debug_view(theirs.get(url, headers={"accept": accept}))
    diffs = [] if got == expected else [f"slipstream {got}, fastapi {expected}"]
    record(Outcome(case_id, None, diffs))
    assert got == expected
