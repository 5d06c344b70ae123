"""slipstream.mcp over Streamable HTTP through the TestClient (real sockets, the engine's MCP server, Python
tools): the handshake, tools with C++-validated arguments and structured output, errors, progress and logs as SSE,
resources, templates, prompts, completions, cancellation, sync tools off the loop."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any

import pydantic_core
import pytest
from apps import mcp_app
from slipstream import TestClient
from slipstream.mcp import Context

ACCEPT = {"Accept": "application/json, text/event-stream"}


def messages(response: Any) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an answer: one JSON body, or the data of each SSE event."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    out = []
    for block in response.text.split("\n\n"):
        data = [line[5:].lstrip() for line in block.splitlines() if line.startswith("data:")]
        if data:
            out.append(json.loads("\n".join(data)))
    return out


class Session:
    def __init__(self, client: TestClient, version: str = "2025-06-18") -> None:
        self.client = client
        self.version = version
        self.next_id = 0
        r = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert r.status_code == 200, r.text
        self.init = messages(r)[-1]
        self.id = r.headers["mcp-session-id"]
        r = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert r.status_code == 202

    def headers(self) -> dict[str, str]:
        h = dict(ACCEPT)
        if getattr(self, "id", None):
            h["Mcp-Session-Id"] = self.id
            h["MCP-Protocol-Version"] = self.version
        return h

    def post(self, body: Any) -> Any:
        return self.client.post("/mcp", content=json.dumps(body), headers={**self.headers(),
                                                                           "Content-Type": "application/json"})

    def post_on_own_connection(self, body: Any) -> tuple[int, str]:
        """For calls made from another thread: a connection of its own to the same server."""
        conn = http.client.HTTPConnection("127.0.0.1", self.client._native.port, timeout=30)
        try:
            conn.request("POST", "/mcp", body=json.dumps(body), headers={**self.headers(),
                                                                        "Content-Type": "application/json"})
            r = conn.getresponse()
            return r.status, r.read().decode()
        finally:
            conn.close()

    def request(self, method: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self.next_id += 1
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            body["params"] = params
        r = self.post(body)
        assert r.status_code == 200, r.text
        return messages(r)

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.request(method, params)[-1]
        assert "result" in answer, answer
        return answer["result"]


@pytest.fixture(scope="module")
def client() -> Any:
    with TestClient(mcp_app.app) as c:
        yield c


@pytest.fixture
def session(client: TestClient) -> Session:
    return Session(client)


def test_initialize_names_the_server_and_its_capabilities(session: Session) -> None:
    result = session.init["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"]["name"] == "test-server"
    assert result["serverInfo"]["version"] == "1.2.3"
    assert result["instructions"] == "Tools for the tests."
    assert {"tools", "resources", "prompts", "logging", "completions"} <= set(result["capabilities"])


def test_the_app_s_own_routes_still_answer(client: TestClient) -> None:
    assert client.get("/hello").json() == {"hello": "world"}


def test_tools_list_has_schemas_from_type_hints(session: Session) -> None:
    tools = {t["name"]: t for t in session.result("tools/list")["tools"]}
    add = tools["add"]
    assert add["description"] == "Adds two numbers."
    assert add["inputSchema"]["properties"]["a"]["type"] == "number"
    assert add["inputSchema"]["required"] == ["a", "b"]
    assert add["outputSchema"]["properties"]["total"]["type"] == "number"
    assert tools["echo"]["title"] == "Echo"
    assert "outputSchema" not in tools["refuse"] or tools["refuse"]["outputSchema"]["properties"]["result"]
    assert "ctx" not in tools["steps"]["inputSchema"]["properties"]


def test_call_answers_structured_content_and_text(session: Session) -> None:
    result = session.result("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3.5}})
    assert result["structuredContent"] == {"total": 5.5}
    assert json.loads(result["content"][0]["text"]) == {"total": 5.5}
    assert not result.get("isError", False)


def test_a_models_text_and_structured_content_are_the_sdks(session: Session) -> None:
    # The official SDK's MCPServer: the text block is pydantic's indented JSON of the model, structuredContent its
    # JSON-mode dump by alias (both serialized once here, the text escaped by the engine).
    result = session.result("tools/call", {"name": "profile", "arguments": {}})
    expected = mcp_app.profile()
    assert result["content"] == [{"type": "text", "text": pydantic_core.to_json(expected, indent=2).decode()}]
    assert result["structuredContent"] == expected.model_dump(mode="json", by_alias=True)
    assert result["structuredContent"]["displayName"].startswith('Ada "the first"')
    assert result["structuredContent"]["score"] is None


def test_a_models_text_laid_out_by_the_engine_is_pydantics(session: Session) -> None:
    result = session.result("tools/call", {"name": "report", "arguments": {}})
    expected = mcp_app.report()
    assert result["content"] == [{"type": "text", "text": pydantic_core.to_json(expected, indent=2).decode()}]
    assert result["structuredContent"] == expected.model_dump(mode="json", by_alias=True)


def test_primitive_results_are_wrapped_as_the_sdk_does(session: Session) -> None:
    result = session.result("tools/call", {"name": "echo", "arguments": {"text": "héllo"}})
    assert result["content"] == [{"type": "text", "text": "héllo"}]
    assert result["structuredContent"] == {"result": "héllo"}


def test_a_10_kib_structured_result(session: Session) -> None:
    result = session.result("tools/call", {"name": "big", "arguments": {}})
    assert len(result["structuredContent"]["items"]) == 100
    assert len(json.dumps(result["structuredContent"])) > 10_000


def test_invalid_arguments_are_a_tool_error_naming_the_pointer(session: Session) -> None:
    result = session.result("tools/call", {"name": "add", "arguments": {"a": "two", "b": 1}})
    assert result["isError"] is True
    assert "/a" in result["content"][0]["text"]
    result = session.result("tools/call", {"name": "add", "arguments": {"a": 1}})
    assert result["isError"] is True
    assert "b" in result["content"][0]["text"]


def test_async_tools_run_in_one_task(session: Session) -> None:
    result = session.result("tools/call", {"name": "in_one_task", "arguments": {}})
    assert result["structuredContent"] == {"result": True}


def test_unknown_tool_is_invalid_params(session: Session) -> None:
    answer = session.request("tools/call", {"name": "nope", "arguments": {}})[-1]
    assert answer["error"]["code"] == -32602


def test_tool_errors_reach_the_client_and_internals_do_not(session: Session) -> None:
    result = session.result("tools/call", {"name": "refuse", "arguments": {"reason": "policy"}})
    assert result["isError"] is True
    assert result["content"][0]["text"] == "refused: policy"
    result = session.result("tools/call", {"name": "crash", "arguments": {}})
    assert result["isError"] is True
    assert "secret" not in json.dumps(result)
    assert "crash" in result["content"][0]["text"]


def test_progress_and_logs_stream_before_the_answer(session: Session) -> None:
    session.result("logging/setLevel", {"level": "debug"})
    out = session.request("tools/call", {"name": "steps", "arguments": {"n": 3}, "_meta": {"progressToken": "p1"}})
    progress = [m["params"] for m in out if m.get("method") == "notifications/progress"]
    assert [p["progress"] for p in progress] == [1, 2, 3]
    assert all(p["progressToken"] == "p1" and p["total"] == 3 for p in progress)
    logs = [m["params"] for m in out if m.get("method") == "notifications/message"]
    assert [entry["data"] for entry in logs] == ["did step 1", "did step 2", "did step 3"]
    assert out[-1]["result"]["content"][0]["text"] == "3 steps"


def test_logs_below_the_level_are_not_sent(session: Session) -> None:
    session.result("logging/setLevel", {"level": "error"})
    out = session.request("tools/call", {"name": "steps", "arguments": {"n": 2}})
    assert [m for m in out if m.get("method") == "notifications/message"] == []


def test_resources_templates_and_reads(session: Session) -> None:
    resources = session.result("resources/list")["resources"]
    assert {"uri": "info://server", "name": "info", "mimeType": "application/json"}.items() <= resources[0].items()
    templates = session.result("resources/templates/list")["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "greeting://{name}"
    assert templates[0]["description"] == "A greeting for anyone."
    read = session.result("resources/read", {"uri": "info://server"})["contents"][0]
    assert json.loads(read["text"]) == {"name": "test-server"}
    assert read["mimeType"] == "application/json"
    read = session.result("resources/read", {"uri": "greeting://Ada"})["contents"][0]
    assert read == {"uri": "greeting://Ada", "mimeType": "text/plain", "text": "Hello, Ada!"}


def test_context_reads_a_resource_in_process(session: Session) -> None:
    result = session.result("tools/call", {"name": "read_info", "arguments": {}})
    assert json.loads(result["content"][0]["text"]) == {"name": "test-server"}


def test_prompts_list_and_get(session: Session) -> None:
    prompts = session.result("prompts/list")["prompts"]
    review = next(p for p in prompts if p["name"] == "review")
    assert review["title"] == "Code review"
    assert {a["name"]: a.get("required", False) for a in review["arguments"]} == {"code": True, "language": False}
    got = session.result("prompts/get", {"name": "review", "arguments": {"code": "x = 1"}})
    assert got["messages"] == [{"role": "user", "content": {"type": "text",
                                                            "text": "Review this python code:\nx = 1"}}]
    answer = session.request("prompts/get", {"name": "review", "arguments": {}})[-1]
    assert answer["error"]["code"] == -32602


def test_completion(session: Session) -> None:
    result = session.result("completion/complete", {
        "ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "p"}})
    assert result["completion"]["values"] == ["python", "perl"]


def test_cancellation_stops_the_running_tool(client: TestClient, session: Session) -> None:
    mcp_app.events["slow_cancelled"].clear()
    mcp_app.events["slow_started"].clear()
    answers: list[Any] = []
    worker = threading.Thread(target=lambda: answers.append(session.post_on_own_connection(
        {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 30}}})))
    worker.start()
    assert mcp_app.events["slow_started"].wait(10)
    r = session.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
    assert r.status_code == 202
    assert mcp_app.events["slow_cancelled"].wait(10)
    worker.join(10)


def test_a_blocking_sync_tool_does_not_stall_async_ones(client: TestClient) -> None:
    one, two = Session(client), Session(client)
    mcp_app.events["release"].clear()
    mcp_app.events["blocked"].clear()
    answers: list[Any] = []
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "blocking"}}
    worker = threading.Thread(target=lambda: answers.append(one.post_on_own_connection(call)))
    worker.start()
    assert mcp_app.events["blocked"].wait(10)
    # The sync tool holds its worker thread until released: an async tool answers meanwhile.
    assert two.result("tools/call", {"name": "echo", "arguments": {"text": "x"}})["content"][0]["text"] == "x"
    released_before_echo = mcp_app.events["release"].is_set()
    mcp_app.events["release"].set()
    worker.join(10)
    assert not released_before_echo
    status, text = answers[0]
    assert status == 200 and '"released"' in text


def test_sync_tools_run_inline_on_the_executor_thread(client: TestClient) -> None:
    """No worker-thread hop for a `def` tool served by an app: it runs on the loop's thread, under the executor's
    blocked-handler hand-off (the test above: a blocking one still does not stall the others)."""
    s = Session(client)
    sync = s.result("tools/call", {"name": "sync_thread"})["structuredContent"]["result"]
    loop = s.result("tools/call", {"name": "loop_thread"})["structuredContent"]["result"]
    assert sync == loop


def test_delete_ends_the_session(client: TestClient) -> None:
    s = Session(client)
    r = client.delete("/mcp", headers=s.headers())
    assert r.status_code in (200, 204)
    r = s.post({"jsonrpc": "2.0", "id": 5, "method": "ping"})
    assert r.status_code == 404


def _tool_app(**options: Any) -> Any:
    from slipstream import App
    from slipstream.mcp import MCP

    server = MCP("stored", **options)

    @server.tool()
    def twice(x: int) -> int:
        return 2 * x

    app = App()
    app.mount("/mcp", server)
    return app


def test_sessions_in_a_store_outlive_the_server(tmp_path: Any) -> None:
    url = f"sqlite://{tmp_path / 'mcp.db'}"
    with TestClient(_tool_app(store=url)) as first:
        session = Session(first)
        assert session.result("tools/call", {"name": "twice", "arguments": {"x": 4}})["structuredContent"] == {
            "result": 8}
    with TestClient(_tool_app(store=url)) as second:  # a new server on the same store knows the session
        session.client = second
        assert session.result("tools/call", {"name": "twice", "arguments": {"x": 5}})["structuredContent"] == {
            "result": 10}
        assert second.delete("/mcp", headers=session.headers()).status_code in (200, 204)
        assert session.post({"jsonrpc": "2.0", "id": 9, "method": "ping"}).status_code == 404
    with TestClient(_tool_app()) as memory_only:  # without a store the id means nothing
        session.client = memory_only
        assert session.post({"jsonrpc": "2.0", "id": 9, "method": "ping"}).status_code == 404


def test_a_resumable_stream_resumes_from_the_store_after_a_restart(tmp_path: Any) -> None:
    from slipstream import App
    from slipstream.mcp import MCP

    url = f"sqlite://{tmp_path / 'mcp.db'}"

    def app() -> Any:
        server = MCP("stored", store=url, resumable_streams=True, stream_store_events=16,
                     stream_store_bytes=64 * 1024, stream_store_ttl=60)

        @server.tool()
        async def working(ctx: Context) -> str:
            await ctx.info("working")
            return "done"

        application = App()
        application.mount("/mcp", server)
        return application

    with TestClient(app()) as first:
        session = Session(first)
        r = session.post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "working"}})
        assert r.headers["content-type"].startswith("text/event-stream")
        ids = [line[3:].strip() for line in r.text.splitlines() if line.startswith("id:")]
        assert len(ids) == 2 and messages(r)[-1]["result"]["content"] == [{"type": "text", "text": "done"}]
    with TestClient(app()) as second:  # the stream's events are in the store: a GET after its log reads the answer
        session.client = second
        r = second.get("/mcp", headers={**session.headers(), "Accept": "text/event-stream", "Last-Event-ID": ids[0]})
        assert r.status_code == 200
        assert [line[3:].strip() for line in r.text.splitlines() if line.startswith("id:")] == ids[1:]
        answer = messages(r)[-1]
        assert answer["id"] == 3 and answer["result"]["structuredContent"] == {"result": "done"}


def test_protected_resource_metadata(tmp_path: Any) -> None:
    class AuthSettings:  # the official SDK's AuthSettings names
        issuer_url = "https://auth.example.com"
        resource_server_url = "https://api.example.com/mcp"
        required_scopes = ("tools:read",)

    with TestClient(_tool_app(auth=AuthSettings())) as client:
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
            body = client.get(path).json()
            assert body["resource"] == "https://api.example.com/mcp"
            assert body["authorization_servers"] == ["https://auth.example.com"]
            assert body["scopes_supported"] == ["tools:read"]
    with pytest.raises(ValueError, match="resource="):
        _tool_app(authorization_servers=["https://auth.example.com"])


def test_protocol_2026_07_28_options_reach_the_wire() -> None:
    """A request carrying its own envelope is served without a session, its result stamped with the caching hints of
    MCP(cache_ttl=...)."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
    with TestClient(_tool_app(cache_ttl=5)) as c:
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
                   headers=headers)
        result = r.json()["result"]
        assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == ("complete", 5000, "public")
        assert [t["name"] for t in result["tools"]] == ["twice"]
        assert "mcp-session-id" not in r.headers
