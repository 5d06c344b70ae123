"""Robyn contender: one process, one worker (`--processes 1 --workers 1`); host and port from BENCH_HOST/BENCH_PORT."""
import json
import os

import runtime_report
from payloads import INVALID_STATUS, LARGE, compact
from pydantic import BaseModel, Field, ValidationError
from robyn import Response, Robyn

app = Robyn(__file__)
HEADERS = {"Content-Type": "application/json"}


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str]


def json_response(body: bytes, status: int = 200) -> Response:
    return Response(status_code=status, headers=HEADERS, description=body)


def body_bytes(request) -> bytes:
    body = request.body
    return body.encode() if isinstance(body, str) else bytes(body)


@app.get("/hello")
def hello(request):
    return json_response(compact({"message": "hello"}))


@app.post("/echo")
def echo(request):
    return json_response(compact(json.loads(body_bytes(request))))


@app.post("/items")
def create_item(request):
    try:
        item = Item.model_validate_json(body_bytes(request))
    except ValidationError as error:
        return json_response(error.json().encode(), INVALID_STATUS)
    return json_response(item.model_dump_json().encode())


@app.get("/users/:user_id/items")
def user_items(request):
    try:
        user_id = int(request.path_params["user_id"])
        limit = int(request.query_params.get("limit", "10"))
        offset = int(request.query_params.get("offset", "0"))
    except ValueError:
        return json_response(b'{"detail":"invalid parameter"}', INVALID_STATUS)
    return json_response(compact({"user_id": user_id, "limit": limit, "offset": offset}))


@app.get("/large")
def large(request):
    return json_response(LARGE)


if __name__ == "__main__":
    runtime_report.write()  # Robyn runs its own (Rust) event loop: the interpreter facts only
    app.start(host=os.environ.get("BENCH_HOST", "127.0.0.1"), port=int(os.environ.get("BENCH_PORT", "8080")))
