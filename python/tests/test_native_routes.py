"""Routes answered by the I/O threads without the GIL: static bytes, validate-and-echo, cached GET."""

import json
import math
import random
import struct
from typing import Annotated

from pydantic import BaseModel, Field
from slipstream import App, Query, TestClient


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)


def test_static_route() -> None:
    app = App()
    app.static_route("/ping", {"ok": True, "name": "é"}, headers={"Cache-Control": "no-store"})
    app.static_route("/text", "pong", methods=("GET", "POST"))
    with TestClient(app) as client:
        r = client.get("/ping")
        assert (r.status_code, r.content, r.headers["content-type"], r.headers["cache-control"]) == (
            200, '{"ok":true,"name":"é"}'.encode(), "application/json", "no-store")
        assert client.post("/text").text == "pong"
        assert client.get("/text").headers["content-type"] == "text/plain; charset=utf-8"


def test_echo_route_validates_and_echoes() -> None:
    app = App()
    app.echo_route("/items", Item)
    app.echo_route("/any", list[float])
    with TestClient(app) as client:
        r = client.post("/items", content=b'{ "name" : "a\\u00e9\\n", "price": 1.50 }',
                        headers={"content-type": "application/json"})
        assert (r.status_code, r.content) == (200, '{"name":"aé\\n","price":1.5}'.encode())
        r = client.post("/items", json={"name": "a", "price": 0})
        assert r.status_code == 422
        assert r.json()["detail"] == [{"type": "greater_than", "loc": ["body", "price"],
                                       "msg": "Input should be greater than 0", "input": 0, "ctx": {"gt": 0.0}}]
        # Doubles are written as Python's repr: json.dumps(json.loads(body)) byte for byte.
        rng = random.Random(7)
        values = [struct.unpack("<d", rng.randbytes(8))[0] for _ in range(300)]
        values = [v for v in values if math.isfinite(v)]
        values += [0.0, -0.0, 1e16, 1e15, 123456789.0, 1e-5, 1e-4, 0.1, 2.5e-300, 5e-324, 1.7976931348623157e308]
        body = json.dumps(values)
        r = client.post("/any", content=body, headers={"content-type": "application/json"})
        assert r.text == json.dumps(json.loads(body), separators=(",", ":"))


def test_cached_get_skips_python_while_fresh() -> None:
    app = App()
    calls: list[int] = []

    @app.get("/counter", cache_ttl=60)
    def counter(n: Annotated[int, Query()] = 0):
        calls.append(n)
        return {"n": n, "calls": len(calls)}

    with TestClient(app) as client:
        assert client.get("/counter?n=1").json() == {"n": 1, "calls": 1}
        assert client.get("/counter?n=1").json() == {"n": 1, "calls": 1}
        assert client.get("/counter?n=2").json() == {"n": 2, "calls": 2}
        assert client.get("/counter?n=1").json() == {"n": 1, "calls": 1}
        assert client.get("/counter?n=x").status_code == 422
    assert calls == [1, 2]


def test_cache_ttl_is_get_only() -> None:
    app = App()
    try:
        app.post("/x", cache_ttl=1)(lambda: 1)
    except ValueError:
        return
    raise AssertionError("cache_ttl on POST must be refused")
