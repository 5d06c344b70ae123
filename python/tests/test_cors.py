"""CORSMiddleware: its options reach the engine, which answers preflights and adds the fields without Python."""

from __future__ import annotations

import re
from typing import Any

import pytest
import slipstream
from slipstream import App, TestClient
from slipstream.middleware import BaseHTTPMiddleware, Middleware
from slipstream.middleware import CORSMiddleware as PackageCORSMiddleware
from slipstream.middleware.cors import CORSMiddleware
from slipstream.responses import StreamingResponse

A = "https://a.example"
PREFLIGHT_VARY = ("Origin, Access-Control-Request-Method, Access-Control-Request-Headers, "
                  "Access-Control-Request-Private-Network")


def cors_fields(response: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower().startswith("access-control-")}


def counted_app(calls: list[str], **cors: Any) -> App:
    app = App()
    app.add_middleware(CORSMiddleware, **cors)

    @app.get("/items/{item_id}")
    def item(item_id: int) -> dict[str, int]:
        calls.append(f"item {item_id}")
        return {"id": item_id}

    @app.post("/items")
    async def create(body: dict[str, int]) -> dict[str, int]:
        calls.append("create")
        return body

    @app.get("/stream")
    def stream() -> StreamingResponse:
        return StreamingResponse(iter([b"a", b"b"]), media_type="application/octet-stream")

    app.static_route("/static", {"ok": True})
    return app


def test_both_import_paths_name_one_class() -> None:
    assert PackageCORSMiddleware is CORSMiddleware
    assert slipstream.middleware.cors.CORSMiddleware is CORSMiddleware


def test_preflight_is_answered_without_python() -> None:
    calls: list[str] = []
    app = counted_app(calls, allow_origins=[A], allow_methods=["GET", "POST"], allow_headers=["X-Token"],
                      allow_credentials=True, max_age=30)
    assert app.user_middleware == []  # nothing for the Python middleware chain
    with TestClient(app) as client:
        r = client.options("/items", headers={"Origin": A, "Access-Control-Request-Method": "POST",
                                              "Access-Control-Request-Headers": "x-token"})
        assert (r.status_code, r.text) == (200, "OK")
        assert r.headers["content-type"] == "text/plain; charset=utf-8"
        assert r.headers["vary"] == PREFLIGHT_VARY
        assert cors_fields(r) == {
            "access-control-allow-origin": A,
            "access-control-allow-credentials": "true",
            "access-control-allow-methods": "GET, POST",
            "access-control-allow-headers": "Accept, Accept-Language, Content-Language, Content-Type, X-Token",
            "access-control-max-age": "30",
        }
        r = client.options("/items/1", headers={"Origin": "https://evil.example",
                                                "Access-Control-Request-Method": "DELETE"})
        assert (r.status_code, r.text) == (400, "Disallowed CORS origin, method")
    assert calls == []


@pytest.mark.parametrize("origin", [A, "https://evil.example", None])
def test_handler_answers_get_the_fields(origin: str | None) -> None:
    calls: list[str] = []
    app = counted_app(calls, allow_origins=[A], expose_headers=["X-Total"])
    headers = {"Origin": origin} if origin else {}
    allowed = {"access-control-allow-origin": A} if origin == A else {}
    exposed = {"access-control-expose-headers": "X-Total"} if origin else {}
    with TestClient(app) as client:
        for method, url, kwargs, status in [("GET", "/items/3", {}, 200), ("POST", "/items", {"json": {"a": 1}}, 200),
                                            ("GET", "/items/x", {}, 422), ("GET", "/nothing", {}, 404),
                                            ("GET", "/stream", {}, 200), ("GET", "/static", {}, 200)]:
            r = client.request(method, url, headers=headers, **kwargs)
            assert r.status_code == status, url
            assert cors_fields(r) == {**allowed, **exposed}, url
            assert r.headers.getlist("vary") == ["Origin"], url
    assert calls == ["item 3", "create"]


def test_credentials_with_any_origin_name_the_origin() -> None:
    app = counted_app([], allow_origins=["*"], allow_credentials=True)
    with TestClient(app) as client:
        r = client.get("/items/1", headers={"Origin": "https://x.example"})
        assert cors_fields(r) == {"access-control-allow-origin": "https://x.example",
                                  "access-control-allow-credentials": "true"}


def test_origin_regex_matches_in_full() -> None:
    app = counted_app([], allow_origin_regex=r"https://[a-z]+\.b\.example")
    with TestClient(app) as client:
        ok = client.get("/items/1", headers={"Origin": "https://pr.b.example"})
        assert ok.headers["access-control-allow-origin"] == "https://pr.b.example"
        refused = client.get("/items/1", headers={"Origin": "https://pr.b.example.evil"})
        assert "access-control-allow-origin" not in refused.headers


