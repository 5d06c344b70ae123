"""FastAPI vs Slipstream on the advanced page "Custom Request and APIRoute class": APIRoute subclasses that override
get_route_handler() to wrap the route's handler, used through `APIRouter(route_class=...)`,
`app.router.route_class = ...` and `routes=[...]`:

- a route class that times the handler and adds headers to its Response (valid requests, a 422, an
  HTTPException, a Response returned directly, response_model filtering, dependencies), beside ordinary routes;
- forms and files read by a route of such a class;
- a Request subclass whose body() decompresses a gzip body, made from the request's scope and receive;
- a route class that catches RequestValidationError and reads the body to answer its own 422.
- HTTP middleware around a route class's handler, dependency_overrides, and the URL of a copied Request.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import gzip
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import client_pairs, copy_route_class, new_app, page_row, same_answer_test


class Item(BaseModel):
    name: str
    price: float
    secret: str = "hidden"


class PublicItem(BaseModel):
    name: str
    price: float


def _timed_route(fw: Any) -> Any:
    class TimedRoute(fw.routing.APIRoute):
        def get_route_handler(self) -> Callable[..., Any]:
            original_route_handler = super().get_route_handler()

            async def custom_route_handler(request: fw.Request) -> Any:
                response = await original_route_handler(request)
                response.headers["X-Response-Time"] = "measured"
                response.headers["X-Route-Path"] = request.url.path
                return response

            return custom_route_handler

    return TimedRoute


def timed_app(fw: Any) -> Any:
    app = new_app(fw)
    router = fw.APIRouter(route_class=_timed_route(fw))

    def common(q: str | None = None) -> dict[str, Any]:
        return {"q": q}

    @router.get("/items/{item_id}")
    async def read_item(item_id: int, commons: Annotated[dict[str, Any], fw.Depends(common)]) -> Any:
        if item_id == 404:
            raise fw.HTTPException(status_code=404, detail="Item not found", headers={"X-Error": "gone"})
        return {"item_id": item_id, **commons}

    @router.post("/items/", response_model=PublicItem, status_code=201)
    def create_item(item: Item, x_token: Annotated[str, fw.Header()]) -> Any:
        return item

    @router.post("/login")
    async def login(username: Annotated[str, fw.Form()], n: Annotated[int, fw.Form()] = 1) -> Any:
        return {"username": username, "n": n}

    @router.post("/upload")
    async def upload(file: Annotated[bytes, fw.File()], note: Annotated[str, fw.Form()] = "") -> Any:
        return {"size": len(file), "note": note}

    @router.get("/text")
    async def text() -> Any:
        return fw.responses.PlainTextResponse("plain", headers={"X-Own": "yes"})

    app.include_router(router, prefix="/timed")

    @app.get("/plain/{item_id}")
    async def plain(item_id: int) -> Any:
        return {"item_id": item_id}

    return app


def overridden_app(fw: Any) -> Any:
    app = new_app(fw)
    router = fw.APIRouter(route_class=_timed_route(fw))

    def token(x_token: Annotated[str, fw.Header()]) -> str:
        return x_token

    @router.get("/who")
    async def who(user: Annotated[str, fw.Depends(token)]) -> Any:
        return {"user": user}

    app.include_router(router)

    def fake_token(n: int = 0) -> str:
        return f"fake {n}"

    app.dependency_overrides[token] = fake_token
    return app


def gzip_app(fw: Any) -> Any:
    class GzipRequest(fw.Request):
        async def body(self) -> bytes:
            if not hasattr(self, "_body"):
                body = await super().body()
                if "gzip" in self.headers.getlist("Content-Encoding"):
                    body = gzip.decompress(body)
                self._body = body
            return self._body

    class GzipRoute(fw.routing.APIRoute):
        def get_route_handler(self) -> Callable[..., Any]:
            original_route_handler = super().get_route_handler()

            async def custom_route_handler(request: fw.Request) -> Any:
                request = GzipRequest(request.scope, request.receive)
                return await original_route_handler(request)

            return custom_route_handler

    app = new_app(fw)
    app.router.route_class = GzipRoute

    @app.post("/sum")
    async def sum_numbers(numbers: Annotated[list[int], fw.Body()]) -> Any:
        return {"sum": sum(numbers)}

    return app


def logging_app(fw: Any) -> Any:
    class ValidationErrorLoggingRoute(fw.routing.APIRoute):
        def get_route_handler(self) -> Callable[..., Any]:
            original_route_handler = super().get_route_handler()

            async def custom_route_handler(request: fw.Request) -> Any:
                try:
                    return await original_route_handler(request)
                except fw.exceptions.RequestValidationError as exc:
                    body = await request.body()
                    detail = {"errors": exc.errors(), "body": body.decode()}
                    raise fw.HTTPException(status_code=422, detail=detail) from None

            return custom_route_handler

    app = new_app(fw)
    app.router.route_class = ValidationErrorLoggingRoute

    @app.post("/")
    async def sum_numbers(numbers: Annotated[list[int], fw.Body()]) -> Any:
        return sum(numbers)

    return app


def proxied_app(fw: Any) -> Any:
    app = new_app(fw)
    app.router.route_class = copy_route_class(fw)

    @app.get("/where/{name}")
    async def where(name: str, request: fw.Request) -> Any:
        return {
            "url": str(request.url),
            "base": str(request.base_url),
            "root": request.scope["root_path"],
            "type": type(request).__name__,
            "for": str(request.url_for("where", name="x")),
        }

    return app


def routes_app(fw: Any) -> Any:
    TimedRoute = _timed_route(fw)

    async def listed(n: int = 1) -> Any:
        return {"n": n}

    async def timed(n: int = 2) -> Any:
        return {"timed": n}

    app = new_app(fw, routes=[fw.routing.APIRoute("/listed", listed), TimedRoute("/timed", timed, methods=["POST"])])

    @app.middleware("http")
    async def outer(request: Any, call_next: Any) -> Any:  # around the route class's handler, as in FastAPI
        response = await call_next(request)
        response.headers["X-Outer"] = response.headers.get("X-Response-Time", "none")
        return response

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs(
        {
            "timed": timed_app,
            "gzip": gzip_app,
            "logging": logging_app,
            "routes": routes_app,
            "proxied": proxied_app,
            "overridden": overridden_app,
        }
    )


NUMBERS = b"[1, 2, 3]"
JSON = {"content-type": "application/json"}
ROWS = [
    page_row("timed", "GET", "/timed/items/3?q=x"),
    page_row("timed", "GET", "/timed/items/x?q=x"),
    page_row("timed", "GET", "/timed/items/404"),
    page_row("timed", "POST", "/timed/items/", json={"name": "a", "price": 1.5}, headers={"x-token": "t"}),
    page_row("timed", "POST", "/timed/items/", json={"name": "a"}),
    page_row("timed", "POST", "/timed/items/", content=b"{bad", headers={**JSON, "x-token": "t"}),
    page_row("timed", "POST", "/timed/items/", content=b'{"name": "a", "price": 1}', headers={"x-token": "t"}),
    page_row("timed", "GET", "/timed/text"),
    page_row("timed", "POST", "/timed/login", form={"username": "rick", "n": "3"}),
    page_row("timed", "POST", "/timed/login", form={"n": "three"}),
    page_row("timed", "POST", "/timed/upload", form={"note": "n"}, files={"file": ("a.txt", b"hello", "text/plain")}),
    page_row("timed", "GET", "/plain/5"),
    page_row("timed", "PUT", "/timed/items/3"),
    page_row("gzip", "POST", "/sum", content=gzip.compress(NUMBERS), headers={**JSON, "content-encoding": "gzip"}),
    page_row("gzip", "POST", "/sum", content=NUMBERS, headers=JSON),
    page_row("gzip", "POST", "/sum", content=gzip.compress(b'[1, "x"]'), headers={**JSON, "content-encoding": "gzip"}),
    page_row("logging", "POST", "/", content=b'[1, "two"]', headers=JSON),
    page_row("logging", "POST", "/", content=NUMBERS, headers=JSON),
    page_row("routes", "GET", "/listed?n=4"),
    page_row("routes", "POST", "/timed?n=5"),
    page_row("routes", "POST", "/timed?n=x"),
    page_row("routes", "GET", "/openapi.json"),
    page_row("proxied", "GET", "/where/here?q=1"),
    page_row("overridden", "GET", "/who?n=3"),
    page_row("overridden", "GET", "/who?n=x"),
]

test_same_answer = same_answer_test(ROWS)
