"""A hello route behind pure ASGI middleware, for bench/asgi_middleware.py: BENCH_MIDDLEWARE is "none", "asgi" (a
class that adds a response header by wrapping send, as third-party middleware does) or "http" (the same header from
an `@app.middleware("http")` function); BENCH_FRAMEWORK picks fastapi or slipstream."""

import os
from typing import Any

if os.environ.get("BENCH_FRAMEWORK", "slipstream") == "fastapi":
    import fastapi as fw

    app: Any = fw.FastAPI()
else:
    import slipstream as fw

    app = fw.App()


class AddHeader:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, _with_header(send) if scope["type"] == "http" else send)


def _with_header(send: Any) -> Any:
    async def wrapped(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message["headers"], (b"x-served-by", b"asgi")]}
        await send(message)

    return wrapped


MIDDLEWARE = os.environ.get("BENCH_MIDDLEWARE", "asgi")
if MIDDLEWARE == "asgi":
    app.add_middleware(AddHeader)
elif MIDDLEWARE == "http":

    @app.middleware("http")
    async def add_header(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["x-served-by"] = "http"
        return response


@app.get("/")
async def hello() -> Any:
    return {"hello": "world"}
