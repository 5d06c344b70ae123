"""Slipstream Python contender (FastAPI-like API); `--style def|async|native` picks the handler kind.

`native`: routes answered by the engine without Python (static bytes; validate-and-echo for echo/validated).
`async` also has /ws, a WebSocket echo (WebSocket handlers are async def).

Skipped by the harness until the `slipstream` Python package is importable. Host and port come from
BENCH_HOST/BENCH_PORT; one I/O thread, like every other contender; no access log (uvicorn runs with
--no-access-log). TLS when BENCH_TLS_CERT and BENCH_TLS_KEY name the harness's certificate.

Multi-worker rows run `slipstream run slipstream_app:app --workers 2`: the module-level `app` has the routes
of the style named by BENCH_STYLE (default def).
"""
import argparse
import os
from typing import Any

import otel_setup
import runtime_report
from payloads import CONTENT_TYPE, LARGE
from pydantic import BaseModel, Field
from slipstream import App, Request, Response, WebSocket, WebSocketDisconnect


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str]


def add_def_routes(app: App) -> None:
    @app.get("/hello")
    def hello():
        return {"message": "hello"}

    @app.post("/echo")
    def echo(request: Request):
        return request.json_sync()

    @app.post("/items")
    def create_item(item: Item):
        return item

    @app.get("/users/{user_id}/items")
    def user_items(user_id: int, limit: int = 10, offset: int = 0):
        return {"user_id": user_id, "limit": limit, "offset": offset}

    @app.get("/large")
    def large():
        return Response(LARGE, media_type=CONTENT_TYPE)


def add_async_routes(app: App) -> None:
    @app.get("/hello")
    async def hello():
        return {"message": "hello"}

    @app.post("/echo")
    async def echo(request: Request):
        return await request.json()

    @app.post("/items")
    async def create_item(item: Item):
        return item

    @app.get("/users/{user_id}/items")
    async def user_items(user_id: int, limit: int = 10, offset: int = 0):
        return {"user_id": user_id, "limit": limit, "offset": offset}

    @app.get("/large")
    async def large():
        return Response(LARGE, media_type=CONTENT_TYPE)

    @app.websocket("/ws")
    async def ws_echo(websocket: WebSocket):
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(await websocket.receive_text())
        except WebSocketDisconnect:
            pass


def add_native_routes(app: App) -> None:
    app.static_route("/hello", {"message": "hello"})
    app.static_route("/large", LARGE, media_type=CONTENT_TYPE)
    app.echo_route("/echo", Any)
    app.echo_route("/items", Item)


ROUTES = {"def": add_def_routes, "async": add_async_routes, "native": add_native_routes}


def make_app(style: str) -> App:
    otel_setup.install_if_asked()  # BENCH_OTEL=1: global OpenTelemetry providers, so the app traces every request
    app = App(access_log=False, max_connections=int(os.environ.get("BENCH_MAX_CONNECTIONS", "10000")))
    ROUTES[style](app)
    return app


def tls_options() -> dict[str, str]:
    cert, key = os.environ.get("BENCH_TLS_CERT"), os.environ.get("BENCH_TLS_KEY")
    return {"tls_cert_file": cert, "tls_key_file": key} if cert and key else {}


def __getattr__(name: str) -> App:
    """`slipstream_app.app`, built on first use (`slipstream run slipstream_app:app --workers N`)."""
    if name != "app":
        raise AttributeError(name)
    built = make_app(os.environ.get("BENCH_STYLE", "def"))
    runtime_report.write()  # the engine runs its own loops: the interpreter and the extension in use
    globals()["app"] = built
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description="Slipstream bench contender")
    parser.add_argument("--style", choices=tuple(ROUTES), required=True)
    args = parser.parse_args()
    runtime_report.write()  # the engine runs its own loops: the interpreter and the extension in use
    make_app(args.style).run(host=os.environ.get("BENCH_HOST", "127.0.0.1"),
                             port=int(os.environ.get("BENCH_PORT", "8080")), threads=1, **tls_options())


if __name__ == "__main__":
    main()
