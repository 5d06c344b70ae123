"""TestClient defaults as FastAPI's (Starlette's httpx-based client): redirects followed, a cookie jar that
Set-Cookie fills, the handler's exception raised in the test (raise_server_exceptions=True), base_url with a
path, params= (the lifespan: test_lifespan.py). Each scenario runs against both frameworks and must give the
same observations, which are also checked against literal values."""

import http.cookiejar
from collections.abc import Callable
from typing import Any

import pytest
import slipstream
from slipstream.testclient import TooManyRedirects

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient as FastAPIClient


class Boom(Exception):
    pass


class Handled(Exception):
    pass


def _app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    events: list[str] = []
    app.state.events = events

    @app.exception_handler(Handled)
    async def on_handled(request: Any, exc: Handled) -> Any:
        return fw.responses.JSONResponse({"handled": str(exc)}, status_code=418)

    @app.get("/boom-def")
    def boom_def() -> Any:
        raise Boom("in a def handler")

    @app.get("/boom-async")
    async def boom_async() -> Any:
        raise Boom("in an async handler")

    @app.get("/handled")
    async def handled() -> Any:
        raise Handled("by the app")

    @app.get("/http-error")
    async def http_error() -> Any:
        raise fw.HTTPException(status_code=409, detail="conflict")

    def failing_task() -> None:
        raise Boom("in a background task")

    @app.get("/background")
    async def background(tasks: fw.BackgroundTasks) -> Any:
        tasks.add_task(failing_task)
        return {"sent": True}

    def broken_body() -> Any:
        yield b"first part"
        raise Boom("in a streamed body")

    @app.get("/broken-stream")
    def broken_stream() -> Any:
        return fw.responses.StreamingResponse(broken_body(), media_type="text/plain")

    @app.api_route("/redirect/{code}", methods=["GET", "POST"])
    async def redirect(code: int, to: str = "/echo") -> Any:
        return fw.responses.RedirectResponse(to, status_code=code)

    @app.api_route("/echo", methods=["GET", "POST"])
    async def echo(request: fw.Request) -> Any:
        return {"method": request.method, "body": (await request.body()).decode(), "query": str(request.url.query),
                "path": request.url.path, "host": request.headers.get("host"),
                "cookie": request.headers.get("cookie")}

    @app.get("/loop")
    async def loop() -> Any:
        return fw.responses.RedirectResponse("/loop")

    @app.get("/login")
    async def login(response: fw.Response) -> Any:
        response.set_cookie("session", "s1")
        response.set_cookie("scoped", "only-under-admin", path="/admin")
        return {"ok": True}

    @app.get("/logout")
    async def logout(response: fw.Response) -> Any:
        response.delete_cookie("session")
        return {"ok": True}

    @app.get("/cookies")
    async def cookies(request: fw.Request) -> Any:
        return dict(request.cookies)

    @app.get("/admin/cookies")
    async def admin_cookies(request: fw.Request) -> Any:
        return dict(request.cookies)

    @app.get("/api/items")
    async def items(q: str | None = None) -> Any:
        return {"q": q}

    return app


def _both(scenario: Callable[[Any, Any], Any], **options: Any) -> tuple[Any, Any]:
    """The scenario's observations with our client and with FastAPI's, the same app code under each."""
    with slipstream.TestClient(_app(slipstream), **options) as ours:
        mine = scenario(ours, slipstream)
    with FastAPIClient(_app(fastapi), **options) as theirs:
        reference = scenario(theirs, fastapi)
    return mine, reference


@pytest.mark.parametrize("path", ["/boom-def", "/boom-async", "/background", "/broken-stream"])
def test_an_unhandled_exception_is_raised_in_the_test(path: str) -> None:
    def scenario(client: Any, fw: Any) -> Any:
        with pytest.raises(Boom) as info:
            client.get(path)
        return str(info.value)

    mine, reference = _both(scenario)
    assert mine == reference
    assert mine.startswith("in a")


def test_raise_server_exceptions_false_gives_the_500() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        r = client.get("/boom-async")
        cut = client.get("/broken-stream")
        return r.status_code, r.text, client.get("/background").json(), cut.status_code, cut.content

    mine, reference = _both(scenario, raise_server_exceptions=False)
    assert mine == reference == (500, "Internal Server Error", {"sent": True}, 200, b"first part")


