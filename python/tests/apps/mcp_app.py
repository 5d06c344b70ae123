"""An MCP server on an App, for the MCP tests: `slipstream run apps.mcp_app:app` serves it at /mcp;
`python -m apps.mcp_app` serves it over stdio."""

from __future__ import annotations

import asyncio
import threading

from pydantic import BaseModel
from slipstream import App
from slipstream.mcp import MCP, Completion, Context, ToolError, UserMessage

mcp = MCP("test-server", instructions="Tools for the tests.", version="1.2.3")
events: dict[str, threading.Event] = {"slow_cancelled": threading.Event(), "release": threading.Event(),
                                      "blocked": threading.Event(), "slow_started": threading.Event()}


class Sum(BaseModel):
    total: float


@mcp.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return Sum(total=a + b)


@mcp.tool(title="Echo")
async def echo(text: str) -> str:
    return text


@mcp.tool()
def big() -> dict[str, list[str]]:
    """A 10 KiB structured result."""
    return {"items": [f"item-{i:04d}-" + "x" * 90 for i in range(100)]}


@mcp.tool()
async def steps(n: int, ctx: Context) -> str:
    """Reports progress and logs at each step."""
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"step {i + 1}")
        await ctx.info(f"did step {i + 1}")
    return f"{n} steps"


@mcp.tool()
async def slow(seconds: float) -> str:
    events["slow_started"].set()
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        events["slow_cancelled"].set()
        raise
    return "done"


@mcp.tool()
def blocking() -> str:
    """Blocks its thread until the test releases it."""
    events["blocked"].set()
    return "released" if events["release"].wait(30) else "timed out"


@mcp.tool()
def refuse(reason: str) -> str:
    raise ToolError(f"refused: {reason}")


@mcp.tool()
def crash() -> str:
    raise RuntimeError("secret internal detail")


@mcp.tool()
async def read_info(ctx: Context) -> str:
    contents = await ctx.read_resource("info://server")
    return next(iter(contents)).content  # type: ignore[return-value]


@mcp.resource("info://server", mime_type="application/json")
def info() -> dict[str, str]:
    return {"name": "test-server"}


@mcp.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting for anyone."""
    return f"Hello, {name}!"


@mcp.prompt(title="Code review")
def review(code: str, language: str = "python") -> list[UserMessage]:
    """Asks for a review."""
    return [UserMessage(f"Review this {language} code:\n{code}")]


@mcp.completion()
def complete(ref, argument, context):
    if argument.name == "language":
        return Completion(values=[v for v in ("python", "perl", "rust") if v.startswith(argument.value)])
    return None


app = App()
app.mount("/mcp", mcp)


@app.get("/hello")
def hello() -> dict[str, str]:
    return {"hello": "world"}


if __name__ == "__main__":
    mcp.run()
