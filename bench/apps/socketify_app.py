"""socketify contender: one process (uWebSockets event loop); host and port from BENCH_HOST/BENCH_PORT.

/ws echoes every WebSocket message back with its opcode (no compression)."""
import json
import os

import runtime_report
from payloads import INVALID_STATUS, LARGE, compact
from pydantic import BaseModel, Field, ValidationError
from socketify import App, AppListenOptions, CompressOptions


class Item(BaseModel):
    name: str
    price: float = Field(gt=0)
    tags: list[str]


def send(res, body: bytes, status: int = 200) -> None:
    res.cork(lambda r: (r.write_status(status), r.write_header("Content-Type", "application/json"), r.end(body)))


def hello(res, req):
    send(res, compact({"message": "hello"}))


# Bodies are read with a synchronous on_data handler registered inside the route handler. socketify 0.0.31's
# `await res.get_data()` registers it only once the coroutine runs; a body that arrives first is handed to the
# previous request's handler, already freed, and the process aborts (seen under wrk load).
_pending: dict[int, object] = {}  # responses waiting for their body, kept alive until answered


def with_body(respond):
    def handler(res, req):
        chunks = []

        def on_data(res, chunk, is_end):
            if chunk:
                chunks.append(chunk)
            if is_end:
                _pending.pop(id(res), None)
                respond(res, b"".join(chunks))
        _pending[id(res)] = res
        res.on_data(on_data)
    return handler


def echo(res, body: bytes):
    send(res, compact(json.loads(body)))


def create_item(res, body: bytes):
    try:
        item = Item.model_validate_json(body)
    except ValidationError as error:
        send(res, error.json().encode(), INVALID_STATUS)
        return
    send(res, item.model_dump_json().encode())


def user_items(res, req):
    try:
        user_id = int(req.get_parameter(0))
        limit = int(req.get_query("limit") or "10")
        offset = int(req.get_query("offset") or "0")
    except ValueError:
        send(res, b'{"detail":"invalid parameter"}', INVALID_STATUS)
        return
    send(res, compact({"user_id": user_id, "limit": limit, "offset": offset}))


def large(res, req):
    send(res, LARGE)


def ws_message(ws, message, opcode):
    ws.send(message, opcode)


WS_BEHAVIOR = {"compression": CompressOptions.DISABLED, "max_payload_length": 1 << 20, "idle_timeout": 300,
               "message": ws_message}


def main() -> None:
    app = App()
    app.get("/hello", hello)
    app.post("/echo", with_body(echo))
    app.post("/items", with_body(create_item))
    app.get("/users/:user_id/items", user_items)
    app.get("/large", large)
    app.ws("/ws", WS_BEHAVIOR)
    host = os.environ.get("BENCH_HOST", "127.0.0.1")
    port = int(os.environ.get("BENCH_PORT", "8080"))
    app.listen(AppListenOptions(port=port, host=host), lambda config: None)
    runtime_report.write()  # socketify runs its own (libuv) loop: the interpreter facts only
    app.run()


if __name__ == "__main__":
    main()
