"""FastAPI vs Slipstream on routing misses (redirect_slashes, HEAD on GET routes), forms read by the handler or a
dependency, `yield` dependencies around streamed bodies, and WebSocket sessions driven through each TestClient.

HTTP rows are recorded for the session's match rate like test_differential.py's; each WebSocket script runs the
same calls on both TestClients and compares the transcripts (messages, close codes, handler side effects).
"""

import importlib
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from test_parity_routing import with_middleware

from .diff_support import Outcome, build_request, client_pairs, compare, record


def routing_app(fw: Any, *, redirect_slashes: bool = True, middleware: bool = False) -> Any:
    app = fw.FastAPI(redirect_slashes=redirect_slashes) if fw is fastapi else \
        fw.App(redirect_slashes=redirect_slashes)

    @app.get("/items")
    def items() -> list[int]:
        return [1]

    @app.post("/items")
    def add_item() -> dict[str, bool]:
        return {"added": True}

    @app.get("/folder/")
    def folder() -> str:
        return "folder"

    @app.get("/users/{user_id}")
    def user(user_id: int) -> dict[str, int]:
        return {"id": user_id}

    @app.get("/users/me/settings/")
    def settings() -> str:
        return "settings"

    @app.api_route("/both", methods=["GET", "HEAD"])
    def both() -> str:
        return "both"

    @app.get("/")
    def root() -> str:
        return "root"

    return with_middleware(app) if middleware else app


def forms_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()

    @app.post("/raw")
    async def raw(request: fw.Request) -> dict[str, Any]:
        form = await request.form()
        return {"items": [[k, v if isinstance(v, str) else v.filename] for k, v in form.multi_items()]}

    @app.post("/raw-body")
    async def raw_body(request: fw.Request) -> dict[str, Any]:
        body = await request.body()
        form = await request.form()
        return {"size": len(body), "keys": sorted(form.keys())}

    def credentials(username: Annotated[str, fw.Form()], password: Annotated[str, fw.Form(min_length=3)]) -> str:
        return f"{username}:{len(password)}"

    @app.post("/dep-form")
    def dep_form(who: Annotated[str, fw.Depends(credentials)]) -> dict[str, str]:
        return {"who": who}

    @app.post("/dep-form-and-field")
    def dep_form_and_field(who: Annotated[str, fw.Depends(credentials)],
                           note: Annotated[str, fw.Form()] = "none") -> dict[str, str]:
        return {"who": who, "note": note}

    return app


_FACTORIES: dict[str, Callable[[Any], Any]] = {
    "routing": routing_app,
    "routing-noslash": lambda fw: routing_app(fw, redirect_slashes=False),
    "routing-mw": lambda fw: routing_app(fw, middleware=True),
    "forms": forms_app,
}


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs(_FACTORIES)


# A deliberate difference (docs/migrate-from-fastapi.md, "What differs, and why"): kept as a strict xfail.
GAP_MULTIPART_TRUNCATED = ("deliberate, http/multipart: a multipart body that ends before its closing boundary is a "
                           "400 (the parser is strict: a cut upload is an error, not an empty form); python-multipart "
                           "(FastAPI) ignores the unfinished part and reads an empty form")