def test_handled_exceptions_are_responses() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        return [(r.status_code, r.json()) for r in (client.get("/handled"), client.get("/http-error"))]

    mine, reference = _both(scenario)
    assert mine == reference == [(418, {"handled": "by the app"}), (409, {"detail": "conflict"})]


@pytest.mark.parametrize("fw", [slipstream, fastapi], ids=["slipstream", "fastapi"])
def test_the_apps_500_handler_answers_and_the_exception_is_still_raised(fw: Any) -> None:
    app = _app(fw)

    @app.exception_handler(500)
    async def on_500(request: Any, exc: Exception) -> Any:
        return fw.responses.JSONResponse({"error": str(exc)}, status_code=500)

    client_class = slipstream.TestClient if fw is slipstream else FastAPIClient
    with client_class(app) as client, pytest.raises(Boom, match="in an async handler"):
        client.get("/boom-async")
    with client_class(app, raise_server_exceptions=False) as client:
        r = client.get("/boom-async")
        assert (r.status_code, r.json()) == (500, {"error": "in an async handler"})


def test_an_exception_through_http_middleware_is_raised() -> None:
    app = slipstream.App()

    @app.middleware("http")
    async def tag(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["x-tag"] = "1"
        return response

    @app.get("/boom")
    def boom() -> Any:
        raise Boom("under middleware")

    with slipstream.TestClient(app) as client, pytest.raises(Boom, match="under middleware"):
        client.get("/boom")


@pytest.mark.parametrize(("code", "method", "expected"), [
    (307, "POST", {"method": "POST", "body": "payload"}),
    (308, "POST", {"method": "POST", "body": "payload"}),
    (303, "POST", {"method": "GET", "body": ""}),
    (302, "POST", {"method": "GET", "body": ""}),
    (301, "POST", {"method": "GET", "body": ""}),
    (301, "GET", {"method": "GET", "body": ""}),
])
def test_redirects_are_followed_as_httpx_follows_them(code: int, method: str, expected: dict[str, str]) -> None:
    def scenario(client: Any, fw: Any) -> Any:
        r = client.request(method, f"/redirect/{code}", content=b"payload" if method == "POST" else None)
        echoed = r.json()
        return (r.status_code, {k: echoed[k] for k in ("method", "body")}, str(r.url),
                [(h.status_code, h.headers["location"]) for h in r.history])

    mine, reference = _both(scenario)
    assert mine == reference == (200, expected, "http://testserver/echo", [(code, "/echo")])


def test_follow_redirects_false_per_client_and_per_request() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        r = client.get("/redirect/307", follow_redirects=False)
        followed = client.get("/redirect/307", follow_redirects=True)
        return r.status_code, r.headers["location"], r.is_redirect, followed.status_code

    mine, reference = _both(scenario)
    assert mine == reference == (307, "/echo", True, 200)
    mine, reference = _both(lambda client, fw: client.get("/redirect/302").status_code, follow_redirects=False)
    assert mine == reference == 302


def test_a_redirect_to_another_host_sends_that_host() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        return client.get("/redirect/307", params={"to": "http://other.example/echo?x=1"}).json()["host"]

    mine, reference = _both(scenario)
    assert mine == reference == "other.example"


def test_a_redirect_loop_stops() -> None:
    with slipstream.TestClient(_app(slipstream), max_redirects=3) as client, pytest.raises(TooManyRedirects):
        client.get("/loop")


def test_a_redirect_to_https_is_followed() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        response = client.get("/redirect/307", params={"to": "https://testserver/echo"})
        return response.status_code, str(response.url), [r.status_code for r in response.history]

    mine, reference = _both(scenario)
    assert mine == reference == (200, "https://testserver/echo", [307])


def test_other_schemes_are_refused_precisely() -> None:
    with slipstream.TestClient(_app(slipstream)) as client, \
            pytest.raises(ValueError, match="cannot request 'ftp://testserver/echo'"):
        client.get("ftp://testserver/echo")


def test_set_cookie_fills_the_jar_and_later_requests_send_it() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        seen = []
        login = client.get("/login")
        seen.append(dict(login.cookies))
        seen.append(client.get("/cookies").json())
        seen.append(client.get("/admin/cookies").json())  # the path-scoped cookie only under /admin
        seen.append(client.cookies.get("session"))
        client.get("/logout")
        seen.append(client.get("/cookies").json())
        client.cookies.set("manual", "m")
        seen.append(client.get("/cookies").json())
        seen.append(client.get("/cookies", cookies={"extra": "e"}).json() if fw is slipstream else None)
        seen.append(isinstance(client.cookies.jar, http.cookiejar.CookieJar))
        client.cookies.clear()
        seen.append(client.get("/cookies").json())
        return seen

    mine, reference = _both(scenario)
    assert mine[:6] + mine[7:] == reference[:6] + reference[7:]
    assert mine == [
        {"session": "s1", "scoped": "only-under-admin"},
        {"session": "s1"},
        {"session": "s1", "scoped": "only-under-admin"},
        "s1",
        {},
        {"manual": "m"},
        {"manual": "m", "extra": "e"},
        True,
        {},
    ]


def test_cookies_given_to_the_client_are_sent() -> None:
    mine, reference = _both(lambda client, fw: client.get("/cookies").json(), cookies={"team": "core"})
    assert mine == reference == {"team": "core"}


def test_base_url_with_a_path_and_params() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        return client.get("/items", params={"q": "a b"}).json(), client.get("items?q=x").json()

    mine, reference = _both(scenario, base_url="http://testserver/api")
    assert mine == reference == ({"q": "a b"}, {"q": "x"})


def test_params_replace_the_query_of_the_url() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        return client.get("/echo?a=1", params=[("b", "2"), ("b", "3")]).json()["query"]

    mine, reference = _both(scenario)
    assert mine == reference == "b=2&b=3"  # httpx: params replace the URL's query


def test_response_request_status_groups_and_cookie_assignment() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        client.cookies = {"assigned": "yes"}
        r = client.post("/redirect/303", content=b"payload", headers={"x-trace": "t1"})
        missing = client.get("/nothing")
        return (r.request.method, str(r.request.url), r.request.headers["x-trace"], r.request.headers["host"],
                r.json()["cookie"], r.history[0].request.method, r.history[0].request.content,
                missing.is_client_error, missing.is_server_error, missing.is_informational,
                list(missing.iter_bytes(5)), list(r.iter_lines()) == [r.text], r.http_version)

    mine, reference = _both(scenario)
    assert mine == reference == ("GET", "http://testserver/echo", "t1", "testserver", "assigned=yes", "POST",
                                 b"payload", True, False, False, [b'{"det', b'ail":', b'"Not ', b'Found', b'"}'],
                                 True, "HTTP/1.1")


def test_stream_reads_a_streamed_body() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        with client.stream("GET", "/lines", params={"n": "3"}) as r:
            lines = list(r.iter_lines())
        with client.stream("GET", "/lines", params={"n": "2"}) as r:
            text = "".join(r.iter_text())
        with client.stream("GET", "/lines", params={"n": "1"}) as r:
            body = r.read()
        return r.status_code, lines, text, body

    def add_lines(app: Any, fw: Any) -> None:
        @app.get("/lines")
        def lines(n: int) -> Any:
            return fw.responses.StreamingResponse((f"line {i}\n" for i in range(n)), media_type="text/plain")

    results = []
    for fw, client_class in ((slipstream, slipstream.TestClient), (fastapi, FastAPIClient)):
        app = _app(fw)
        add_lines(app, fw)
        with client_class(app) as client:
            results.append(scenario(client, fw))
    assert results[0] == results[1] == (200, ["line 0", "line 1", "line 2"], "line 0\nline 1\n", b"line 0\n")


def test_headers_set_on_the_client_later_replace_the_defaults() -> None:
    def scenario(client: Any, fw: Any) -> Any:
        client.headers["Host"] = "api.example"
        client.headers["X-Team"] = "core"
        first = client.get("/echo").json()["host"]
        return first, client.get("/echo", headers={"host": "other.example"}).json()["host"]

    mine, reference = _both(scenario)
    assert mine == reference == ("api.example", "other.example")
