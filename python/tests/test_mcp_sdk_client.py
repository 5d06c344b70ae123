"""slipstream.mcp with the official MCP Python SDK's client (`mcp` on PyPI), over Streamable HTTP against a real
`slipstream run` server and over stdio against `slipstream mcp`: tools (structured output), resources, templates,
prompts, completions, progress and logs; in the handshake era (`mode="legacy"`) and in protocol 2026-07-28 (the SDK's
default: per-request `_meta`, log level per request, elicitation and sampling as multi round-trip requests)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

mcp_sdk = pytest.importorskip("mcp", reason="the official MCP SDK (mcp on PyPI, python/requirements-dev.txt)")
from mcp import Client, StdioServerParameters
from test_server import listening_port

# logging/setLevel is deprecated from 2026-07-28 on; the legacy runs speak a version where it is part of the protocol.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

TESTS = Path(__file__).resolve().parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "slipstream",
            "run",
            "apps.mcp_app:app",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--threads",
            "1",
        ],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield f"http://127.0.0.1:{listening_port(proc)}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


def stdio_server() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "slipstream", "mcp", "apps.mcp_app:mcp"],
        env={"PYTHONPATH": ENV["PYTHONPATH"]},
        cwd=str(TESTS),
    )


MODES = ["legacy", "2026-07-28"]


def era(mode: str) -> dict[str, Any]:
    """Client options of a mode: 2026-07-28 names its log level in each request's _meta (no logging/setLevel)."""
    return {"mode": "legacy"} if mode == "legacy" else {"log_level": "info"}


async def exercise(server: Any, mode: str) -> dict[str, Any]:
    logs: list[Any] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    out: dict[str, Any] = {}
    async with Client(server, logging_callback=on_log, **era(mode)) as client:
        assert client.session.protocol_version == ("2025-11-25" if mode == "legacy" else mode)
        out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        out["add"] = await client.call_tool("add", {"a": 1, "b": 2})
        out["invalid"] = await client.call_tool("add", {"a": "x", "b": 2})
        if mode == "legacy":
            await client.set_logging_level("info")
        out["steps"] = await client.call_tool("steps", {"n": 2}, progress_callback=on_progress)
        out["resources"] = (await client.list_resources()).resources
        out["templates"] = (await client.list_resource_templates()).resource_templates
        out["greeting"] = await client.read_resource("greeting://Ada")
        out["prompt"] = await client.get_prompt("review", {"code": "x = 1"})
        out["prompts"] = (await client.list_prompts()).prompts
    out["logs"], out["progress"] = logs, progress
    return out


def check(out: dict[str, Any]) -> None:
    assert {"add", "echo", "steps", "slow", "big"} <= set(out["tools"])
    assert out["tools"]["add"].output_schema["properties"]["total"]["type"] == "number"
    assert out["add"].structured_content == {"total": 3.0}
    assert not out["add"].is_error
    assert out["invalid"].is_error and "/a" in out["invalid"].content[0].text
    assert out["steps"].content[0].text == "2 steps"
    assert [p[0] for p in out["progress"]] == [1, 2]
    assert out["logs"] == ["did step 1", "did step 2"]
    assert str(out["resources"][0].uri) == "info://server"
    assert out["templates"][0].uri_template == "greeting://{name}"
    assert out["greeting"].contents[0].text == "Hello, Ada!"
    assert out["prompt"].messages[0].content.text == "Review this python code:\nx = 1"
    assert [p.name for p in out["prompts"]] == ["review"]


@pytest.mark.parametrize("mode", MODES)
def test_sdk_client_over_streamable_http(url: str, mode: str) -> None:
    check(asyncio.run(exercise(url, mode)))


@pytest.mark.parametrize("mode", MODES)
def test_sdk_client_over_stdio(mode: str) -> None:
    check(asyncio.run(exercise(stdio_server(), mode)))


def test_raw_stdio_lines() -> None:
    """Newline-delimited JSON-RPC on stdin/stdout; nothing else on stdout."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 1}}},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "slipstream", "mcp", "apps.mcp_app:mcp"],
        cwd=TESTS,
        env=ENV,
        input="".join(json.dumps(m) + "\n" for m in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[1]["result"]["structuredContent"] == {"total": 2.0}


async def elicit_and_sample(server: Any, mode: str) -> dict[str, Any]:
    from mcp import types

    async def on_elicit(context: Any, params: Any) -> Any:
        assert params.message == "Who should we call?"
        assert set(params.requested_schema["properties"]) == {"name", "age"}
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def on_sample(context: Any, params: Any) -> Any:
        text = params.messages[0].content.text
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=text.upper()),
            model="test-model",
            stop_reason="endTurn",
        )

    out: dict[str, Any] = {}
    async with Client(server, elicitation_callback=on_elicit, sampling_callback=on_sample, **era(mode)) as client:
        out["contact"] = await client.call_tool("ask_contact", {})
        out["summary"] = await client.call_tool("summarize", {"text": "short"})
    async with Client(server, **era(mode)) as client:  # no elicitation capability declared: it cannot be asked
        out["refused"] = await client.call_tool("ask_contact", {})
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_elicitation_and_sampling_reach_the_client(transport: str, url: str, mode: str) -> None:
    out = asyncio.run(elicit_and_sample(url if transport == "http" else stdio_server(), mode))
    assert out["contact"].content[0].text == "Ada (36)"
    assert out["summary"].content[0].text == "test-model: SUMMARIZE: SHORT"
    assert out["refused"].content[0].text.startswith("cannot ask: elicitation/create cannot be sent")