def row(app: str, method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    """One request; `gap` names a known difference (a strict xfail, as in test_differential.py)."""
    detail = "".join(f" {k}={str(v)[:50]}" for k, v in kwargs.items())
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(app, method.upper(), url, gap, kwargs, id=f"{app} {method.upper()} {url}{detail}",
                        marks=marks)


ROUTING = [
    row(app, method, url)
    for app in ("routing", "routing-mw")
    for method, url in [
        ("get", "/items"), ("get", "/items/"), ("post", "/items/"), ("get", "/items/?a=1&b=x%20y"),
        ("delete", "/items/"), ("head", "/items"), ("head", "/items/"), ("get", "/folder"), ("get", "/folder/"),
        ("put", "/folder"), ("head", "/folder/"), ("get", "/users/5/"), ("get", "/users/abc/"), ("head", "/users/5"),
        ("get", "/users/me/settings"), ("get", "/users/me/settings/"), ("get", "/nothing/"), ("get", "/nothing"),
        ("head", "/both"), ("get", "/both/"), ("get", "/"), ("head", "/"), ("delete", "/items"),
    ]
] + [
    row("routing", "get", "/items/", headers={"host": "example.com:8080"}),
    row("routing-noslash", "get", "/items/"),
    row("routing-noslash", "get", "/folder"),
    row("routing-noslash", "head", "/items"),
]

FORMS = [
    row("forms", "post", "/raw", form={"a": "1", "b": "two"}),
    row("forms", "post", "/raw", form={"a": "1"}, files={"f": ("x.txt", b"hi", "text/plain")}),
    row("forms", "post", "/raw", json={"a": 1}),
    row("forms", "post", "/raw", GAP_MULTIPART_TRUNCATED, content=b"--x\r\nbroken",
        headers={"content-type": "multipart/form-data; boundary=x"}),
    row("forms", "post", "/raw", content=b"a=1&b", headers={"content-type": "application/x-www-form-urlencoded"}),
    row("forms", "post", "/raw-body", form={"k": "v", "z": "w"}),
    row("forms", "post", "/dep-form", form={"username": "ann", "password": "secret"}),
    row("forms", "post", "/dep-form", form={"username": "ann", "password": "s"}),
    row("forms", "post", "/dep-form", form={"password": "secret"}),
    row("forms", "post", "/dep-form-and-field", form={"username": "ann", "password": "secret", "note": "n"}),
    row("forms", "post", "/dep-form-and-field", form={"username": "ann", "password": "secret"}),
]


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROUTING + FORMS)
def test_same_response(pair: Any, request: pytest.FixtureRequest, app: str, method: str, url: str, gap: str | None,
                       kwargs: dict[str, Any]) -> None:
    ours, theirs = pair(app)
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    got = ours.request(method, url, content=body, headers=headers)
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)


# ---- `yield` dependencies around a streamed body: the exit code runs after the last chunk was sent ----

def streaming_app(fw: Any, log: list[str]) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()

    def resource() -> Iterator[str]:
        log.append("open")
        yield "r"
        log.append("close")

    @app.get("/stream")
    def stream(r: Annotated[str, fw.Depends(resource)]) -> Any:
        def body() -> Iterator[bytes]:
            for i in range(3):
                log.append(f"chunk{i}")
                yield f"{r}{i};".encode()

        return importlib.import_module(f"{fw.__name__}.responses").StreamingResponse(body(), media_type="text/plain")

    return app


def test_yield_dependency_exits_after_streamed_body() -> None:
    logs: dict[str, list[str]] = {}
    bodies = {}
    for fw in (slipstream, fastapi):
        log: list[str] = []
        app = streaming_app(fw, log)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            bodies[fw.__name__] = client.get("/stream").content
        logs[fw.__name__] = log
    assert bodies["slipstream"] == bodies["fastapi"] == b"r0;r1;r2;"
    assert logs["slipstream"] == logs["fastapi"] == ["open", "chunk0", "chunk1", "chunk2", "close"]


# ---- WebSocket sessions: the same script through both TestClients ----

def websocket_app(fw: Any, log: list[str]) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    router = fw.APIRouter(prefix="/chat")

    def room_name(room: str, upper: bool = False) -> str:
        return room.upper() if upper else room

    def session() -> Iterator[str]:
        log.append("session open")
        yield "s1"
        log.append("session closed")

    @router.websocket("/{room}")
    async def chat(websocket: fw.WebSocket, name: Annotated[str, fw.Depends(room_name)],
                   sid: Annotated[str, fw.Depends(session)], who: str = "anon") -> None:
        await websocket.accept()
        await websocket.send_text(f"{name}/{who}/{sid}")
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    log.append(f"disconnect {message['code']}")
                    return
                if message.get("text") == "bye":
                    await websocket.close(code=4000, reason="bye")
                    return
                if message.get("text") is not None:
                    await websocket.send_text(message["text"][::-1])
                else:
                    await websocket.send_bytes(message["bytes"] + b"!")
        finally:
            log.append("handler done")

    app.include_router(router, prefix="/v1")

    @app.websocket("/json")
    async def echo_json(websocket: fw.WebSocket) -> None:
        await websocket.accept()
        data = await websocket.receive_json()
        await websocket.send_json({"got": data})
        data = await websocket.receive_json(mode="binary")
        await websocket.send_json({"got": data}, mode="binary")

    @app.websocket("/deny")
    async def deny(websocket: fw.WebSocket) -> None:
        await websocket.close(code=4403, reason="no")

    @app.websocket("/sub")
    async def sub(websocket: fw.WebSocket) -> None:
        offered = websocket.scope["subprotocols"]
        if "refuse" in offered:
            await websocket.close(code=4401, reason="refused")
            return
        chosen = offered[-1] if offered else None
        await websocket.accept(subprotocol=chosen, headers=[(b"x-chosen", (chosen or "-").encode())])
        scope = websocket.scope
        await websocket.send_json({"type": scope["type"], "path": scope["path"],
                                   "query_string": scope["query_string"].decode(), "subprotocols": offered,
                                   "x-token": dict(scope["headers"]).get(b"x-token", b"").decode()})

    @app.websocket("/typed/{n}")
    async def typed(websocket: fw.WebSocket, n: int, q: int = 0) -> None:
        await websocket.accept()
        await websocket.send_json({"n": n, "q": q})
        await websocket.close()

    return app