def test_middleware_list_form_and_starlette_classes() -> None:
    from starlette.middleware import Middleware as StarletteMiddleware
    from starlette.middleware.cors import CORSMiddleware as StarletteCORS

    for entry in (Middleware(CORSMiddleware, allow_origins=[A]), StarletteMiddleware(StarletteCORS, allow_origins=[A])):
        app = App(middleware=[entry])
        assert app.user_middleware == []

        @app.get("/")
        def root() -> str:
            return "root"

        with TestClient(app) as client:
            assert client.get("/", headers={"Origin": A}).headers["access-control-allow-origin"] == A


def test_cors_beside_python_middleware() -> None:
    class Tag(BaseHTTPMiddleware):
        async def dispatch(self, request: Any, call_next: Any) -> Any:
            response = await call_next(request)
            response.headers["x-tag"] = "t"
            return response

    app = App(middleware=[Middleware(Tag), Middleware(CORSMiddleware, allow_origins=["*"])])
    assert len(app.user_middleware) == 1

    @app.get("/")
    def root() -> str:
        return "root"

    with TestClient(app) as client:
        r = client.get("/", headers={"Origin": A})
        assert (r.headers["x-tag"], r.headers["access-control-allow-origin"]) == ("t", "*")
        r = client.options("/", headers={"Origin": A, "Access-Control-Request-Method": "GET"})
        assert (r.status_code, r.text, r.headers.get("x-tag")) == (200, "OK", None)  # before any Python


def test_no_origin_allowed_leaves_cors_off() -> None:
    app = counted_app([], allow_methods=["*"])
    with TestClient(app) as client:
        r = client.get("/items/1", headers={"Origin": A})
        assert cors_fields(r) == {}
        assert "vary" not in r.headers


def test_adding_it_twice_is_an_error() -> None:
    app = App()
    app.add_middleware(CORSMiddleware, allow_origins=[A])
    with pytest.raises(ValueError, match="CORSMiddleware is already added to this app"):
        app.add_middleware(CORSMiddleware, allow_origins=["*"])
    with pytest.raises(ValueError, match="CORSMiddleware is already added to this app"):
        App(middleware=[Middleware(CORSMiddleware, allow_origins=[A]), Middleware(CORSMiddleware)])


def test_cors_options_given_twice_are_an_error() -> None:
    app = App(cors_allow_origins="https://b.example")
    app.add_middleware(CORSMiddleware, allow_origins=[A])
    with pytest.raises(ValueError, match=re.escape("CORS is configured twice: by CORSMiddleware and by the server "
                                                   "options ['cors_allow_origins']")):
        app.build()


def test_server_options_alone_turn_cors_on() -> None:
    app = App(cors_allow_origins=A, cors_allow_methods="GET,PUT")

    @app.get("/")
    def root() -> str:
        return "root"

    with TestClient(app) as client:
        r = client.options("/", headers={"Origin": A, "Access-Control-Request-Method": "PUT"})
        assert (r.status_code, r.headers["access-control-allow-methods"]) == (200, "GET, PUT")


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"allow_origins": "*"}, TypeError, "allow_origins must be a list of str, not str (write ['*'] for one item)"),
    ({"allow_origins": [A, 3]}, TypeError, "allow_origins must hold str items, not int (3)"),
    ({"allow_origins": ["https://a.example,https://b.example"]}, ValueError, "holds a comma"),
    ({"allow_headers": [""]}, ValueError, "allow_headers holds an empty item"),
    ({"allow_origins": [A], "max_age": -1}, ValueError, "max_age must be an int of seconds"),
    ({"allow_origins": [A], "max_age": True}, ValueError, "max_age must be an int of seconds"),
    ({"allow_origin_regex": "https://(a"}, re.error, "missing \\)"),
])
def test_bad_options_fail_at_add_middleware(options: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message) if error is not re.error else message):
        App().add_middleware(CORSMiddleware, **options)


@pytest.mark.parametrize(("options", "message"), [
    ({"allow_origin_regex": r"https://(?=a).*"},
     "cors_allow_origin_regex: 'https://(?=a).*' is not a valid RE2 pattern: invalid perl operator: (?="),
    ({"allow_origins": [A], "allow_methods": ["GE T"]}, "cors_allow_methods: 'GE T' is not a method (an HTTP token)"),
])
def test_what_only_the_engine_refuses_fails_at_build(options: dict[str, Any], message: str) -> None:
    app = App()
    app.add_middleware(CORSMiddleware, **options)
    with pytest.raises(ValueError, match=re.escape(message)):
        app.build()
