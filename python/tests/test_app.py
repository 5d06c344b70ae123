"""Routing, parameters, responses and errors through TestClient (real sockets, real engine), def and async def."""


import enum
import uuid
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal

import pytest
from conftest import styled, suspending
from pydantic import BaseModel, Field
from slipstream import (
    APIRouter,
    App,
    Body,
    Cookie,
    Header,
    HTMLResponse,
    HTTPException,
    JSONResponse,
    Path,
    PlainTextResponse,
    Query,
    RedirectResponse,
    Request,
    Response,
    TestClient,
)


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str] = []


class Color(str, enum.Enum):
    red = "red"
    blue = "blue"


def test_hello_and_path_query(style: str) -> None:
    app = App(title="t", version="1")
    s = styled(style)

    @app.get("/hello")
    @s
    def hello() -> dict:
        return {"message": "hello"}

    @app.get("/users/{user_id}/items")
    @s
    def user_items(user_id: int, limit: int = 10, offset: int = 0, q: str | None = None):
        return {"user_id": user_id, "limit": limit, "offset": offset, "q": q}

    with TestClient(app) as client:
        r = client.get("/hello")
        assert (r.status_code, r.text, r.headers["content-type"]) == (200, '{"message":"hello"}', "application/json")
        r = client.get("/users/42/items?limit=5&q=x")
        assert r.json() == {"user_id": 42, "limit": 5, "offset": 0, "q": "x"}
        r = client.get("/users/abc/items")
        assert r.status_code == 422
        assert r.json() == {"detail": [{"type": "int_parsing", "loc": ["path", "user_id"],
                                        "msg": "Input should be a valid integer, unable to parse string as an integer",
                                        "input": "abc"}]}
        assert client.get("/nope").status_code == 404
        assert client.post("/hello").status_code == 405


def test_body_model_and_status_code(style: str) -> None:
    app = App()

    @app.post("/items", status_code=201)
    @styled(style)
    def create(item: Item):
        assert type(item) is Item
        return {"item": item, "total": item.price * 2}

    with TestClient(app) as client:
        r = client.post("/items", json={"name": "w", "price": 2, "tags": ["a"]})
        assert r.status_code == 201
        assert r.text == '{"item":{"name":"w","price":2.0,"tags":["a"]},"total":4.0}'
        r = client.post("/items", json={"name": "w", "price": 0})
        assert r.status_code == 422
        assert r.json()["detail"][0]["type"] == "greater_than"


def test_nested_models_defaults_and_aliases(style: str) -> None:
    class Inner(BaseModel):
        x: int
        when: date | None = None

    class Outer(BaseModel):
        inner: Inner
        inners: list[Inner] = []
        label: str = Field("none", alias="Label")
        color: Color = Color.red

    app = App()
    seen: list[Outer] = []

    @app.post("/o")
    @styled(style)
    def post(o: Outer):
        seen.append(o)
        return o

    with TestClient(app) as client:
        r = client.post("/o", json={"inner": {"x": 1, "when": "2024-02-03"}, "inners": [{"x": 2}], "color": "blue"})
        assert r.status_code == 200, r.text
        assert r.json() == {"inner": {"x": 1, "when": "2024-02-03"}, "inners": [{"x": 2, "when": None}],
                            "Label": "none", "color": "blue"}
    o = seen[0]
    assert isinstance(o.inner, Inner) and o.inner.when == date(2024, 2, 3)
    assert isinstance(o.inners[0], Inner) and o.color is Color.blue
    assert o.model_fields_set == {"inner", "inners", "color"}


def test_header_cookie_and_annotated_constraints(style: str) -> None:
    app = App()

    @app.get("/h")
    @styled(style)
    def h(
        x_token: Annotated[str, Header()],
        session: Annotated[str | None, Cookie()] = None,
        n: Annotated[int, Query(ge=1, le=10)] = 1,
        tags: Annotated[list[str], Query()] = [],  # noqa: B006 - FastAPI style
        name: Annotated[str, Query(min_length=2, alias="the-name")] = "zz",
    ):
        return {"token": x_token, "session": session, "n": n, "tags": tags, "name": name}

    with TestClient(app) as client:
        r = client.get("/h?n=3&tags=a&tags=b&the-name=abc", headers={"X-Token": "t"}, cookies={"session": "s1"})
        assert r.json() == {"token": "t", "session": "s1", "n": 3, "tags": ["a", "b"], "name": "abc"}
        r = client.get("/h?n=11&the-name=a")
        assert r.status_code == 422
        assert [e["loc"] for e in r.json()["detail"]] == [["query", "n"], ["query", "the-name"], ["header", "x-token"]]


