"""BlackSheep contender: run by uvicorn with one worker, uvloop and httptools (see harness/contenders.py)."""
import asyncio
import json

import runtime_report
from blacksheep import Application, Content, Request, Response
from payloads import INVALID_STATUS, LARGE, compact
from pydantic import BaseModel, Field, ValidationError

app = Application()


async def report_runtime(application: Application) -> None:
    runtime_report.write(asyncio.get_running_loop())


app.on_start += report_runtime
JSON = b"application/json"


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str]


def json_response(body: bytes, status: int = 200) -> Response:
    return Response(status, None, Content(JSON, body))


@app.router.get("/hello")
async def hello():
    return json_response(compact({"message": "hello"}))


@app.router.post("/echo")
async def echo(request: Request):
    return json_response(compact(json.loads(await request.read())))


@app.router.post("/items")
async def create_item(request: Request):
    try:
        item = Item.model_validate_json(await request.read())
    except ValidationError as error:
        return json_response(error.json().encode(), INVALID_STATUS)
    return json_response(item.model_dump_json().encode())


@app.router.get("/users/{user_id}/items")
async def user_items(user_id: int, limit: int = 10, offset: int = 0):
    return json_response(compact({"user_id": user_id, "limit": limit, "offset": offset}))


@app.router.get("/large")
async def large():
    return json_response(LARGE)
