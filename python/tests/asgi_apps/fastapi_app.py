"""A FastAPI app for the ASGI differential tests (python/tests/test_asgi_differential.py): served unchanged by
uvicorn and by `slipstream asgi`, which must answer the same requests with the same bytes."""

from __future__ import annotations

import asyncio
import pathlib
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import (
    APIRouter,
    BackgroundTasks,
    FastAPI,
    Header,
    HTTPException,
    Query,
    Request,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, StreamingResponse
from pydantic import BaseModel, Field

HERE = pathlib.Path(__file__).parent
DONE: dict[str, asyncio.Event] = {}
RESULTS: dict[str, str] = {}


@asynccontextmanager
async def lifespan(app: FastAPI):
    yield {"greeting": "hello from the lifespan", "started": 1}


app = FastAPI(lifespan=lifespan)


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str] = []


class Teapot(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


@app.exception_handler(Teapot)
async def teapot_handler(request: Request, exc: Teapot) -> JSONResponse:
    return JSONResponse({"teapot": exc.name}, status_code=418, headers={"x-teapot": "yes"})


@app.middleware("http")
async def add_header(request: Request, call_next):
    response = await call_next(request)
    response.headers["x-middleware"] = request.url.path
    return response


@app.get("/")
async def root():
    return {"root": True}


@app.get("/hello")
async def hello():
    return {"message": "hello"}


@app.get("/sync")
def sync_handler(n: int = 1):
    return {"n": n, "sync": True}


@app.get("/users/{user_id}/items")
async def user_items(user_id: int, limit: Annotated[int, Query(gt=0, le=100)] = 10, q: str | None = None):
    return {"user_id": user_id, "limit": limit, "q": q}


@app.get("/files/{file_path:path}")
async def file_path(file_path: str):
    return {"file_path": file_path}


@app.post("/items", status_code=201)
async def create_item(item: Item):
    return item


@app.put("/items/{item_id}")
async def replace_item(item_id: int, item: Item, x_token: Annotated[str | None, Header()] = None):
    return {"item_id": item_id, "item": item, "x_token": x_token}


@app.delete("/items/{item_id}", status_code=204)
async def delete_item(item_id: int):
    return None


@app.post("/echo")
async def echo(request: Request):
    return JSONResponse(await request.json())


@app.post("/raw")
async def raw(request: Request):
    body = await request.body()
    return PlainTextResponse(f"{len(body)}:{body[:32].decode('latin-1')}")


@app.get("/headers")
async def headers(request: Request):
    return {"x-custom": request.headers.get("x-custom"), "cookie": request.cookies.get("session")}


@app.get("/cookie")
async def cookie():
    response = JSONResponse({"set": True})
    response.set_cookie("session", "abc", httponly=True)
    return response


@app.get("/redirect")
async def redirect():
    return RedirectResponse("/hello")


@app.get("/http-error")
async def http_error():
    raise HTTPException(status_code=409, detail="conflict here", headers={"x-error": "1"})


@app.get("/teapot")
async def teapot():
    raise Teapot("earl grey")


@app.get("/crash")
async def crash():
    raise ValueError("internal details that must not leak")


@app.get("/stream")
async def stream(n: int = 5):
    async def numbers():
        for i in range(n):
            yield f"chunk {i}\n"
            await asyncio.sleep(0)

    return StreamingResponse(numbers(), media_type="text/plain")


@app.get("/stream-sync")
def stream_sync():
    return StreamingResponse(iter([b"a", b"b", b"c"]), media_type="application/octet-stream")


@app.get("/file")
async def file():
    return FileResponse(HERE / "static" / "hello.txt")


@app.get("/large")
async def large():
    return PlainTextResponse("x" * 300_000)


@app.get("/state")
async def state(request: Request):
    return {"greeting": request.state.greeting, "started": request.state.started}


@app.get("/background")
async def background(tasks: BackgroundTasks, key: str):
    DONE[key] = asyncio.Event()

    async def work() -> None:
        RESULTS[key] = f"done {key}"
        DONE[key].set()

    tasks.add_task(work)
    return {"queued": key}


@app.get("/background-result")
async def background_result(key: str):
    await asyncio.wait_for(DONE[key].wait(), 5)
    return {"result": RESULTS[key]}


@app.websocket("/ws/echo")
async def ws_echo(websocket: WebSocket):
    await websocket.accept()
    try:
        while True:
            text = await websocket.receive_text()
            if text == "bye":
                await websocket.close(code=4001, reason="bye bye")
                return
            await websocket.send_text(f"echo: {text}")
    except WebSocketDisconnect:
        pass


@app.websocket("/ws/json/{room}")
async def ws_json(websocket: WebSocket, room: str, token: str | None = None):
    await websocket.accept(subprotocol="chat" if "chat" in websocket.scope["subprotocols"] else None)
    data = await websocket.receive_json()
    await websocket.send_json({"room": room, "token": token, "data": data})
    await websocket.close()


@app.websocket("/ws/refuse")
async def ws_refuse(websocket: WebSocket):
    await websocket.close(code=1008)


rooms = APIRouter()


@rooms.get("/{room}")
async def room_info(room: str):
    return {"room": room}


@rooms.websocket("/{room}/ws")
async def room_ws(websocket: WebSocket, room: str):
    await websocket.accept()
    await websocket.send_text(f"welcome to {room}")
    await websocket.close(code=4100, reason="router socket")


app.include_router(rooms, prefix="/v2/rooms")
