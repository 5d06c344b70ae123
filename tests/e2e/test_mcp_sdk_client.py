"""Interop with the official Python SDK client (`mcp` on PyPI, 2.3.0): its Streamable HTTP and stdio clients against
examples/mcp_server.cpp: tools (structured output, errors, validation), resources, templates, prompts, completion,
progress callbacks and logging.

These tests pin the handshake era (`mode="legacy"`: initialize, negotiating 2025-11-25); the SDK's default
(`mode="auto"`, discovering protocol 2026-07-28) is tested in test_mcp_sdk_modern.py."""

import asyncio

import pytest

from tests.conftest import example_binary

mcp = pytest.importorskip("mcp", reason="the official MCP SDK (python/requirements-dev.txt) is not installed")
import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import PromptReference, ResourceTemplateReference

# logging/setLevel and ping are deprecated from 2026-07-28 on; these tests speak the handshake versions, where they
# are part of the protocol.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


@pytest.fixture(params=["http", "stdio"])
def target(request, start_server):
    """What Client() connects to: the example's /mcp URL, or the example started by the SDK's stdio client."""
    if request.param == "http":
        server = start_server("--threads", "1", binary="mcp_server")
        return server.url + "/mcp"
    return StdioServerParameters(command=example_binary("mcp_server"), args=["--stdio"])


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def test_sdk_negotiates_and_lists_tools(target):
    async def main():
        async with Client(target, mode="legacy") as client:
            assert client.session.initialize_result.protocol_version == "2025-11-25"
            assert client.session.initialize_result.server_info.name == "slipstream-mcp-example"
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(tools) == ["add", "ask", "big", "echo", "fail", "slow", "stats", "toggle", "touch"]
            assert tools["add"].output_schema["required"] == ["result"]
            assert tools["add"].annotations.read_only_hint is True

    run(main())


def test_sdk_calls_tools_with_structured_output_and_errors(target):
    async def main():
        async with Client(target, mode="legacy") as client:
            add = await client.call_tool("add", {"a": 1.5, "b": 2})
            assert (add.is_error, add.structured_content) == (False, {"result": 3.5})
            big = await client.call_tool("big", {})
            assert len(big.structured_content["items"]) == 100
            echo = await client.call_tool("echo", {"text": "héllo"})
            assert echo.content[0].text == "héllo"
            failed = await client.call_tool("fail", {})
            assert (failed.is_error, failed.content[0].text) == (True, "this tool always fails")
            invalid = await client.call_tool("add", {"a": "x", "b": 1})
            assert invalid.is_error is True
            assert invalid.content[0].text == "Invalid arguments for tool 'add':\n/a: Input should be a valid number"

    run(main())


def test_sdk_resources_templates_prompts_and_completion(target):
    async def main():
        async with Client(target, mode="legacy") as client:
            resources = (await client.list_resources()).resources
            assert [(r.uri, r.name) for r in resources] == [("info://server", "server-info")]
            info = await client.read_resource("info://server")
            assert info.contents[0].text == '{"name":"slipstream-mcp-example"}'
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["greeting://{name}"]
            hello = await client.read_resource("greeting://grace")
            assert hello.contents[0].text == "Hello, grace!"
            prompts = (await client.list_prompts()).prompts
            assert [(p.name, [(a.name, a.required) for a in p.arguments]) for p in prompts] == [
                ("review", [("code", True)])
            ]
            prompt = await client.get_prompt("review", {"code": "1 + 1"})
            assert prompt.messages[0].content.text == "Please review this code:\n\n1 + 1"
            names = await client.complete(
                ResourceTemplateReference(uri="greeting://{name}"), {"name": "name", "value": "c"}
            )
            assert names.completion.values == ["carol"]
            code = await client.complete(PromptReference(name="review"), {"name": "code", "value": "re"})
            assert code.completion.values == ["return 0"]

    run(main())


def test_sdk_progress_callbacks_and_logging(target):
    logs = []

    async def on_log(params):
        logs.append((params.level, params.logger, params.data))

    async def main():
        progress = []

        async def on_progress(value, total, message):
            progress.append((value, total, message))

        async with Client(target, mode="legacy", logging_callback=on_log) as client:
            await client.set_logging_level("info")
            result = await client.call_tool("slow", {"ms": 30, "steps": 3}, progress_callback=on_progress)
            assert result.content[0].text == "done"
        assert progress == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]

    run(main())
    assert logs == [("info", "slow", "slow started")]


def test_sdk_answers_the_servers_elicitation_request(target):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})

    async def main():
        async with Client(target, mode="legacy", elicitation_callback=on_elicit) as client:
            result = await client.call_tool("ask", {})
            assert (result.is_error, result.content[0].text) == (
                False,
                'Elicited: {"action":"accept","content":{"name":"Ada"}}',
            )
        async with Client(target, mode="legacy") as client:  # no elicitation capability: the tool says so
            refused = await client.call_tool("ask", {})
            assert (refused.is_error, refused.content[0].text) == (
                True,
                "The client cannot answer elicitation requests",
            )

    run(main())
    assert asked == ["What is your name?"]


def test_sdk_ping_and_list_changed(target):
    async def main():
        async with Client(target, mode="legacy") as client:
            await client.send_ping()
            await client.call_tool("toggle", {})
            names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            assert "extra" in names
            assert (await client.call_tool("extra", {})).content[0].text == "extra"

    run(main())


def test_sdk_resumes_a_released_stream_with_get(start_server):
    """The server ends the POST's connection mid-call (Call::release_stream); the SDK client reconnects with GET and
    Last-Event-ID after the retry delay and receives the progress and the result there."""
    server = start_server("--threads", "1", "--resumable-streams", "--stream-retry-ms", "100", binary="mcp_server")

    async def main():
        progress = []

        async def on_progress(value, total, message):
            progress.append(value)

        async with Client(server.url + "/mcp", mode="legacy") as client:
            result = await client.call_tool(
                "slow", {"ms": 300, "steps": 3, "release": True}, progress_callback=on_progress
            )
            assert result.content[0].text == "done"
        assert progress == [1.0, 2.0, 3.0]

    run(main())
