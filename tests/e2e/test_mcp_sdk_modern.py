"""Protocol 2026-07-28 with the official Python SDK client (`mcp` on PyPI, 2.3.0) in its default mode: it probes
`server/discover` and stays on the per-request era (no initialize, no session), over Streamable HTTP and stdio against
examples/mcp_server.cpp: lists and calls, progress and per-request log levels, elicitation as a multi round-trip
request, subscriptions/listen, cancellation; and the HTTP rules of the version with raw requests."""

import asyncio
import json

import httpx
import pytest

from tests.conftest import example_binary

mcp = pytest.importorskip("mcp", reason="the official MCP SDK (python/requirements-dev.txt) is not installed")
import anyio
import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import PromptReference, ResourceTemplateReference

MODERN = "2026-07-28"
# The deprecated features of 2026-07-28 (logging, elicitation via sampling's cousins) still are part of the version.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


@pytest.fixture(params=["http", "stdio"])
def target(request, start_server):
    if request.param == "http":
        return start_server("--threads", "1", binary="mcp_server").url + "/mcp"
    return StdioServerParameters(command=example_binary("mcp_server"), args=["--stdio"])


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def test_sdk_discovers_2026_07_28_and_serves_every_feature_without_a_handshake(target):
    async def main():
        async with Client(target) as client:
            discovered = client.session.discover_result
            assert client.session.initialize_result is None
            assert discovered.supported_versions == [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
            assert client.session.protocol_version == MODERN
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "add" in tools and tools["add"].output_schema["required"] == ["result"]
            add = await client.call_tool("add", {"a": 1.5, "b": 2})
            assert (add.is_error, add.structured_content, add.result_type) == (False, {"result": 3.5}, "complete")
            invalid = await client.call_tool("add", {"a": "x", "b": 1})
            assert invalid.content[0].text == "Invalid arguments for tool 'add':\n/a: Input should be a valid number"
            info = await client.read_resource("info://server")
            assert (info.contents[0].text, info.cache_scope, info.ttl_ms) == (
                '{"name":"slipstream-mcp-example"}',
                "private",
                0,
            )
            assert (await client.read_resource("greeting://grace")).contents[0].text == "Hello, grace!"
            prompt = await client.get_prompt("review", {"code": "1 + 1"})
            assert prompt.messages[0].content.text == "Please review this code:\n\n1 + 1"
            names = await client.complete(
                ResourceTemplateReference(uri="greeting://{name}"), {"name": "name", "value": "c"}
            )
            assert names.completion.values == ["carol"]
            code = await client.complete(PromptReference(name="review"), {"name": "code", "value": "re"})
            assert code.completion.values == ["return 0"]
            with pytest.raises(mcp.MCPError) as missing:
                await client.read_resource("nope://x")
            assert missing.value.error.code == -32602  # 2026-07-28's code for an unknown resource

    run(main())


def test_sdk_progress_and_log_messages_only_at_the_requested_level(target):
    async def call_slow(**options):
        logs, progress = [], []

        async def on_log(params):
            logs.append((params.level, params.logger, params.data))

        async def on_progress(value, total, message):
            progress.append((value, total, message))

        async with Client(target, logging_callback=on_log, **options) as client:
            result = await client.call_tool("slow", {"ms": 30, "steps": 2}, progress_callback=on_progress)
            assert result.content[0].text == "done"
        return logs, progress

    logs, progress = run(call_slow(log_level="info"))
    assert logs == [("info", "slow", "slow started")]
    assert progress == [(1.0, 2.0, "step 1"), (2.0, 2.0, "step 2")]
    assert run(call_slow())[0] == []  # no level in the request's _meta: no log messages


def test_sdk_answers_elicitation_as_a_multi_round_trip_request(target):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})

    async def main():
        async with Client(target, elicitation_callback=on_elicit) as client:
            result = await client.call_tool("ask", {})
            assert (result.is_error, result.content[0].text) == (
                False,
                'Elicited: {"action":"accept","content":{"name":"Ada"}}',
            )
        async with Client(target) as client:  # no elicitation capability in the request's _meta
            refused = await client.call_tool("ask", {})
            assert (refused.is_error, refused.content[0].text) == (
                True,
                "The client cannot answer elicitation requests",
            )

    run(main())
    assert asked == ["What is your name?"]


