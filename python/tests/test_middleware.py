"""@app.middleware("http") and BaseHTTPMiddleware: same responses as FastAPI, for routes, 404s, 405s and errors."""


from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")
import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from slipstream.middleware import BaseHTTPMiddleware
from starlette.middleware.base import BaseHTTPMiddleware as StarletteBaseHTTPMiddleware


class Boom(Exception):
    pass


def build(fw: Any, events: list[str]) -> Any:
    is_fastapi = fw is fastapi
    app = fw.FastAPI() if is_fastapi else fw.App()
    Base = StarletteBaseHTTPMiddleware if is_fastapi else BaseHTTPMiddleware
    JSONResponse, PlainTextResponse = fw.responses.JSONResponse, fw.responses.PlainTextResponse

    class Tagger(Base):  # type: ignore[misc, valid-type]
        def __init__(self, app: Any, tag: str) -> None:
            super().__init__(app)
            self.tag = tag

        async def dispatch(self, request: Any, call_next: Any) -> Any:
            events.append(f"tagger:{request.url.path}")
            response = await call_next(request)
            response.headers["x-tag"] = self.tag
            return response

    app.add_middleware(Tagger, tag="t1")

    @app.middleware("http")
    async def outer(request: Any, call_next: Any) -> Any:
        events.append(f"outer:{request.method}")
        if request.headers.get("x-block"):
            return JSONResponse({"blocked": True}, status_code=418)
        request.state.user = "alice"
        try:
            response = await call_next(request)
        except Boom:
            events.append("outer:caught")
            return PlainTextResponse("boom handled", status_code=599)
        response.headers["x-status"] = str(response.status_code)
        return response

    @app.exception_handler(ValueError)
    async def value_error(request: Any, exc: ValueError) -> Any:
        return JSONResponse({"value_error": str(exc)}, status_code=400)

    @app.get("/hello")
    def hello(request: fw.Request) -> Any:
        events.append("handler")
        return {"user": request.state.user}

    @app.get("/items/{item_id}")
    async def item(item_id: int, q: Annotated[int, fw.Query(lt=10)] = 1) -> Any:
        return {"item_id": item_id, "q": q}

    @app.post("/items/{item_id}")
    def post_item(item_id: int) -> Any:
        return {"posted": item_id}

    @app.get("/http-error")
    def http_error() -> Any:
        raise fw.HTTPException(404, "gone", headers={"x-why": "test"})

    @app.get("/value-error")
    def value() -> Any:
        raise ValueError("bad")

    @app.get("/boom")
    def boom() -> Any:
        raise Boom()

    @app.get("/crash")
    def crash() -> Any:
        raise RuntimeError("unhandled")

    @app.get("/text", response_class=fw.responses.PlainTextResponse)
    def text() -> Any:
        return "plain"

    @app.get("/status", status_code=201)
    def created(response: fw.Response) -> Any:
        response.headers["x-handler"] = "1"
        return {"created": True}

    return app


CASES = [
    ("GET", "/hello", {}),
    ("GET", "/hello", {"headers": {"x-block": "1"}}),
    ("GET", "/items/3?q=2", {}),
    ("GET", "/nowhere", {}),
    ("DELETE", "/items/3", {}),
    ("PUT", "/hello", {}),
    ("GET", "/http-error", {}),
    ("GET", "/value-error", {}),
    ("GET", "/boom", {}),
    ("GET", "/crash", {}),
    ("GET", "/text", {}),
    ("GET", "/status", {}),
]


@pytest.fixture(scope="module")
def pair() -> Any:
    ours_events: list[str] = []
    theirs_events: list[str] = []
    ours = slipstream.TestClient(build(slipstream, ours_events), raise_server_exceptions=False)
    theirs = FastAPIClient(build(fastapi, theirs_events), raise_server_exceptions=False)
    yield ours, theirs, ours_events, theirs_events
    ours.close()


@pytest.mark.parametrize(("method", "url", "kwargs"), CASES)
def test_same_as_fastapi(pair: Any, method: str, url: str, kwargs: dict[str, Any]) -> None:
    ours, theirs, ours_events, theirs_events = pair
    ours_events.clear()
    theirs_events.clear()
    expected = theirs.request(method, url, **kwargs)
    got = ours.request(method, url, **kwargs)
    assert (got.status_code, got.content) == (expected.status_code, expected.content)
    for name in ("x-tag", "x-status", "x-why", "x-handler", "content-type"):
        assert got.headers.get(name) == expected.headers.get(name), name
    assert set(got.headers.get("allow", "").split(", ")) == set(expected.headers.get("allow", "").split(", "))
    assert ours_events == theirs_events


def test_validation_error_passes_through_middleware(pair: Any) -> None:
    ours, theirs, _, _ = pair
    expected = theirs.get("/items/3?q=50")
    got = ours.get("/items/3?q=50")
    assert (got.status_code, got.content) == (expected.status_code, expected.content)
    assert got.headers.get("x-tag") == expected.headers.get("x-tag") == "t1"


def test_apps_without_middleware_get_fastapis_404_from_the_engine() -> None:
    app = slipstream.App()

    @app.get("/a")
    def a() -> Any:
        return {}

    with slipstream.TestClient(app) as client:
        response = client.get("/missing")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"detail": "Not Found"}


def test_middleware_may_replace_the_body_iterator() -> None:
    app = slipstream.App()

    @app.middleware("http")
    async def upper(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        chunks = [chunk async for chunk in response.body_iterator]

        async def shout() -> Any:
            yield b"".join(chunks).upper()

        response.body_iterator = shout()
        return response

    @app.get("/t", response_class=slipstream.PlainTextResponse)
    def t() -> Any:
        return "quiet"

    with slipstream.TestClient(app) as client:
        assert client.get("/t").text == "QUIET"


def test_middleware_function_must_be_async() -> None:
    app = slipstream.App()

    @app.middleware("http")
    def not_async(request: Any, call_next: Any) -> Any:
        return call_next(request)

    with pytest.raises(TypeError, match="async def"):
        app.build()
