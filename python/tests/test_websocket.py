"""@app.websocket with Starlette's WebSocket API, driven by a real client (`websockets`) over a real socket."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import pytest
from slipstream import App, TestClient, WebSocket, WebSocketDisconnect

websockets = pytest.importorskip("websockets")
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect


def url(client: TestClient, path: str) -> str:
    return f"ws://127.0.0.1:{client.port}{path}"


def closed_code(ws: Any) -> int | None:
    with pytest.raises(ConnectionClosed):
        ws.recv(timeout=10)
    return ws.protocol.close_rcvd.code if ws.protocol.close_rcvd else None


def test_path_and_query_parameters_and_text_echo() -> None:
    app = App()

    @app.websocket("/ws/{room}")
    async def chat(websocket: WebSocket, room: str, name: str = "anon") -> None:
        await websocket.accept()
        async for text in websocket.iter_text():
            await websocket.send_text(f"{room}/{name}: {text}")

    with TestClient(app) as client, connect(url(client, "/ws/lobby?name=ann")) as ws:
        ws.send("hi")
        assert ws.recv(timeout=10) == "lobby/ann: hi"
        ws.send("κόσμε")
        assert ws.recv(timeout=10) == "lobby/ann: κόσμε"


def test_typed_path_parameter_json_and_bytes() -> None:
    app = App()

    @app.websocket("/items/{item_id:int}")
    async def items(websocket: WebSocket, item_id: int) -> None:
        await websocket.accept()
        data = await websocket.receive_json()
        await websocket.send_json({"id": item_id, "double": item_id * 2, "got": data})
        raw = await websocket.receive_bytes()
        await websocket.send_bytes(raw[::-1])
        await websocket.close()

    with TestClient(app) as client, connect(url(client, "/items/21")) as ws:
        ws.send('{"a": [1, 2]}')
        assert ws.recv(timeout=10) == '{"id":21,"double":42,"got":{"a":[1,2]}}'
        ws.send(b"\x01\x02\x03")
        assert ws.recv(timeout=10) == b"\x03\x02\x01"
        assert closed_code(ws) == 1000


def test_client_disconnect_reaches_the_handler() -> None:
    app = App()
    seen: dict[str, Any] = {}
    done = threading.Event()

    @app.websocket("/ws")
    async def handler(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect as exc:
            seen["code"] = exc.code
            seen["reason"] = exc.reason
            done.set()

    with TestClient(app) as client:
        with connect(url(client, "/ws")) as ws:
            ws.send("x")
            ws.close(4003, "leaving")
        assert done.wait(10)
    assert seen == {"code": 4003, "reason": "leaving"}


@pytest.mark.parametrize("code,reason", [(1000, ""), (4000, "custom close"), (1008, "policy")])
def test_server_close_code_and_reason(code: int, reason: str) -> None:
    app = App()

    @app.websocket("/ws")
    async def handler(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.close(code=code, reason=reason)

    with TestClient(app) as client, connect(url(client, "/ws")) as ws:
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.protocol.close_rcvd.code == code
        assert ws.protocol.close_rcvd.reason == reason


def test_handler_error_closes_with_1011() -> None:
    app = App()

    @app.websocket("/ws")
    async def handler(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.receive_text()
        raise ValueError("boom")

    with TestClient(app) as client, connect(url(client, "/ws")) as ws:
        ws.send("trigger")
        assert closed_code(ws) == 1011


def test_receive_before_accept_is_an_error() -> None:
    app = App()

    @app.websocket("/ws")
    async def handler(websocket: WebSocket) -> None:
        await websocket.receive_text()

    # The handler fails before accept(): the handshake is refused with HTTP 403 (as under Starlette).
    with TestClient(app) as client, pytest.raises(InvalidStatus) as info, connect(url(client, "/ws")):
        pass
    assert info.value.response.status_code == 403


def test_returning_closes_normally_and_http_routes_still_work() -> None:
    app = App()

    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"message": "hello"}

    @app.websocket("/ws")
    async def handler(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("bye")

    with TestClient(app) as client:
        with connect(url(client, "/ws")) as ws:
            assert ws.recv(timeout=10) == "bye"
            assert closed_code(ws) == 1000
        assert client.get("/hello").json() == {"message": "hello"}
        assert client.get("/ws").status_code == 426


def test_many_clients_and_ordered_messages() -> None:
    app = App()

    @app.websocket("/echo")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        async for message in websocket.iter_bytes():
            await asyncio.sleep(0)
            await websocket.send_bytes(message)

    with TestClient(app) as client, contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(url(client, "/echo"))) for _ in range(5)]
        for i, ws in enumerate(sockets):
            for j in range(50):
                ws.send(bytes([i, j]))
        for i, ws in enumerate(sockets):
            assert [ws.recv(timeout=10) for _ in range(50)] == [bytes([i, j]) for j in range(50)]


def test_large_messages_with_flow_control() -> None:
    """The handler sends 40 MiB to a client: sends wait while the connection's send queue is full."""
    app = App()
    chunk = b"z" * (1 << 20)

    @app.websocket("/flood")
    async def flood(websocket: WebSocket) -> None:
        await websocket.accept()
        for _ in range(40):
            await websocket.send_bytes(chunk)
        await websocket.close()

    with TestClient(app) as client, connect(url(client, "/flood"), max_size=None) as ws:
        total = 0
        for _ in range(40):
            total += len(ws.recv(timeout=30))
        assert total == 40 * len(chunk)
        assert closed_code(ws) == 1000