def _script_chat(client: Any) -> list[Any]:
    out: list[Any] = []
    with client.websocket_connect("/v1/chat/lobby?upper=true&who=ann") as ws:
        out.append(ws.receive_text())
        ws.send_text("abc")
        out.append(ws.receive_text())
        ws.send_bytes(b"\x00\x01")
        out.append(ws.receive_bytes())
        ws.send_text("bye")
        try:
            ws.receive_text()
        except Exception as exc:  # noqa: BLE001 - the class is compared by name
            out.append((type(exc).__name__, exc.code, exc.reason))
    with client.websocket_connect("/v1/chat/hall") as ws:
        out.append(ws.receive_text())
        ws.close(1001)
    return out


def _script_json(client: Any) -> list[Any]:
    out: list[Any] = []
    with client.websocket_connect("/json") as ws:
        ws.send_json({"a": [1, "é"]})
        out.append(ws.receive_text())
        ws.send_json([1, 2], mode="binary")
        out.append(ws.receive_bytes())
    with client.websocket_connect("/typed/7?q=3") as ws:
        out.append(ws.receive_json())
        try:
            ws.receive_text()
        except Exception as exc:  # noqa: BLE001
            out.append((type(exc).__name__, exc.code))
    return out


def _script_refused(client: Any) -> list[Any]:
    out: list[Any] = []
    for path in ("/deny", "/nowhere", "/typed/x", "/typed/1?q=z"):
        try:
            with client.websocket_connect(path):
                out.append("entered")
        except Exception as exc:  # noqa: BLE001
            out.append((path, type(exc).__name__, exc.code))
    return out


def _script_subprotocols(client: Any) -> list[Any]:
    out: list[Any] = []
    for offered in (["a", "b"], ["solo"], ["refuse"]):
        try:
            with client.websocket_connect("/sub?k=1", subprotocols=offered, headers={"X-Token": "t"}) as ws:
                chosen = [v for k, v in ws.extra_headers if k == b"x-chosen"]
                out.append((ws.accepted_subprotocol, chosen, ws.receive_json()))
        except Exception as exc:  # noqa: BLE001
            out.append((type(exc).__name__, exc.code, exc.reason))
    return out


@pytest.mark.parametrize("script", [_script_chat, _script_json, _script_refused, _script_subprotocols],
                         ids=lambda s: s.__name__)
def test_same_websocket_transcript(request: pytest.FixtureRequest, script: Callable[[Any], list[Any]]) -> None:
    transcripts, logs = {}, {}
    for fw in (slipstream, fastapi):
        log: list[str] = []
        app = websocket_app(fw, log)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            transcripts[fw.__name__] = script(client)
        logs[fw.__name__] = log
    diffs = []
    if transcripts["slipstream"] != transcripts["fastapi"]:
        diffs.append(f"transcript: slipstream {transcripts['slipstream']!r}, fastapi {transcripts['fastapi']!r}")
    if logs["slipstream"] != logs["fastapi"]:
        diffs.append(f"handler log: slipstream {logs['slipstream']!r}, fastapi {logs['fastapi']!r}")
    record(Outcome(f"websocket {script.__name__}", None, diffs))
    assert not diffs, "\n".join(diffs)
