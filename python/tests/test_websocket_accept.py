"""The handshake waits for the handler: accept(subprotocol=..., headers=...), close before accept -> HTTP 403,
websocket.scope; over TestClient.websocket_connect and a real `websockets` client."""

from __future__ import annotations

from typing import Any

import pytest
from slipstream import App, TestClient, WebSocket, WebSocketDisconnect

websockets = pytest.importorskip("websockets")
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect


def url(client: TestClient, path: str) -> str:
    return f"ws://127.0.0.1:{client.port}{path}"


def negotiating_app() -> App:
    app = App()

    @app.websocket("/chat")
    async def chat(websocket: WebSocket) -> None:
        offered = websocket.scope["subprotocols"]
        chosen = "chat.v2" if "chat.v2" in offered else None
        await websocket.accept(subprotocol=chosen, headers=[(b"x-room", b"blue"), ("X-Offered", ",".join(offered))])
        async for text in websocket.iter_text():
            await websocket.send_text(f"{websocket.subprotocol}:{text}")

    @app.websocket("/deny")
    async def deny(websocket: WebSocket) -> None:
        await websocket.close(code=1008, reason="no token")

    @app.websocket("/asgi")
    async def asgi(websocket: WebSocket) -> None:
        await websocket.send({"type": "websocket.accept", "subprotocol": "b", "headers": [(b"x-asgi", b"yes")]})
        await websocket.send_text("hello")

    @app.websocket("/unoffered")
    async def unoffered(websocket: WebSocket) -> None:
        await websocket.accept(subprotocol="never-offered")

    @app.websocket("/scope/{room}")
    async def scope(websocket: WebSocket, room: str) -> None:
        s = websocket.scope
        await websocket.accept()
        await websocket.send_json({
            "type": s["type"], "path": s["path"], "query_string": s["query_string"].decode(),
            "subprotocols": s["subprotocols"], "path_params": s["path_params"],
            "x-token": dict(s["headers"]).get(b"x-token", b"").decode(), "client_port": s["client"][1] > 0,
            "url": str(websocket.url), "room": room,
        })

    return app


def test_real_client_gets_the_chosen_subprotocol_and_headers() -> None:
    with TestClient(negotiating_app()) as client:
        with connect(url(client, "/chat"), subprotocols=["chat.v1", "chat.v2"]) as ws:
            assert ws.subprotocol == "chat.v2"
            assert ws.response.headers["x-room"] == "blue"
            assert ws.response.headers["x-offered"] == "chat.v1,chat.v2"
            ws.send("hi")
            assert ws.recv(timeout=10) == "chat.v2:hi"
        with connect(url(client, "/chat")) as ws:  # no offer: no subprotocol
            assert ws.subprotocol is None
            ws.send("hi")
            assert ws.recv(timeout=10) == "None:hi"


@pytest.mark.parametrize("path", ["/deny", "/unoffered"])
def test_real_client_refused_before_accept_gets_403(path: str) -> None:
    with TestClient(negotiating_app()) as client:
        with pytest.raises(InvalidStatus) as info, connect(url(client, path), subprotocols=["a"]):
            pass
        assert info.value.response.status_code == 403
        # The connection still serves HTTP routes afterwards.
        assert client.get("/missing").status_code == 404


def test_test_client_subprotocol_headers_and_refusal_code() -> None:
    with TestClient(negotiating_app()) as client:
        with client.websocket_connect("/chat", subprotocols=["chat.v2"]) as ws:
            assert ws.accepted_subprotocol == "chat.v2"
            assert (b"x-room", b"blue") in ws.extra_headers
            ws.send_text("x")
            assert ws.receive_text() == "chat.v2:x"
        with client.websocket_connect("/asgi", subprotocols=["a", "b"]) as ws:
            assert ws.accepted_subprotocol == "b"
            assert (b"x-asgi", b"yes") in ws.extra_headers
            assert ws.receive_text() == "hello"
        with pytest.raises(WebSocketDisconnect) as info, client.websocket_connect("/deny"):
            pass
        assert (info.value.code, info.value.reason) == (1008, "no token")


def test_accepting_an_unoffered_subprotocol_raises_in_the_handler() -> None:
    with TestClient(negotiating_app(), raise_server_exceptions=True) as client, \
            pytest.raises(RuntimeError, match="not offered"), client.websocket_connect("/unoffered", ["x"]):
        pass


def test_scope() -> None:
    with TestClient(negotiating_app()) as client, client.websocket_connect(
            "/scope/blue?a=1", subprotocols=["p1", "p2"], headers={"X-Token": "t"}) as ws:
        got: dict[str, Any] = ws.receive_json()
    assert got == {"type": "websocket", "path": "/scope/blue", "query_string": "a=1", "subprotocols": ["p1", "p2"],
                   "path_params": {"room": "blue"}, "x-token": "t", "client_port": True,
                   "url": f"ws://{client._host_header}/scope/blue?a=1", "room": "blue"}


def test_accept_twice_and_invalid_header_are_errors() -> None:
    app = App()
    seen: list[str] = []

    @app.websocket("/twice")
    async def twice(websocket: WebSocket) -> None:
        with pytest.raises(RuntimeError, match="invalid handshake header"):
            await websocket.accept(headers=[("Sec-WebSocket-Accept", "forged")])
        await websocket.accept()
        try:
            await websocket.accept()
        except RuntimeError as exc:
            seen.append(str(exc))
        await websocket.send_text("ok")

    with TestClient(app) as client, client.websocket_connect("/twice") as ws:
        assert ws.receive_text() == "ok"
    assert seen == ['Cannot call "accept" twice.']