def test_special_types_in_and_out(style: str) -> None:
    app = App()

    @app.get("/t/{uid}")
    @styled(style)
    def t(uid: uuid.UUID, when: datetime, amount: Decimal, color: Color, mode: Literal["a", "b"] = "a"):
        assert isinstance(uid, uuid.UUID) and isinstance(when, datetime) and isinstance(amount, Decimal)
        return {"uid": uid, "when": when, "amount": amount, "color": color, "mode": mode, "set": {1}}

    u = "12345678-1234-5678-1234-567812345678"
    with TestClient(app) as client:
        r = client.get(f"/t/{u}?when=2024-01-02T03:04:05&amount=1.50&color=blue")
        assert r.status_code == 200, r.text
        assert r.json() == {"uid": u, "when": "2024-01-02T03:04:05", "amount": 1.5, "color": "blue", "mode": "a",
                            "set": [1]}
        r = client.get(f"/t/{u}?when=2024-01-02&amount=1&color=green")
        assert r.status_code == 422
        assert r.json()["detail"][0]["type"] == "enum"


def test_request_injection(style: str) -> None:
    app = App()

    @app.post("/echo/{name}")
    @styled(style)
    def echo(name: str, request: Request):
        return {"name": name, "method": request.method, "path": request.path, "q": request.query_params.get("q"),
                "h": request.headers.get("x-a"), "pp": request.path_params, "body": request.json_sync(),
                "url": str(request.url)}

    with TestClient(app) as client:
        r = client.post("/echo/bob?q=1", json={"a": [1, 2]}, headers={"X-A": "v"})
        assert r.json() == {"name": "bob", "method": "POST", "path": "/echo/bob", "q": "1", "h": "v",
                            "pp": {"name": "bob"}, "body": {"a": [1, 2]}, "url": "http://testserver/echo/bob?q=1"}


def test_async_request_body_and_real_suspension() -> None:
    app = App()

    @app.post("/raw")
    async def raw(request: Request):
        return {"len": len(await request.body()), "json": await request.json()}

    @app.get("/slow/{n}")
    @suspending
    def slow(n: int):
        return {"n": n}

    with TestClient(app) as client:
        assert client.post("/raw", json=[1]).json() == {"len": 3, "json": [1]}
        for n in range(5):
            assert client.get(f"/slow/{n}").json() == {"n": n}


def test_errors(style: str) -> None:
    app = App()
    s = styled(style)

    class Teapot(Exception):
        pass

    @app.exception_handler(Teapot)
    def teapot(request: Request, exc: Teapot):
        return JSONResponse({"teapot": request.path}, status_code=418)

    @app.get("/http")
    @s
    def http_error():
        raise HTTPException(status_code=404, detail="gone", headers={"X-Why": "test"})

    @app.get("/boom")
    @s
    def boom():
        raise ValueError("boom")

    @app.get("/tea")
    @s
    def tea():
        raise Teapot()

    @app.get("/nan")
    @s
    def nan():
        return {"x": float("nan")}

    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.get("/http")
        assert (r.status_code, r.json(), r.headers["x-why"]) == (404, {"detail": "gone"}, "test")
        r = client.get("/boom")
        assert (r.status_code, r.text) == (500, "Internal Server Error")
        assert r.headers["content-type"] == "text/plain; charset=utf-8"
        r = client.get("/tea")
        assert (r.status_code, r.json()) == (418, {"teapot": "/tea"})
        assert client.get("/nan").status_code == 500


def test_response_classes(style: str) -> None:
    app = App()
    s = styled(style)

    @app.get("/text")
    @s
    def text():
        return PlainTextResponse("hi")

    @app.get("/html", response_class=HTMLResponse)
    @s
    def html():
        return "<b>x</b>"

    @app.get("/redirect")
    @s
    def redirect():
        return RedirectResponse("/text")

    @app.get("/raw")
    @s
    def raw():
        r = Response(b"\x00\x01", media_type="application/octet-stream", headers={"X-A": "1"})
        r.set_cookie("k", "v")
        return r

    @app.delete("/none", status_code=204)
    @s
    def none():
        return None

    with TestClient(app, follow_redirects=False) as client:
        r = client.get("/text")
        assert (r.text, r.headers["content-type"]) == ("hi", "text/plain; charset=utf-8")
        r = client.get("/html")
        assert (r.text, r.headers["content-type"]) == ("<b>x</b>", "text/html; charset=utf-8")
        r = client.get("/redirect")
        assert (r.status_code, r.headers["location"]) == (307, "/text")
        r = client.get("/raw")
        assert (r.content, r.headers["x-a"], r.headers["set-cookie"]) == (b"\x00\x01", "1", "k=v; Path=/; SameSite=lax")
        r = client.delete("/none")
        assert (r.status_code, r.content) == (204, b"")


