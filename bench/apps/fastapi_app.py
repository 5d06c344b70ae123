"""FastAPI contender: run by uvicorn with one worker, uvloop and httptools (see harness/contenders.py)."""
import asyncio
from contextlib import asynccontextmanager

import otel_setup
import runtime_report
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from payloads import CONTENT_TYPE, LARGE
from pydantic import BaseModel, Field


@asynccontextmanager
async def lifespan(app):
    runtime_report.write(asyncio.get_running_loop())
    yield


otel_setup.install_if_asked()  # BENCH_OTEL=1: global OpenTelemetry providers, so FastAPI traces every request
app = FastAPI(lifespan=lifespan)


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str]


@app.get("/hello")
async def hello():
    return {"message": "hello"}


@app.post("/echo")
async def echo(request: Request):
    return JSONResponse(await request.json())


@app.post("/items")
async def create_item(item: Item):
    return item


@app.get("/users/{user_id}/items")
async def user_items(user_id: int, limit: int = 10, offset: int = 0):
    return {"user_id": user_id, "limit": limit, "offset": offset}


@app.get("/large")
async def large():
    return Response(LARGE, media_type=CONTENT_TYPE)
