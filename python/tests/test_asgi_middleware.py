"""Pure ASGI middleware (`app.add_middleware(cls, **options)`, middleware/asgi.py) beyond the differential page:
factories, a request body read through a wrapped receive, a rerouted method, a streamed response (each chunk reaches
the client while the producer still runs; a client that leaves ends the producer), a middleware that answers
nothing, the reroute marker a client cannot forge, and what add_middleware refuses."""

import asyncio
import http.client
import json
import threading
from typing import Any

import pytest
import slipstream
from pydantic import BaseModel
from slipstream.responses import StreamingResponse


def add_header(app: Any, value: str = "1") -> Any:
    """A factory, not a class: Starlette accepts any callable `f(app, **options)`."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        async def wrapped(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (b"x-factory", value.encode())]
            await send(message)

        await app(scope, receive, wrapped)

    return asgi


class Upper:
    """Upper-cases the request body through receive (but not /items's)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/items":
            await self.app(scope, receive, send)
            return
        async def wrapped() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                message = {**message, "body": message["body"].upper()}
            return message

        await self.app(scope, wrapped, send)


class FixName:
    """Rewrites the JSON body of POST /items: a missing name becomes "fixed", a name is upper-cased."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/items":
            await self.app(scope, receive, send)
            return

        async def wrapped() -> Any:
            message = await receive()
            item = json.loads(message["body"] or b"{}")
            item["name"] = item["name"].upper() if "name" in item else "fixed"
            return {**message, "body": json.dumps(item).encode(), "more_body": False}

        await self.app(scope, wrapped, send)


class Rename:
    """A path rewrite of its own: two layers that each reroute nest one loopback request in another."""

    def __init__(self, app: Any, old: str, new: str) -> None:
        self.app, self.old, self.new = app, old, new

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == self.old:
            scope = {**scope, "path": self.new, "raw_path": self.new.encode()}
        await self.app(scope, receive, send)


class PostToGet:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/as-get":
            scope = {**scope, "method": "GET", "path": "/plain", "raw_path": b"/plain"}
        elif scope["type"] == "http" and scope["path"] == "/shout":
            scope = {**scope, "path": "/echo", "raw_path": b"/echo"}
        await self.app(scope, receive, send)


class Silent:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/silent":
            return
        await self.app(scope, receive, send)


class Item(BaseModel):
    name: str
    price: float = 1.0


RELEASE = threading.Event()  # /tick's second chunk waits for it
ENDED = threading.Event()  # set when /endless's producer is closed


async def tick() -> Any:
    yield b"first;"
    await asyncio.to_thread(RELEASE.wait, 60)
    yield b"second"


async def endless() -> Any:
    try:
        while True:
            yield b"data: x\n\n"
            await asyncio.sleep(0.01)
    finally:
        ENDED.set()


def build() -> Any:
    app = slipstream.App()
    app.add_middleware(Silent)
    app.add_middleware(PostToGet)
    app.add_middleware(Rename, old="/second", new="/plain")
    app.add_middleware(Upper)
    app.add_middleware(FixName)
    app.add_middleware(Rename, old="/first", new="/second")
    app.add_middleware(add_header, value="f")

    @app.get("/plain")
    def plain() -> str:
        return "plain"

    @app.post("/echo")
    async def echo(request: slipstream.Request) -> str:
        return (await request.body()).decode()

    @app.get("/stream")
    def stream() -> Any:
        return StreamingResponse(iter([b"a", b"b", b"c"]), media_type="text/plain")

    @app.get("/silent")
    def silent() -> str:
        return "unreached"

    @app.post("/items")
    def create(item: Item) -> Item:
        return item

    @app.get("/tick")
    def ticking() -> Any:
        return StreamingResponse(tick(), media_type="text/plain")

    @app.get("/endless")
    def never_ends() -> Any:
        return StreamingResponse(endless(), media_type="text/event-stream")

    return app


@pytest.fixture(scope="module")
def client() -> Any:
    with slipstream.TestClient(build(), raise_server_exceptions=False) as c:
        yield c


def test_factory_and_wrapped_receive(client: Any) -> None:
    r = client.post("/echo", content=b"shout")
    assert (r.status_code, r.json(), r.headers["x-factory"]) == (200, "SHOUT", "f")


def test_a_body_changed_through_receive_is_the_body_validated(client: Any) -> None:
    """The route's model sees the body the middleware's receive gives: upper-cased, and a body that would be a
    422 made valid."""
    r = client.post("/items", json={"name": "tea", "price": 2})
    assert (r.status_code, r.json(), r.headers.getlist("x-factory")) == (200, {"name": "TEA", "price": 2.0}, ["f"])
    r = client.post("/items", json={"price": 3})
    assert (r.status_code, r.json()) == (200, {"name": "fixed", "price": 3.0})


def test_two_layers_that_each_route_again(client: Any) -> None:
    r = client.get("/first")
    assert (r.status_code, r.json(), r.headers.getlist("x-factory")) == (200, "plain", ["f"])


def test_method_and_path_rewrite_routes_again(client: Any) -> None:
    r = client.post("/as-get", content=b"x")
    assert (r.status_code, r.json(), r.headers.getlist("x-factory")) == (200, "plain", ["f"])


def test_streamed_response_passes_whole(client: Any) -> None:
    r = client.get("/stream")
    assert (r.status_code, r.text, r.headers["content-type"], r.headers["x-factory"]) == (
        200,
        "abc",
        "text/plain; charset=utf-8",
        "f",
    )


def test_a_streamed_response_streams_through(client: Any) -> None:
    """The first chunk reaches the client (through the middleware's send, its header added) while the producer
    waits for the test: nothing is gathered first."""
    RELEASE.clear()
    conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
    try:
        conn.request("GET", "/tick")
        r = conn.getresponse()
        assert (r.status, r.getheader("x-factory"), r.getheader("transfer-encoding")) == (200, "f", "chunked")
        assert r.read1(64) == b"first;"
        RELEASE.set()
        assert r.read() == b"second"
    finally:
        RELEASE.set()
        conn.close()


def test_a_client_leaving_a_stream_ends_its_producer(client: Any) -> None:
    ENDED.clear()
    conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
    conn.request("GET", "/endless")
    r = conn.getresponse()
    assert r.status == 200 and r.read1(64).startswith(b"data: x")
    conn.close()
    assert ENDED.wait(30)


def test_no_response_is_a_500(client: Any) -> None:
    r = client.get("/silent")
    assert r.status_code == 500


@pytest.mark.parametrize("marker", ["0123456789abcdef0123456789abcdef 4", "- 4", "4"])
def test_forged_reroute_marker_skips_nothing(client: Any, marker: str) -> None:
    client.post("/as-get")  # the App's ASGI entry is running (its token exists)
    r = client.get("/plain", headers={"x-slipstream-asgi-skip": marker})
    assert (r.status_code, r.headers.getlist("x-factory")) == (200, ["f"])


def test_add_middleware_refuses_non_callables() -> None:
    app = slipstream.App()
    with pytest.raises(TypeError, match="not middleware"):
        app.add_middleware(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not an ASGI app"):
        app.add_middleware(lambda app: None)  # type: ignore[arg-type, return-value]


def test_app_without_asgi_middleware_keeps_no_layers() -> None:
    app = slipstream.App()

    @app.get("/")
    def hello() -> str:
        return "hi"

    assert app.user_middleware == []


def test_rewrite_from_an_unmatched_path_keeps_the_body(client: Any) -> None:
    r = client.post("/shout", content=b"body")
    assert (r.status_code, r.json()) == (200, "BODY")