def test_response_model_filters(style: str) -> None:
    class Public(BaseModel):
        name: str

    app = App()

    @app.get("/u", response_model=Public)
    @styled(style)
    def u():
        return {"name": "a", "password": "secret"}

    @app.get("/v")
    @styled(style)
    def v() -> Public:
        return Item(name="b", price=1)  # type: ignore[return-value]

    with TestClient(app) as client:
        assert client.get("/u").text == '{"name":"a"}'
        assert client.get("/v").text == '{"name":"b"}'


def test_router_prefix_and_methods(style: str) -> None:
    router = APIRouter(prefix="/v1", tags=["v1"])
    inner = APIRouter()

    @inner.get("/ping")
    @styled(style)
    def ping():
        return "pong"

    @router.api_route("/multi", methods=["GET", "PUT"])
    @styled(style)
    def multi(request: Request):
        return request.method

    router.include_router(inner, prefix="/inner")
    app = App()
    app.include_router(router, prefix="/api", tags=["api"])
    with TestClient(app) as client:
        assert client.get("/api/v1/inner/ping").json() == "pong"
        assert client.put("/api/v1/multi").json() == "PUT"
        assert client.get("/api/v1/multi").json() == "GET"
        assert client.head("/api/v1/multi").content == b""
    assert app.routes[0].tags == ["api", "v1"]


def test_embedded_and_multiple_bodies(style: str) -> None:
    app = App()

    @app.post("/e")
    @styled(style)
    def e(item: Annotated[Item, Body(embed=True)], n: Annotated[int, Body()] = 1):
        return {"item": item.name, "n": n}

    with TestClient(app) as client:
        assert client.post("/e", json={"item": {"name": "a", "price": 1}}).json() == {"item": "a", "n": 1}
        r = client.post("/e", json={"name": "a", "price": 1})
        assert r.json() == {"detail": [{"type": "missing", "loc": ["body", "item"], "msg": "Field required",
                                        "input": None}]}


def test_bad_signatures_fail_at_the_decorator() -> None:
    app = App()
    with pytest.raises(TypeError):

        @app.get("/x")
        def x(p: Annotated[int, Path()]):
            return p

    with pytest.raises(TypeError):

        @app.get("/y", unknown_option=1)
        def y():
            return 1


def test_exception_handlers_by_status_and_validation(style: str) -> None:
    from pydantic import field_validator
    from slipstream import RequestValidationError

    class Code(BaseModel):
        code: str

        @field_validator("code")
        @classmethod
        def upper(cls, v: str) -> str:
            if v != v.upper():
                raise ValueError("upper case only")
            return v

    app = App()

    @app.exception_handler(404)
    async def not_found(request: Request, exc: HTTPException):
        return JSONResponse({"missing": exc.detail}, status_code=404)

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"errors": [e["msg"] for e in exc.errors()]}, status_code=400)

    @app.get("/gone")
    @styled(style)
    def gone():
        raise HTTPException(404, "it")

    @app.post("/code")
    @styled(style)
    def code(c: Code):
        return c

    with TestClient(app) as client:
        assert client.get("/gone").json() == {"missing": "it"}
        r = client.post("/code", json={"code": "abc"})
        assert (r.status_code, r.json()) == (400, {"errors": ["Value error, upper case only"]})
        assert client.post("/code", json={"code": "ABC"}).json() == {"code": "ABC"}


def test_validation_errors_as_problem_json_when_asked() -> None:
    app = App(validation_problem_json=True)

    @app.get("/items/{item_id}")
    def item(item_id: int) -> dict[str, int]:
        return {"item_id": item_id}

    with TestClient(app) as client:
        assert client.get("/items/3").json() == {"item_id": 3}
        r = client.get("/items/x")
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json() == {
        "type": "about:blank", "title": "Unprocessable Content", "status": 422,
        "detail": "the request did not validate; see errors",
        "errors": [{"type": "int_parsing", "loc": ["path", "item_id"],
                    "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "x"}],
    }
