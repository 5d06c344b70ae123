"""The MCP benchmark's Python contenders with the same two tools: `add` (two numbers -> {"result": a + b}) and
`big` (a 10 KiB structured result), arguments validated by each server.

    python bench/apps/mcp_servers.py slipstream|sdk|fastmcp PORT json|sse

slipstream: slipstream.mcp on the engine (one I/O thread); sdk: the official SDK's MCPServer on uvicorn (uvloop,
httptools, one worker); fastmcp: FastMCP on uvicorn (same). `json` asks every server for JSON answers; `sse` for
its default (the SDK servers answer POSTs as SSE streams; Slipstream answers JSON unless a notification comes first).
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel


class Sum(BaseModel):
    result: float


class Page(BaseModel):
    items: list[str]


PAGE = Page(items=[f"item-{i:04d}-" + "x" * 90 for i in range(100)])


def add_tools(server: Any) -> None:
    @server.tool()
    def add(a: float, b: float) -> Sum:
        """Adds two numbers."""
        return Sum(result=a + b)

    @server.tool()
    def big() -> Page:
        """A 10 KiB structured result."""
        return PAGE


def main() -> None:
    impl, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    json_response = mode == "json"
    if impl == "slipstream":
        from slipstream import App
        from slipstream.mcp import MCP

        server = MCP("bench", json_response=json_response)
        add_tools(server)
        app = App(openapi_url=None)
        app.mount("/mcp", server)
        app.run(host="127.0.0.1", port=port, threads=1, access_log=False)
        return
    import uvicorn

    if impl == "sdk":
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("bench", log_level="WARNING")
        add_tools(server)
        asgi = server.streamable_http_app(json_response=json_response)
    elif impl == "fastmcp":
        from fastmcp import FastMCP

        server = FastMCP("bench")
        add_tools(server)
        asgi = server.http_app(path="/mcp", json_response=json_response)
    else:
        raise SystemExit(f"unknown implementation {impl!r}")
    uvicorn.run(asgi, host="127.0.0.1", port=port, workers=1, loop="uvloop", http="httptools", log_level="warning",
                access_log=False)


if __name__ == "__main__":
    main()
