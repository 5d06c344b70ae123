"""FastAPI vs Slipstream on the advanced pages "WebSockets" and "Testing WebSockets": an HTML page served beside
the socket, an echo loop, path, query, cookie and header parameters of a WebSocket route, a dependency that reads a
cookie or a token and raises `WebSocketException(code=1008)`, `WebSocketDisconnect` caught when a client leaves and
a connection manager that broadcasts to the other clients, JSON messages, and `client.websocket_connect()` in
tests. Each scenario runs through both frameworks' TestClients; the transcripts are compared.
(test_differential_parity.py covers routers, subprotocols, accept headers and refused handshakes.)

Outcomes join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient

from .diff_support import Outcome, new_app, record

PAGE = "<!DOCTYPE html><html><body><h1>Chat</h1><script>new WebSocket('ws://localhost/ws')</script></body></html>"


class Manager:
    def __init__(self) -> None:
        self.active: list[Any] = []

    async def connect(self, websocket: Any) -> None:
        await websocket.accept()
        self.active.append(websocket)

    def disconnect(self, websocket: Any) -> None:
        self.active.remove(websocket)

    async def broadcast(self, message: str) -> None:
        for connection in self.active:
            await connection.send_text(message)


def websockets_app(fw: Any, log: list[str]) -> Any:
    app = new_app(fw)
    WebSocket, Cookie, Query, Depends = fw.WebSocket, fw.Cookie, fw.Query, fw.Depends
    manager = Manager()

    @app.get("/")
    async def get() -> Any:
        return fw.responses.HTMLResponse(PAGE)

    @app.websocket("/ws")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            data = await websocket.receive_text()
            if data == "stop":
                await websocket.close()
                return
            await websocket.send_text(f"Message text was: {data}")

    async def get_cookie_or_token(
        websocket: WebSocket,
        session: Annotated[str | None, Cookie()] = None,
        token: Annotated[str | None, Query()] = None,
    ) -> str:
        if session is None and token is None:
            raise fw.WebSocketException(code=fw.status.WS_1008_POLICY_VIOLATION)
        return session or token or ""

    @app.websocket("/items/{item_id}/ws")
    async def item_socket(
        websocket: WebSocket,
        item_id: str,
        q: int | None = None,
        cookie_or_token: Annotated[str, Depends(get_cookie_or_token)] = "",
    ) -> None:
        await websocket.accept()
        try:
            while True:
                data = await websocket.receive_text()
                await websocket.send_text(f"Session cookie or query token value is: {cookie_or_token}")
                if q is not None:
                    await websocket.send_text(f"Query parameter q is: {q}")
                await websocket.send_json({"item_id": item_id, "data": data})
        except fw.WebSocketDisconnect as exc:
            log.append(f"item {item_id} closed with {exc.code}")

    @app.websocket("/chat/{client_id}")
    async def chat(websocket: WebSocket, client_id: int) -> None:
        await manager.connect(websocket)
        try:
            while True:
                data = await websocket.receive_text()
                await websocket.send_text(f"You wrote: {data}")
                await manager.broadcast(f"Client #{client_id} says: {data}")
        except fw.WebSocketDisconnect:
            manager.disconnect(websocket)
            log.append(f"Client #{client_id} left the chat")
            await manager.broadcast(f"Client #{client_id} left the chat")

    return app


def _failure(exc: Exception) -> tuple[Any, ...]:
    return (type(exc).__name__, getattr(exc, "code", None), getattr(exc, "reason", None))


def _script_page_and_echo(client: Any) -> list[Any]:
    response = client.get("/")
    out: list[Any] = [response.status_code, response.headers["content-type"], response.text]
    with client.websocket_connect("/ws") as ws:
        for text in ("hello", "again"):
            ws.send_text(text)
            out.append(ws.receive_text())
        ws.send_text("stop")
        try:
            ws.receive_text()
        except Exception as exc:  # noqa: BLE001 - the class is compared by name
            out.append(_failure(exc))
    return out


def _script_parameters(client: Any) -> list[Any]:
    out: list[Any] = []
    with client.websocket_connect("/items/foo/ws?token=some-token&q=3") as ws:
        ws.send_text("hi")
        out += [ws.receive_text(), ws.receive_text(), ws.receive_json()]
    with client.websocket_connect("/items/bar/ws", headers={"cookie": "session=fake-session"}) as ws:
        ws.send_text("there")
        out += [ws.receive_text(), ws.receive_json()]
    return out + _refusal(client, "/items/foo/ws")


def _refusal(client: Any, path: str) -> list[Any]:
    try:
        with client.websocket_connect(path) as ws:
            ws.send_text("refused?")
            return [ws.receive_text()]
    except Exception as exc:  # noqa: BLE001
        return [(path, *_failure(exc))]


def _script_invalid_parameter(client: Any) -> list[Any]:
    return _refusal(client, "/items/foo/ws?token=t&q=x")


def _script_broadcast(client: Any) -> list[Any]:
    out: list[Any] = []
    with client.websocket_connect("/chat/1") as first:
        with client.websocket_connect("/chat/2") as second:
            first.send_text("hello")
            out += [first.receive_text(), first.receive_text(), second.receive_text()]
            second.send_text("hi one")
            out += [second.receive_text(), first.receive_text(), second.receive_text()]
        out.append(first.receive_text())
    return out


REASON_AS_TEXT = (
    "deliberate, python/_ws_endpoint: the 1008 close for invalid parameters carries the errors as text (a close "
    "reason is a string on the wire); Starlette's TestClient hands FastAPI's reason over as the Python list itself"
)
SCRIPTS = [
    _script_page_and_echo,
    _script_parameters,
    pytest.param(_script_invalid_parameter, marks=pytest.mark.xfail(strict=True, reason=REASON_AS_TEXT)),
    _script_broadcast,
]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__)
def test_same_transcript(script: Callable[[Any], list[Any]]) -> None:
    transcripts, logs = {}, {}
    for fw in (slipstream, fastapi):
        log: list[str] = []
        app = websockets_app(fw, log)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            transcripts[fw.__name__] = script(client)
        logs[fw.__name__] = log
    diffs = []
    if transcripts["slipstream"] != transcripts["fastapi"]:
        diffs.append(f"transcript: slipstream {transcripts['slipstream']!r}, fastapi {transcripts['fastapi']!r}")
    if logs["slipstream"] != logs["fastapi"]:
        diffs.append(f"handler log: slipstream {logs['slipstream']!r}, fastapi {logs['fastapi']!r}")
    gap = REASON_AS_TEXT if script is _script_invalid_parameter else None
    record(Outcome(f"websocket page {script.__name__}", gap, diffs))
    assert not diffs, "\n".join(diffs)
