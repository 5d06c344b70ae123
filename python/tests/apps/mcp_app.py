"""An MCP server on an App, for the MCP tests: `slipstream run apps.mcp_app:app` serves it at /mcp;
`python -m apps.mcp_app` serves it over stdio."""

from __future__ import annotations

import asyncio
import threading

import anyio
from pydantic import BaseModel, Field
from slipstream import App
from slipstream.mcp import (
    MCP,
    ClientRequestError,
    Completion,
    Context,
    SamplingMessage,
    TextContent,
    ToolError,
    UserMessage,
)

mcp = MCP("test-server", instructions="Tools for the tests.", version="1.2.3")
events: dict[str, threading.Event] = {"slow_cancelled": threading.Event(), "release": threading.Event(),
                                      "blocked": threading.Event(), "slow_started": threading.Event()}


class Sum(BaseModel):
    total: float


@mcp.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return Sum(total=a + b)


class Profile(BaseModel):
    display_name: str = Field(alias="displayName")
    tags: list[str]
    score: float | None = None


@mcp.tool()
def profile() -> Profile:
    """A model with an alias, escapes and a null."""
    return Profile(displayName='Ada "the first" L\u00f6velace\n', tags=["a\\b", "\u2603", "\x01"])


class Entry(BaseModel):
    name: str
    weight: float


class Report(BaseModel):
    title: str
    entries: list[Entry]
    empty: list[int]
    extra: dict[str, object]
    missing: int | None = None


@mcp.tool()
def report() -> Report:
    """Nested models, empty containers, escapes, unicode and a null (no alias: the text is laid out by the engine)."""
    return Report(title='a "quoted" [title], {x}: y\n\u00e9\u2603', entries=[Entry(name="e1", weight=1.5),
                  Entry(name="\\", weight=-2e-7)], empty=[], extra={"k": {}, "l": [1, [], {"m": None}]})


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
def sync_thread() -> int:
    """The thread a plain `def` tool runs on."""
    return threading.get_ident()


@mcp.tool()
async def loop_thread() -> int:
    """The thread of the loop (async tools)."""
    return threading.get_ident()


@mcp.tool()
async def in_one_task() -> bool:
    """anyio and asyncio.timeout need a current Task: the same one before and after a suspension."""
    before = asyncio.current_task()
    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(anyio.sleep, 0)
        await asyncio.sleep(0.01)
    async with asyncio.timeout(5):
        await asyncio.sleep(0)
    return before is not None and asyncio.current_task() is before


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


class Contact(BaseModel):
    name: str
    age: int


@mcp.tool()
async def ask_contact(ctx: Context) -> str:
    """Elicits a contact from the user."""
    try:
        answer = await ctx.elicit("Who should we call?", Contact, timeout=10)
    except ClientRequestError as exc:
        return f"cannot ask: {exc}"
    if answer.action != "accept":
        return answer.action
    return f"{answer.data.name} ({answer.data.age})"


@mcp.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Asks the client's model for a summary."""
    result = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(text=f"Summarize: {text}"))], max_tokens=50, timeout=10)
    return f"{result.model}: {result.content.text}"


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
