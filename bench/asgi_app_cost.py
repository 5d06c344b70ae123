#!/usr/bin/env python3
"""The app's own CPU per request, without a server: bench/apps/fastapi_app.py called in a loop as an ASGI app
(`await app(scope, receive, send)` with a ready scope, a receive that gives the body and a send that drops the
messages) on one uvloop loop. What a server adds is the rest of its CPU per request (bench/asgi_servers.py prints
this beside the servers). Prints one JSON object: {"workload": us_per_request, ...}.

    .venv/bin/python bench/asgi_app_cost.py [--requests 20000] [--workloads hello,echo,validated]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(BENCH_DIR, "apps"))
import payloads

# name -> (method, path, the bodies sent in turn)
WORKLOADS = {
    "bare": ("GET", "/hello", [b""]),
    "hello": ("GET", "/hello", [b""]),
    "echo": ("POST", "/echo", [payloads.ECHO_BODY]),
    "validated": ("POST", "/items", [payloads.VALID_ITEM] * 9 + [payloads.INVALID_ITEM]),
}


def scope_of(method: str, path: str, body: bytes) -> dict:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk"), (b"accept", b"*/*")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000),
        "scheme": "http",
        "method": method,
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "state": {},
    }


async def cost(app, workload: str, requests: int) -> float:
    method, path, bodies = WORKLOADS[workload]

    async def send(message: dict) -> None:
        pass

    async def one(body: bytes) -> None:
        sent = False

        async def receive() -> dict:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope_of(method, path, body), receive, send)

    for i in range(min(requests, 1000)):  # warm-up
        await one(bodies[i % len(bodies)])
    start = time.process_time()
    for i in range(requests):
        await one(bodies[i % len(bodies)])
    return (time.process_time() - start) / requests * 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--requests", type=int, default=20000, help="calls measured per workload (20000)")
    p.add_argument("--workloads", default="hello,echo,validated", help="comma-separated: bare, hello, echo, validated")
    args = p.parse_args(argv)
    try:
        import uvloop

        loop = uvloop.new_event_loop()
    except ImportError:
        loop = asyncio.new_event_loop()
    out = {}
    for workload in [w for w in args.workloads.split(",") if w]:
        module = "asgi_hello_app" if workload == "bare" else "fastapi_app"
        app = __import__(module).app
        out[workload] = round(loop.run_until_complete(cost(app, workload, args.requests)), 2)
    loop.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
