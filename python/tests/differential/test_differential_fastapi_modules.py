"""FastAPI vs Slipstream on the modules imported beside the top level: Jinja2Templates (`<fw>.templating`),
SessionMiddleware (Starlette's class for FastAPI, `slipstream.middleware.sessions` for ours), the default exception
handlers reused by an app's own (`<fw>.exception_handlers`) and the thread helpers (`<fw>.concurrency`); and
the TestClient's defaults (redirects followed, the cookie jar), each client as constructed by default.

Rows join the session's match rate (diff_support.record) like test_differential.py's. Session cookies carry the
second they were signed and a signature over it: the rows compare a cookie's JSON payload and its attributes,
and the signed part is checked by sending the cookie back (a session cookie made by either framework, or by
itsdangerous directly, is read by both).
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's Request, a local.
import base64
import importlib
import json
import pathlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")
pytest.importorskip("jinja2")
itsdangerous = pytest.importorskip("itsdangerous")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from pydantic import BaseModel

from .diff_support import Outcome, client_pairs, compare, exchange, record

SECRET = "differential-secret"


def _module(fw: Any, name: str) -> Any:
    return importlib.import_module(f"{fw.__name__}.{name}")


def _new_app(fw: Any) -> Any:
    return fw.FastAPI() if fw is fastapi else fw.App()


def templates_app(fw: Any, directory: pathlib.Path) -> Any:
    app = _new_app(fw)
    templates = _module(fw, "templating").Jinja2Templates(
        directory=directory, context_processors=[lambda request: {"site": "Shop"}])

    @app.get("/items/{item_id}", name="read_item")
    def read_item(request: fw.Request, item_id: int, q: str = "") -> Any:
        return templates.TemplateResponse(request, "item.html", {"item_id": item_id, "q": q})

    @app.get("/created")
    def created(request: fw.Request) -> Any:
        return templates.TemplateResponse(request=request, name="item.html", context={"item_id": 0, "q": "<new>"},
                                          status_code=201, headers={"x-template": "item"})

    @app.get("/text")
    def text(request: fw.Request) -> Any:
        return templates.TemplateResponse(request, "plain.txt", {"word": "tea & cake"}, media_type="text/plain")

    return app


def sessions_app(fw: Any, **options: Any) -> Any:
    app = _new_app(fw)
    if fw is fastapi:
        from starlette.middleware.sessions import SessionMiddleware
    else:
        SessionMiddleware = _module(fw, "middleware.sessions").SessionMiddleware
    app.add_middleware(SessionMiddleware, secret_key=SECRET, **options)

    @app.get("/login/{user}")
    def login(request: fw.Request, user: str) -> Any:
        request.session.update({"user": user, "roles": ["reader"]})
        return {"session": dict(request.session)}

    @app.get("/peek")
    def peek(request: fw.Request) -> Any:
        return {"session": dict(request.session)}

    @app.get("/count")
    def count(request: fw.Request) -> Any:
        request.session["n"] = request.session.get("n", 0) + 1
        return request.session["n"]

    @app.get("/logout")
    def logout(request: fw.Request) -> Any:
        request.session.clear()
        return "bye"

    @app.get("/private")
    def private(request: fw.Request) -> Any:
        if "user" not in request.session:
            raise fw.HTTPException(401, "log in first")
        return request.session["user"]

    @app.get("/plain")
    def plain() -> Any:
        return "no session"

    return app


class Order(BaseModel):
    item: str
    quantity: int


def handlers_app(fw: Any) -> Any:
    app = _new_app(fw)
    handlers = _module(fw, "exception_handlers")

    @app.exception_handler(fw.HTTPException)
    async def http_error(request: fw.Request, exc: Any) -> Any:
        response = await handlers.http_exception_handler(request, exc)
        response.headers["x-handled"] = "http"
        return response

    @app.exception_handler(fw.exceptions.RequestValidationError)
    async def invalid(request: fw.Request, exc: Any) -> Any:
        response = await handlers.request_validation_exception_handler(request, exc)
        response.headers["x-handled"] = "validation"
        return response

    @app.get("/status/{code}")
    def status(code: int) -> Any:
        raise fw.HTTPException(code, detail={"code": code}, headers={"x-code": str(code)})

    @app.post("/orders")
    def order(body: Order) -> Order:
        return body

    return app


def _blocking_total(numbers: list[int]) -> dict[str, Any]:
    return {"total": sum(numbers), "worker": threading.current_thread() is not threading.main_thread()}


def concurrency_app(fw: Any) -> Any:
    app = _new_app(fw)
    concurrency = _module(fw, "concurrency")

    @app.get("/total")
    async def total(n: int) -> Any:
        return await concurrency.run_in_threadpool(_blocking_total, list(range(n)))

    @app.get("/lines")
    async def lines(n: int) -> Any:
        rows = (f"{i}\n" for i in range(n))
        return fw.responses.StreamingResponse(concurrency.iterate_in_threadpool(rows), media_type="text/plain")

    @app.get("/fails")
    async def fails() -> Any:
        try:
            await concurrency.run_in_threadpool(int, "x")
        except ValueError as exc:
            raise fw.HTTPException(400, str(exc)) from exc

    return app


def _signed(payload: dict[str, Any], secret: str = SECRET) -> str:
    """A session cookie as Starlette writes one: base64 JSON, signed with itsdangerous's TimestampSigner."""
    data = base64.b64encode(json.dumps(payload).encode())
    return itsdangerous.TimestampSigner(secret).sign(data).decode()


