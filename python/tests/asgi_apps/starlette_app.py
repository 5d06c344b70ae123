"""A Starlette app for the ASGI differential tests: served unchanged by uvicorn and by `slipstream asgi`."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

HERE = pathlib.Path(__file__).parent
DONE: dict[str, asyncio.Event] = {}


@contextlib.asynccontextmanager
async def lifespan(app):
    yield {"db": "connected"}


class Timing(BaseHTTPMiddleware):
    async def dispatch(self, request, call_next):
        response = await call_next(request)
        response.headers["x-dispatch"] = "1"
        return response


class PureHeader:
    """A pure ASGI middleware that adds a header to every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-pure", b"yes")]
            await send(message)

        await self.app(scope, receive, send_wrapper)


async def homepage(request: Request):
    return HTMLResponse("<h1>home</h1>")


async def user(request: Request):
    user_id = request.path_params["user_id"]
    return JSONResponse({"user_id": user_id, "q": request.query_params.getlist("q")})


async def form(request: Request):
    data = await request.form()
    return JSONResponse({k: v for k, v in data.items()})


async def echo_stream(request: Request):
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
    return PlainTextResponse(str(total))


async def state(request: Request):
    return JSONResponse({"db": request.state.db})


async def stream(request: Request):
    async def gen():
        for i in range(4):
            yield f"data: {i}\n\n"

    return StreamingResponse(gen(), media_type="text/event-stream")


async def file(request: Request):
    return FileResponse(HERE / "static" / "hello.txt", filename="greeting.txt")


async def background(request: Request):
    key = request.query_params["key"]
    DONE[key] = asyncio.Event()
    return JSONResponse({"queued": key}, background=BackgroundTask(lambda: DONE[key].set()))


async def background_result(request: Request):
    await asyncio.wait_for(DONE[request.query_params["key"]].wait(), 5)
    return JSONResponse({"done": True})


async def missing(request: Request):
    raise HTTPException(status_code=404, detail="nothing here")


async def boom(request: Request):
    raise RuntimeError("secret")


async def not_found(request: Request, exc: HTTPException):
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def no_content(request: Request):
    return Response(status_code=204)


async def ws_echo(websocket: WebSocket):
    await websocket.accept()
    try:
        async for message in websocket.iter_text():
            await websocket.send_text(message.upper())
    except WebSocketDisconnect:
        pass


async def ws_bytes(websocket: WebSocket):
    await websocket.accept()
    data = await websocket.receive_bytes()
    await websocket.send_bytes(data[::-1])
    await websocket.close(code=4444, reason="reversed")


async def sub_hello(request: Request):
    return PlainTextResponse(f"sub {request.scope['root_path']} {request.url.path}")


app = Starlette(
    routes=[
        Route("/", homepage),
        Route("/users/{user_id:int}", user),
        Route("/form", form, methods=["POST"]),
        Route("/upload-size", echo_stream, methods=["POST"]),
        Route("/state", state),
        Route("/stream", stream),
        Route("/file", file),
        Route("/background", background),
        Route("/background-result", background_result),
        Route("/missing", missing),
        Route("/boom", boom),
        Route("/empty", no_content),
        WebSocketRoute("/ws", ws_echo),
        WebSocketRoute("/ws/bytes", ws_bytes),
        Mount("/sub", routes=[Route("/hello", sub_hello)]),
    ],
    middleware=[Middleware(PureHeader), Middleware(Timing)],
    exception_handlers={404: not_found},
    lifespan=lifespan,
)
