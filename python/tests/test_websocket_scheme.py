"""The scheme a WebSocket handler sees (`websocket.url`, the scope's `scheme`): "wss" on TLS, behind a trusted proxy
that forwards https, and for a TestClient's wss:// URL, as uvicorn and Starlette give it; "ws" otherwise."""

import json
import ssl
from pathlib import Path
from typing import Any

import pytest
from slipstream import App, TestClient, WebSocket
from websockets.sync.client import connect


def scheme_app() -> App:
    app = App()

    @app.websocket("/ws")
    async def where(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json(
            {
                "url": str(websocket.url),
                "scheme": websocket.scope["scheme"],
                "client": websocket.client.host if websocket.client else None,
                "marked": "x-slipstream-testclient-scheme" in websocket.headers,
            }
        )
        await websocket.close()

    return app


def _seen(client: TestClient, url: str, **kwargs: Any) -> dict[str, Any]:
    with client.websocket_connect(url, **kwargs) as ws:
        return ws.receive_json()


def test_testclient_urls() -> None:
    """As Starlette's TestClient: a relative URL is ws://testserver whatever the base_url; wss:// is wss."""
    with TestClient(scheme_app(), base_url="https://testserver") as client:
        assert _seen(client, "/ws") == {
            "url": "ws://testserver/ws",
            "scheme": "ws",
            "client": "127.0.0.1",
            "marked": False,
        }
        assert _seen(client, "wss://testserver/ws") == {
            "url": "wss://testserver/ws",
            "scheme": "wss",
            "client": "127.0.0.1",
            "marked": False,
        }
        assert _seen(client, "ws://example.com/ws")["url"] == "ws://example.com/ws"
        with pytest.raises(RuntimeError, match="Expected WebSocket upgrade"):
            client.websocket_connect("https://testserver/ws")


def test_forwarded_proto_from_a_trusted_proxy() -> None:
    with TestClient(scheme_app(), proxy_headers=True) as client:
        seen = _seen(client, "/ws", headers={"x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.9"})
        assert seen == {"url": "wss://testserver/ws", "scheme": "wss", "client": "203.0.113.9", "marked": False}
        assert _seen(client, "/ws", headers={"x-forwarded-proto": "http"})["scheme"] == "ws"
    with TestClient(scheme_app(), proxy_headers=True, forwarded_allow_ips="10.0.0.1") as client:
        # 127.0.0.1 is not a trusted proxy there: its X-Forwarded-Proto is an ordinary header.
        assert _seen(client, "/ws", headers={"x-forwarded-proto": "https"})["scheme"] == "ws"


def test_tls_server_gives_wss(self_signed_cert: tuple[Path, Path]) -> None:
    cert, key = self_signed_cert
    app = scheme_app()
    native = app.build(tls_cert_file=str(cert), tls_key_file=str(key), threads=1, access_log=False)
    native.listen("127.0.0.1", 0)
    native.start()
    try:
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        with connect(f"wss://127.0.0.1:{native.port}/ws", ssl=context, open_timeout=30) as ws:
            seen = json.loads(ws.recv(timeout=30))
        assert seen == {
            "url": f"wss://127.0.0.1:{native.port}/ws",
            "scheme": "wss",
            "client": "127.0.0.1",
            "marked": False,
        }
    finally:
        native.stop()
        native.wait()