@pytest.fixture(scope="module")
def template_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    directory = tmp_path_factory.mktemp("templates")
    (directory / "item.html").write_text(
        "<h1>{{ site }}</h1><a href=\"{{ url_for('read_item', item_id=item_id) }}\">#{{ item_id }}</a>"
        "<p>{{ q }}</p><small>{{ request.url }}</small>")
    (directory / "plain.txt").write_text("{{ word }} ({{ request.method }})")
    return directory


@pytest.fixture(scope="module")
def pair(template_dir: pathlib.Path) -> Iterator[Callable[[str], tuple[Any, Any]]]:
    apps: dict[str, Callable[[Any], Any]] = {
        "templates": lambda fw: templates_app(fw, template_dir),
        "sessions": sessions_app,
        "sessions-options": lambda fw: sessions_app(fw, session_cookie="sid", max_age=None, same_site="strict",
                                                    https_only=True, domain="example.com", path="/"),
        "handlers": handlers_app,
        "concurrency": concurrency_app,
    }
    yield from client_pairs(apps)


def row(app: str, method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    detail = " ".join(f"{k}={v}" for k, v in kwargs.get("cookies", {}).items())
    return pytest.param(app, method, url, gap, kwargs, id=f"{app} {method} {url} {detail}".strip(), marks=marks)


_USER = {"user": "ann", "roles": ["reader"]}
ROWS = [
    row("templates", "GET", "/items/3?q=tea"),
    row("templates", "GET", "/items/3?q=<b>bold</b>"),
    row("templates", "GET", "/items/x"),
    row("templates", "GET", "/created"),
    row("templates", "GET", "/text"),
    row("sessions", "GET", "/login/ann"),
    row("sessions", "GET", "/peek"),
    row("sessions", "GET", "/peek", cookies={"session": _signed(_USER)}),
    row("sessions", "GET", "/peek", cookies={"session": _signed(_USER, "another key")}),
    row("sessions", "GET", "/peek", cookies={"session": "not-a-signed-value"}),
    row("sessions", "GET", "/count", cookies={"session": _signed({"n": 41})}),
    row("sessions", "GET", "/logout", cookies={"session": _signed(_USER)}),
    row("sessions", "GET", "/logout"),
    row("sessions", "GET", "/private"),
    row("sessions", "GET", "/private", cookies={"session": _signed(_USER)}),
    row("sessions", "GET", "/plain", cookies={"session": _signed(_USER)}),
    row("sessions-options", "GET", "/login/bo"),
    row("sessions-options", "GET", "/logout", cookies={"sid": _signed(_USER)}),
    row("handlers", "GET", "/status/404"),
    row("handlers", "GET", "/status/409"),
    row("handlers", "GET", "/status/204"),
    row("handlers", "GET", "/status/304"),
    row("handlers", "POST", "/orders", json={"item": "tea", "quantity": "many"}),
    row("handlers", "POST", "/orders", json={"item": "tea", "quantity": 2}),
    row("handlers", "GET", "/status/abc"),
    row("concurrency", "GET", "/total?n=10"),
    row("concurrency", "GET", "/lines?n=4"),
    row("concurrency", "GET", "/fails"),
]


class _Seen:
    """A response with each session cookie's signed part (timestamp and signature) replaced by its payload's
    JSON, so that two cookies made in different seconds compare by content and attributes."""

    def __init__(self, response: Any) -> None:
        self.status_code = response.status_code
        self.content = response.content
        headers = response.headers
        get = headers.get_list if hasattr(headers, "get_list") else headers.getlist
        self._fields = {k.lower(): list(get(k)) for k in headers}
        self._fields["set-cookie"] = [_readable(c) for c in self._fields.get("set-cookie", [])]
        self.headers = self

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def getlist(self, name: str) -> list[str]:
        return self._fields.get(name, [])


def _readable(cookie: str) -> str:
    name, _, rest = cookie.partition("=")
    value, sep, attributes = rest.partition(";")
    if value.count(".") == 2:
        payload = value.split(".")[0]
        value = "json:" + base64.b64decode(payload).decode()
    return f"{name}={value}{sep}{attributes}"


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_answer(pair: Any, request: pytest.FixtureRequest, app: str, method: str, url: str, gap: str | None,
                     kwargs: dict[str, Any]) -> None:
    got, expected = exchange(pair, app, method, url, kwargs)
    diffs = compare(_Seen(got), _Seen(expected))
    if app.startswith("sessions") and got.headers.get("vary") != expected.headers.get("vary"):  # Vary: Cookie
        diffs.append(f"header vary: slipstream {got.headers.get('vary')!r}, fastapi {expected.headers.get('vary')!r}")
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize(("writer", "reader"), [("slipstream", "fastapi"), ("fastapi", "slipstream")])
def test_a_session_cookie_crosses_frameworks(pair: Any, writer: str, reader: str) -> None:
    ours, theirs = pair("sessions")
    clients = {"slipstream": ours, "fastapi": theirs}
    made = clients[writer].get("/login/cross")
    cookie = made.cookies.get("session")
    assert cookie is not None
    answer = clients[reader].get("/peek", headers={"cookie": f"session={cookie}"})
    assert answer.json() == {"session": {"user": "cross", "roles": ["reader"]}}


def flow_app(fw: Any) -> Any:
    """Routes a default TestClient goes through several of: redirects and cookies."""
    app = sessions_app(fw)

    @app.api_route("/go/{code}", methods=["GET", "POST"])
    def go(code: int, to: str = "/peek") -> Any:
        return fw.responses.RedirectResponse(to, status_code=code)

    @app.get("/set-cookie")
    def set_cookie(response: fw.Response) -> Any:
        response.set_cookie("theme", "dark", path="/")
        return "set"

    @app.get("/cookies")
    def cookies(request: fw.Request) -> Any:
        return dict(request.cookies)

    return app


FLOWS = {
    "redirect 307 kept": [("GET", "/login/ann"), ("GET", "/go/307?to=/count")],
    "redirect 303 to GET": [("POST", "/go/303")],
    "redirect chain": [("GET", "/go/302?to=/go/301%3Fto%3D/peek")],
    "redirect to login then session": [("GET", "/go/307?to=/login/bea"), ("GET", "/peek")],
    "jar sends a cookie": [("GET", "/set-cookie"), ("GET", "/cookies")],
    "jar keeps two cookies": [("GET", "/set-cookie"), ("GET", "/login/cy"), ("GET", "/peek")],
    "logout clears the jar": [("GET", "/login/dan"), ("GET", "/logout"), ("GET", "/cookies")],
}


@pytest.mark.parametrize("flow", list(FLOWS))
def test_default_clients_same_flow(request: pytest.FixtureRequest, flow: str) -> None:
    """Fresh default clients (FastAPI's defaults on both sides) run the same requests; the last answers compared,
    and how many redirects each followed."""
    answers = []
    for fw, client_class in ((slipstream, slipstream.TestClient), (fastapi, FastAPIClient)):
        with client_class(flow_app(fw)) as client:
            for method, url in FLOWS[flow]:
                last = client.request(method, url)
            answers.append((_Seen(last), len(last.history), dict(client.cookies)))
    (got, hops, jar), (expected, their_hops, their_jar) = answers
    diffs = compare(got, expected)
    if hops != their_hops:
        diffs.append(f"redirects followed: slipstream {hops}, fastapi {their_hops}")
    if set(jar) != set(their_jar):
        diffs.append(f"cookie jar: slipstream {sorted(jar)}, fastapi {sorted(their_jar)}")
    record(Outcome(f"testclient {flow}", None, diffs))
    assert not diffs, "\n".join(diffs)
