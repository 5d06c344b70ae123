"""SessionMiddleware (slipstream.middleware.sessions): request.session kept in a signed cookie, Starlette's cookie
format (a cookie made by a FastAPI app is read by ours and the other way round), its options and its answers."""

# No `from __future__ import annotations`: handlers annotate with each framework's Request, a local name.
from typing import Any

import pytest

pytest.importorskip("itsdangerous")
fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from slipstream.middleware import Middleware
from slipstream.middleware.sessions import Session, SessionMiddleware
from starlette.middleware.sessions import SessionMiddleware as StarletteSessionMiddleware


def _app(fw: Any, middleware_class: Any = None, **options: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    if middleware_class is None:
        middleware_class = StarletteSessionMiddleware if fw is fastapi else SessionMiddleware
    app.add_middleware(middleware_class, **{"secret_key": "s3cret", **options})

    @app.get("/login/{user}")
    def login(request: fw.Request, user: str) -> Any:
        request.session["user"] = user
        request.session.setdefault("visits", 0)
        return dict(request.session)

    @app.get("/visit")
    def visit(request: fw.Request) -> Any:
        if "user" in request.session:
            request.session["visits"] += 1
        return dict(request.session)

    @app.get("/peek")
    def peek(request: fw.Request) -> Any:
        return dict(request.session)

    @app.get("/untouched")
    def untouched() -> Any:
        return "no session read"

    @app.get("/logout")
    def logout(request: fw.Request) -> Any:
        request.session.clear()
        return dict(request.session)

    return app


def _set_cookie(response: Any) -> list[str]:
    headers = response.headers
    return list(headers.get_list("set-cookie") if hasattr(headers, "get_list") else headers.getlist("set-cookie"))


def test_a_session_lives_across_requests_in_the_cookie() -> None:
    with slipstream.TestClient(_app(slipstream)) as client:
        r = client.get("/login/ann")
        assert r.json() == {"user": "ann", "visits": 0}
        [cookie] = _set_cookie(r)
        assert cookie.startswith("session=") and cookie.endswith("; path=/; Max-Age=1209600; httponly; samesite=lax")
        assert r.headers["vary"] == "Cookie"
        assert client.get("/visit").json() == {"user": "ann", "visits": 1}
        assert client.get("/visit").json() == {"user": "ann", "visits": 2}
        r = client.get("/peek")
        assert (r.json(), _set_cookie(r), r.headers["vary"]) == ({"user": "ann", "visits": 2}, [], "Cookie")
        r = client.get("/untouched")
        assert (_set_cookie(r), "vary" in r.headers) == ([], False)
        r = client.get("/logout")
        assert r.json() == {}
        assert _set_cookie(r) == ["session=null; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; httponly; samesite=lax"]
        assert client.get("/peek").json() == {}
        assert _set_cookie(client.get("/logout")) == []  # nothing to clear: the request carried no session


def test_a_cookie_of_another_key_or_tampered_starts_an_empty_session() -> None:
    with slipstream.TestClient(_app(slipstream)) as ours, slipstream.TestClient(_app(slipstream, secret_key="other")) \
            as other:
        cookie = _set_cookie(ours.get("/login/ann"))[0].split(";")[0].split("=", 1)[1]
        assert other.get("/peek", cookies={"session": cookie}).json() == {}
        payload, timestamp, signature = cookie.split(".")
        forged = payload.replace("=", "") + "x." + timestamp + "." + signature
        assert ours.get("/peek", cookies={"session": forged}).json() == {}
        assert ours.get("/peek", cookies={"session": "garbage"}).json() == {}


@pytest.mark.parametrize(("source", "reader"), [("fastapi", "slipstream"), ("slipstream", "fastapi")])
def test_cookies_cross_between_starlette_and_slipstream(source: str, reader: str) -> None:
    clients = {"slipstream": lambda: slipstream.TestClient(_app(slipstream)),
               "fastapi": lambda: FastAPIClient(_app(fastapi))}
    with clients[source]() as writer:
        writer.get("/login/bob")
        writer.get("/visit")
        cookie = writer.cookies.get("session")
    with clients[reader]() as other:
        assert other.get("/peek", cookies={"session": cookie}).json() == {"user": "bob", "visits": 1}


def test_options_shape_the_cookie() -> None:
    app = _app(slipstream, session_cookie="sid", max_age=None, path="/", same_site="strict", https_only=True,
               domain="example.com", partitioned=True)
    with slipstream.TestClient(app) as client:
        [cookie] = _set_cookie(client.get("/login/ann"))
    assert cookie.startswith("sid=")
    assert cookie.split("; ", 1)[1] == "path=/; httponly; samesite=strict; secure; domain=example.com; partitioned"


def test_max_age_expires_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    import itsdangerous.timed

    with slipstream.TestClient(_app(slipstream, max_age=60)) as client:
        client.get("/login/ann")
        assert client.get("/peek").json() == {"user": "ann", "visits": 0}
        now = itsdangerous.timed.TimestampSigner.get_timestamp(itsdangerous.timed.TimestampSigner("x"))
        monkeypatch.setattr(itsdangerous.timed.TimestampSigner, "get_timestamp", lambda self: now + 61)
        assert client.get("/peek").json() == {}


def test_starlettes_class_and_middleware_entries_map_to_ours() -> None:
    app = slipstream.App(middleware=[Middleware(StarletteSessionMiddleware, secret_key="s3cret")])
    assert isinstance(app.user_middleware[0], SessionMiddleware)
    with slipstream.TestClient(_app(slipstream, middleware_class=StarletteSessionMiddleware)) as client:
        client.get("/login/cy")
        assert client.get("/visit").json() == {"user": "cy", "visits": 1}


def test_without_the_middleware_request_session_is_an_assertion_error() -> None:
    app = slipstream.App()

    @app.get("/")
    def root(request: slipstream.Request) -> Any:
        return request.session

    with slipstream.TestClient(app) as client, \
            pytest.raises(AssertionError, match="SessionMiddleware must be installed to access request.session"):
        client.get("/")


def test_errors_and_session_bookkeeping() -> None:
    with pytest.raises(TypeError, match="needs a secret_key"):
        SessionMiddleware(None)
    session = Session({"a": 1})
    assert (session.accessed, session.modified) == (False, False)
    session.pop("missing", None)
    assert session.modified is False
    session |= {"b": 2}
    assert (session, session.modified) == ({"a": 1, "b": 2}, True)


def test_the_same_answers_as_fastapi() -> None:
    def scenario(client: Any) -> list[Any]:
        seen = []
        for url in ("/peek", "/login/dee", "/visit", "/untouched", "/logout", "/logout"):
            r = client.get(url)
            seen.append((url, r.status_code, r.json(), r.headers.get("vary"),
                         [c.split("=", 1)[0] + ("=null" if "=null;" in c else "") for c in _set_cookie(r)]))
        return seen

    with slipstream.TestClient(_app(slipstream)) as ours, FastAPIClient(_app(fastapi)) as theirs:
        mine, reference = scenario(ours), scenario(theirs)
    assert mine == reference
    assert mine[1] == ("/login/dee", 200, {"user": "dee", "visits": 0}, "Cookie", ["session"])


@pytest.mark.parametrize("fw", [slipstream, fastapi], ids=["slipstream", "fastapi"])
def test_a_websocket_reads_the_session_of_the_handshake(fw: Any) -> None:
    app = _app(fw)

    @app.websocket("/ws")
    async def ws(websocket: fw.WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"session": dict(websocket.session), "scoped": "session" in websocket.scope})
        websocket.session["ignored"] = True  # a WebSocket cannot send the cookie
        await websocket.close()

    client_class = slipstream.TestClient if fw is slipstream else FastAPIClient
    with client_class(app) as client:
        with client.websocket_connect("/ws") as session:
            assert session.receive_json() == {"session": {}, "scoped": True}
        client.get("/login/wes")
        with client.websocket_connect("/ws") as session:
            assert session.receive_json() == {"session": {"user": "wes", "visits": 0}, "scoped": True}
        assert client.get("/peek").json() == {"user": "wes", "visits": 0}


def test_a_websocket_without_the_middleware_has_no_session() -> None:
    app = slipstream.App()

    @app.websocket("/ws")
    async def ws(websocket: slipstream.WebSocket) -> None:
        await websocket.accept()
        try:
            websocket.session  # noqa: B018 - the access is the check
        except AssertionError as exc:
            await websocket.send_text(str(exc))
        await websocket.close()

    with slipstream.TestClient(app) as client, client.websocket_connect("/ws") as session:
        assert session.receive_text() == "SessionMiddleware must be installed to access request.session"
