"""Granian contender: a bare RSGI app (Granian's native, fastest interface), one worker (see harness/contenders.py)."""
import json
from urllib.parse import parse_qs

import runtime_report
from payloads import INVALID_STATUS, LARGE, compact
from pydantic import BaseModel, Field, ValidationError

HEADERS = [("content-type", "application/json")]


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str]


def user_items(path: str, query: str):
    parts = path.split("/")  # ['', 'users', '{id}', 'items']
    if len(parts) != 4 or parts[3] != "items":
        return 404, b""
    try:
        args = parse_qs(query)
        user_id = int(parts[2])
        limit = int(args.get("limit", ["10"])[0])
        offset = int(args.get("offset", ["0"])[0])
    except ValueError:
        return INVALID_STATUS, b'{"detail":"invalid parameter"}'
    return 200, compact({"user_id": user_id, "limit": limit, "offset": offset})


async def app(scope, proto):
    path, method = scope.path, scope.method
    status, body = 404, b""
    if method == "GET" and path == "/hello":
        status, body = 200, compact({"message": "hello"})
    elif method == "POST" and path == "/echo":
        status, body = 200, compact(json.loads(await proto()))
    elif method == "POST" and path == "/items":
        try:
            status, body = 200, Item.model_validate_json(await proto()).model_dump_json().encode()
        except ValidationError as error:
            status, body = INVALID_STATUS, error.json().encode()
    elif method == "GET" and path.startswith("/users/"):
        status, body = user_items(path, scope.query_string)
    elif method == "GET" and path == "/large":
        status, body = 200, LARGE
    proto.response_bytes(status, HEADERS, body)


# Granian calls the app's __rsgi_init__ with its event loop when a worker starts.
app.__rsgi_init__ = runtime_report.write
