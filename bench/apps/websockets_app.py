"""websockets contender (ws only): the `websockets` library's asyncio server echoing every message on /ws.

Plain asyncio event loop, no compression, no keep-alive pings; host and port from BENCH_HOST/BENCH_PORT. Any
request that is not a WebSocket upgrade gets a 200 (the harness's readiness probe fetches /hello).
"""
import asyncio
import os

import runtime_report
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response


async def echo(websocket: ServerConnection) -> None:
    async for message in websocket:
        await websocket.send(message)


def not_upgrade(connection: ServerConnection, request: Request) -> Response | None:
    if request.headers.get("Upgrade", "").lower() != "websocket":
        return connection.respond(200, "ready\n")
    return None


async def main() -> None:
    runtime_report.write(asyncio.get_running_loop())
    host = os.environ.get("BENCH_HOST", "127.0.0.1")
    port = int(os.environ.get("BENCH_PORT", "8080"))
    async with serve(echo, host, port, compression=None, ping_interval=None, max_size=1 << 20,
                     process_request=not_upgrade, backlog=16384) as server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
