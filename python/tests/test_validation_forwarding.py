"""Validation failures found in C++ reach the app's RequestValidationError handler and its HTTP middleware, as in
FastAPI (exc.errors() with tuple locs, exc.body), while apps without them keep the engine's own 422."""

from typing import Any

import slipstream
from pydantic import BaseModel
from slipstream.exceptions import RequestValidationError
from slipstream.responses import JSONResponse


class Item(BaseModel):
    name: str
    price: float


def _handled_app() -> Any:
    app = slipstream.App()
    seen: list[Any] = []

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Any, exc: RequestValidationError) -> Any:
        seen.append(exc)
        return JSONResponse({"n": len(exc.errors()), "path": request.url.path}, status_code=418)

    @app.post("/items")
    def create(item: Item, q: int = 0) -> Any:
        return item

    @app.get("/plain")
    def plain(n: int) -> Any:
        return {"n": n}

    app.seen = seen  # type: ignore[attr-defined]
    return app


def test_handler_gets_the_errors_and_the_body() -> None:
    app = _handled_app()
    with slipstream.TestClient(app) as client:
        r = client.post("/items?q=x", json={"name": 5})
        assert r.status_code == 418
        assert r.json() == {"n": 3, "path": "/items"}
        exc = app.seen[-1]
        assert exc.errors() == [
            {"type": "int_parsing", "loc": ("query", "q"),
             "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "x"},
            {"type": "string_type", "loc": ("body", "name"), "msg": "Input should be a valid string", "input": 5},
            {"type": "missing", "loc": ("body", "price"), "msg": "Field required", "input": {"name": 5}},
        ]
        assert exc.body == {"name": 5}
        # Invalid JSON: the body is its text; an empty body is None.
        client.post("/items", content=b'{"name":', headers={"content-type": "application/json"})
        assert app.seen[-1].body == '{"name":'
        assert app.seen[-1].errors()[0]["type"] == "json_invalid"
        client.post("/items")
        assert app.seen[-1].body is None
        assert client.get("/plain?n=3").json() == {"n": 3}
        assert client.get("/plain?n=x").status_code == 418


def test_unreadable_body_is_a_400_http_exception() -> None:
    app = _handled_app()
    with slipstream.TestClient(app) as client:
        r = client.post("/items", content=b'{"name": "\xff"}', headers={"content-type": "application/json"})
        assert r.status_code == 400
        assert r.json() == {"detail": "There was an error parsing the body"}
        assert app.seen == []


def test_without_a_handler_the_engine_answers() -> None:
    app = slipstream.App()

    @app.get("/plain")
    def plain(n: int) -> Any:
        return {"n": n}

    with slipstream.TestClient(app) as client:
        r = client.get("/plain?n=x")
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["query", "n"]
        r = client.post("/plain", content=b"[" * 1000 + b"]" * 1000)
        assert r.status_code == 405


def test_middleware_sees_validation_failures() -> None:
    app = slipstream.App()
    calls: list[int] = []

    @app.middleware("http")
    async def mark(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        calls.append(response.status_code)
        response.headers["x-seen"] = "yes"
        return response

    @app.post("/items")
    def create(item: Item) -> Any:
        return item

    with slipstream.TestClient(app) as client:
        r = client.post("/items", json={"name": "w"})
        assert r.status_code == 422
        assert r.headers["x-seen"] == "yes"
        assert r.json() == {"detail": [{"type": "missing", "loc": ["body", "price"], "msg": "Field required",
                                        "input": {"name": "w"}}]}
        r = client.post("/items", content=b"\xff", headers={"content-type": "application/json"})
        assert (r.status_code, r.headers["x-seen"]) == (400, "yes")
        assert client.post("/items", json={"name": "w", "price": 1}).json() == {"name": "w", "price": 1.0}
        assert calls == [422, 400, 200]
