"""Latency of one ASGI call, in process: `await app(scope, receive, send)` for FastAPI's app and for a Slipstream
App (whose call is relayed to its engine over a loopback connection, python/slipstream/_asgi/entry.py), same
handlers, same event loop, sequential calls; rounds rotate the order and the median per contender is printed.

    .venv/bin/python bench/asgi_call.py [--calls 2000] [--rounds 3]

This measures the ASGI entry (tests with httpx.ASGITransport, an App under an ASGI server), not serving speed:
that is `bench/run.py` (App.run()/`slipstream run`, no relay)."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

from pydantic import BaseModel


class Item(BaseModel):
    name: str
    price: float


def make_app(name: str) -> Any:
    if name == "fastapi":
        import fastapi

        app: Any = fastapi.FastAPI()
    else:
        import slipstream

        app = slipstream.App()

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    @app.post("/items")
    async def items(item: Item) -> Item:
        return item

    return app


async def calls(app: Any, n: int, method: str, path: str, body: bytes = b"") -> float:
    """Microseconds per call, `n` sequential calls."""
    headers = [(b"host", b"bench"), (b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("bench", 80),
    }
    finished = asyncio.Event()

    async def one() -> None:
        pending = [{"type": "http.request", "body": body, "more_body": False}]
        status = []

        async def receive() -> dict[str, Any]:
            if pending:
                return pending.pop()
            await finished.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(dict(scope), receive, send)
        if status != [200]:
            raise RuntimeError(f"{method} {path}: status {status}")

    for _ in range(50):  # warm-up (the first Slipstream call starts its engine)
        await one()
    start = time.perf_counter()
    for _ in range(n):
        await one()
    return (time.perf_counter() - start) / n * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    names = ["fastapi", "slipstream"]
    apps = {name: make_app(name) for name in names}
    seen: dict[tuple[str, str], list[float]] = {}
    for round_no in range(args.rounds):
        order = names[round_no % 2 :] + names[: round_no % 2]
        for name in order:
            app = apps[name]
            seen.setdefault((name, "GET /hello"), []).append(await calls(app, args.calls, "GET", "/hello"))
            seen.setdefault((name, "POST /items"), []).append(
                await calls(app, args.calls, "POST", "/items", b'{"name":"a","price":1.5}')
            )
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}, {args.rounds} rounds of {args.calls} calls")
    for (name, case), values in sorted(seen.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(
            f"{case:12} {name:10} median {statistics.median(values):7.1f} us/call "
            f"(min {min(values):.1f}, max {max(values):.1f})"
        )


if __name__ == "__main__":
    asyncio.run(main())
