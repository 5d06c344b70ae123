"""TestClient.websocket_connect (Starlette's WebSocketTestSession API) and WebSocket routes on APIRouter, with
dependencies, over the real engine; a real `websockets` client checks the router's routes too."""

from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from slipstream import APIRouter, App, Depends, Header, TestClient, WebSocket, WebSocketDisconnect
from slipstream.websockets import WebSocketException


def echo_app(log: list[str] | None = None) -> App:
    app = App()

    @app.websocket("/echo")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                if log is not None:
                    log.append(f"disconnect {message['code']}")
                return
            if message.get("text") == "close":
                await websocket.close(code=4001, reason="asked")
                return
            if message.get("text") is not None:
                await websocket.send_text("t:" + message["text"])
            else:
                await websocket.send_bytes(b"b:" + message["bytes"])

    return app


def test_send_and_receive_text_bytes_and_json() -> None:
    app = echo_app()

    @app.websocket("/json")
    async def as_json(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"got": await websocket.receive_json()})
        await websocket.send_json({"got": await websocket.receive_json(mode="binary")}, mode="binary")

    with TestClient(app) as client:
        with client.websocket_connect("/echo") as ws:
            ws.send_text("héllo")
            assert ws.receive_text() == "t:héllo"
            ws.send_bytes(b"\x00\xff")
            assert ws.receive_bytes() == b"b:\x00\xff"
            ws.send({"type": "websocket.receive", "text": "raw"})
            assert ws.receive() == {"type": "websocket.send", "text": "t:raw"}
            big = "x" * 70000  # a 64-bit length on the way in and out
            ws.send_text(big)
            assert ws.receive_text() == "t:" + big
            mid = b"y" * 300  # a 16-bit length
            ws.send_bytes(mid)
            assert ws.receive_bytes() == b"b:" + mid
        with client.websocket_connect("/json") as ws:
            ws.send_json({"a": [1, "é"]})
            assert ws.receive_json() == {"got": {"a": [1, "é"]}}
            ws.send_json([1, 2], mode="binary")
            assert ws.receive_bytes() == b'{"got":[1,2]}'


def test_server_close_raises_websocket_disconnect_with_code_and_reason() -> None:
    with TestClient(echo_app()) as client, client.websocket_connect("/echo") as ws:
        ws.send_text("close")
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_text()
        assert (info.value.code, info.value.reason) == (4001, "asked")


def test_leaving_the_block_closes_and_waits_for_the_handler() -> None:
    log: list[str] = []
    with TestClient(echo_app(log)) as client:
        with client.websocket_connect("/echo") as ws:
            ws.send_text("a")
            assert ws.receive_text() == "t:a"
        assert log == ["disconnect 1000"]
        with client.websocket_connect("/echo") as ws:
            ws.close(1001)
        assert log == ["disconnect 1000", "disconnect 1001"]


def test_refused_connections_raise_on_enter() -> None:
    app = echo_app()

    @app.websocket("/deny")
    async def deny(websocket: WebSocket) -> None:
        await websocket.close(code=4403, reason="go away")

    @app.websocket("/silent")
    async def silent(websocket: WebSocket) -> None:
        return None

    @app.get("/http")
    def http() -> str:
        return "http"

    with TestClient(app) as client:
        for path, code, reason in [("/deny", 4403, "go away"), ("/silent", 1000, ""), ("/missing", 1000, ""),
                                   ("/http", 1000, "")]:
            with pytest.raises(WebSocketDisconnect) as info, client.websocket_connect(path):
                pass
            assert (path, info.value.code, info.value.reason) == (path, code, reason)