def test_sdk_listens_for_list_changes_and_resource_updates(target):
    async def main():
        async with (
            Client(target) as client,
            client.listen(tools_list_changed=True, resource_subscriptions=["info://server"]) as sub,
        ):
            assert sub.honored.tools_list_changed is True
            assert sub.honored.resource_subscriptions == ["info://server"]
            await client.call_tool("toggle", {})
            changed = await asyncio.wait_for(sub.__anext__(), 10)
            assert type(changed).__name__ == "ToolsListChanged"
            assert "extra" in [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            await client.call_tool("touch", {})
            updated = await asyncio.wait_for(sub.__anext__(), 10)
            assert getattr(updated, "uri", None) == "info://server"

    run(main())


def test_sdk_cancellation_stops_the_tool(target):
    async def main():
        async with Client(target) as client:
            with anyio.move_on_after(0.5):
                await client.call_tool("slow", {"ms": 20000, "steps": 1})
            for _ in range(100):  # the cancellation reaches the tool shortly after the client gave up
                stats = await client.call_tool("stats", {})
                if stats.structured_content["slow_cancelled"] == 1:
                    break
                await anyio.sleep(0.05)
            assert stats.structured_content == {"slow_cancelled": 1}

    run(main())


def modern_post(url, body, **headers):
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    return httpx.post(url, content=json.dumps(body), headers={**base, **headers}, timeout=10)


def envelope(method, version=MODERN, **params):
    meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta, **params}}


def test_http_rules_of_2026_07_28(start_server):
    url = start_server("--threads", "1", binary="mcp_server").url + "/mcp"
    ok = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
    call = envelope("tools/call", name="echo", arguments={"text": "hi"})
    r = modern_post(url, call, **ok, **{"Mcp-Session-Id": "ignored"})
    assert r.status_code == 200 and "mcp-session-id" not in r.headers
    assert r.json()["result"]["content"] == [{"type": "text", "text": "hi"}]
    # Mcp-Name may be sent base64-encoded; a name outside visible ASCII must be.
    assert modern_post(url, call, **{**ok, "Mcp-Name": "=?base64?ZWNobw==?="}).status_code == 200
    for headers, why in [
        ({**ok, "Mcp-Name": "add"}, "Mcp-Name"),
        ({**ok, "Mcp-Method": "tools/list"}, "Mcp-Method"),
        ({k: v for k, v in ok.items() if k != "Mcp-Name"}, "Mcp-Name is required"),
        ({**ok, "MCP-Protocol-Version": "2025-11-25"}, "MCP-Protocol-Version"),
        ({**ok, "Mcp-Name": "=?base64?not base64?="}, "invalid"),
    ]:
        r = modern_post(url, call, **headers)
        assert (r.status_code, r.json()["error"]["code"]) == (400, -32020), headers
        assert why in r.json()["error"]["message"]
    # The header must mirror the body's version before the version is judged.
    unknown = envelope("tools/list", version="1900-01-01")
    r = modern_post(url, unknown, **{**ok, "Mcp-Method": "tools/list"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, -32020)
    r = modern_post(url, unknown, **{**ok, "Mcp-Method": "tools/list", "MCP-Protocol-Version": "1900-01-01"})
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {
            "supported": [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            "requested": "1900-01-01",
        },
    }
    r = modern_post(url, envelope("ping"), **{**ok, "Mcp-Method": "ping"})
    assert (r.status_code, r.json()["error"]["code"]) == (404, -32601)
    # A request of the version without its envelope: invalid params (not a legacy request without a session).
    legacy_body = {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}
    r = modern_post(url, legacy_body, **{"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"})
    assert (r.status_code, r.json()["id"], r.json()["error"]["code"]) == (400, 9, -32602)


def test_http_missing_capability_and_mirrored_parameters(start_server):
    """examples/mcp_conformance_server.cpp: a handler's MissingRequiredClientCapability (-32021) is a 400, and a tool
    parameter annotated with x-mcp-header must come with its Mcp-Param header."""
    url = start_server("--threads", "1", binary="mcp_conformance_server").url + "/mcp"
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "test_missing_capability"}
    r = modern_post(url, envelope("tools/call", name="test_missing_capability", arguments={}), **headers)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32021
    assert r.json()["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    call = envelope("tools/call", name="test_custom_header", arguments={"region": "us-west1"})
    headers["Mcp-Name"] = "test_custom_header"
    r = modern_post(url, call, **headers)
    assert (r.status_code, r.json()["error"]["code"]) == (400, -32020)
    assert "Mcp-Param-Region is required" in r.json()["error"]["message"]
    assert modern_post(url, call, **headers, **{"Mcp-Param-Region": "us-west1"}).status_code == 200
    r = modern_post(url, call, **headers, **{"Mcp-Param-Region": "=?base64?ZXUtd2VzdDE=?="})  # eu-west1
    assert (r.status_code, r.json()["error"]["code"]) == (400, -32020)