def test_handler_exception_closes_1011_or_is_raised_with_raise_server_exceptions() -> None:
    app = App()

    @app.websocket("/boom")
    async def boom(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.receive_text()
        raise ValueError("boom")

    with TestClient(app, raise_server_exceptions=False) as client, client.websocket_connect("/boom") as ws:
        ws.send_text("go")
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_text()
        assert info.value.code == 1011
    with TestClient(app, raise_server_exceptions=True) as client, pytest.raises(ValueError, match="boom"), \
            client.websocket_connect("/boom") as ws:
        ws.send_text("go")
        ws.receive_text()


def test_headers_cookies_query_and_subprotocols() -> None:
    app = App()

    @app.websocket("/info")
    async def info(websocket: WebSocket) -> None:
        await websocket.accept(subprotocol=websocket.scope["subprotocols"][0])
        await websocket.send_json({"token": websocket.headers.get("x-token"), "cookie": websocket.headers.get("cookie"),
                                   "q": websocket.query_params.getlist("q")})

    with TestClient(app) as client, client.websocket_connect(
            "/info?q=1", subprotocols=["chat"], params={"q": "2"}, headers={"X-Token": "t"},
            cookies={"session": "s"}) as ws:
        assert ws.receive_json() == {"token": "t", "cookie": "session=s", "q": ["2"]}  # params replace the query, as httpx does
        assert ws.accepted_subprotocol == "chat"


def test_router_websocket_with_prefixes_and_dependencies() -> None:
    log: list[str] = []

    def token(x_token: Annotated[str | None, Header()] = None) -> str:
        if x_token != "secret":
            raise WebSocketException(code=1008, reason="bad token")
        return x_token

    def db() -> Iterator[str]:
        log.append("db open")
        yield "db"
        log.append("db closed")

    async def room_name(room: str, upper: bool = False) -> str:
        return room.upper() if upper else room

    router = APIRouter(prefix="/chat", dependencies=[Depends(token)])

    @router.websocket("/{room}")
    async def chat(websocket: WebSocket, name: Annotated[str, Depends(room_name)], conn: str = Depends(db),
                   n: int = 1) -> None:
        await websocket.accept()
        await websocket.send_text(f"{name} {conn} {n}")
        await websocket.close()

    async def plain(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("plain")

    router.add_api_websocket_route("/x/plain", plain)
    app = App()
    app.include_router(router, prefix="/v1")
    secret = {"x-token": "secret"}
    with TestClient(app) as client:
        with client.websocket_connect("/v1/chat/lobby?upper=1&n=3", headers=secret) as ws:
            assert ws.receive_text() == "LOBBY db 3"
        assert log == ["db open", "db closed"]
        with client.websocket_connect("/v1/chat/x/plain", headers=secret) as ws:
            assert ws.receive_text() == "plain"
        with pytest.raises(WebSocketDisconnect) as info, client.websocket_connect("/v1/chat/lobby"):
            pass
        assert (info.value.code, info.value.reason) == (1008, "bad token")
        with pytest.raises(WebSocketDisconnect) as info, client.websocket_connect("/v1/chat/a?n=x", headers=secret):
            pass
        assert info.value.code == 1008
        assert "int_parsing" in info.value.reason and "'query', 'n'" in info.value.reason
        app.dependency_overrides[db] = lambda: "fake"
        with client.websocket_connect("/v1/chat/b", headers=secret) as ws:
            assert ws.receive_text() == "b fake 1"


def test_router_websocket_over_a_real_client() -> None:
    websockets = pytest.importorskip("websockets")
    from websockets.sync.client import connect

    router = APIRouter()

    @router.websocket("/ws/{item_id}")
    async def item(websocket: WebSocket, item_id: int) -> None:
        await websocket.accept()
        await websocket.send_json({"id": item_id, "text": await websocket.receive_text()})

    app = App()
    app.include_router(router, prefix="/api")
    with TestClient(app) as client, connect(f"ws://127.0.0.1:{client.port}/api/ws/4") as ws:
        ws.send("hi")
        assert ws.recv(timeout=10) == '{"id":4,"text":"hi"}'
    assert websockets is not None


def test_receive_after_the_close_and_unknown_message() -> None:
    with TestClient(echo_app()) as client, client.websocket_connect("/echo") as ws:
        ws.send_text("close")
        message: dict[str, Any] = ws.receive()
        assert message == {"type": "websocket.close", "code": 4001, "reason": "asked"}
        with pytest.raises(WebSocketDisconnect):
            ws.receive()
        with pytest.raises(RuntimeError):
            ws.send({"type": "websocket.nope"})
