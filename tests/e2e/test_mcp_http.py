"""End-to-end tests of the MCP server's Streamable HTTP transport (examples/mcp_server.cpp on a real socket, spoken
to with httpx): handshake, session header rules, status codes, SSE answers, the GET stream and its resumption,
DELETE, batches, hostile input, principals and cancellation."""
import json
import threading

import httpx
import pytest

from tests.e2e.helpers import poll
from tests.e2e.mcp_http import ACCEPT_BOTH, INIT_PARAMS, McpHttp, notification, read_events, request, sse_events

ALICE_KEY = "alice-mcp-key-0123456789abcdef"
BOB_KEY = "bob-mcp-key-0123456789abcdefgh"


@pytest.fixture
def mcp(start_server):
    """start(*flags) -> (server, client): the example MCP server with one I/O thread and an McpHttp client."""
    clients = []

    def start(*flags, headers=None):
        server = start_server("--threads", "1", *flags, binary="mcp_server")
        client = McpHttp(server, headers=headers)
        clients.append(client)
        return server, client

    yield start
    for c in clients:
        c.close()


def test_handshake_answers_json_with_a_session_id(mcp):
    _, c = mcp()
    r = c.post(request(1, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS}), session=False)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    sid = r.headers["mcp-session-id"]
    assert len(sid) == 32 and all(0x21 <= ord(ch) <= 0x7E for ch in sid)
    result = r.json()["result"]
    assert r.json()["id"] == 1
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "slipstream-mcp-example", "title": "Slipstream MCP example",
                                    "version": "0.1.0"}
    assert result["capabilities"]["tools"] == {"listChanged": True}
    c.session = sid
    c.version = "2025-06-18"
    accepted = c.post(notification("notifications/initialized"))
    assert (accepted.status_code, accepted.content) == (202, b"")
    answer, _ = c.call(2, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
    assert answer["result"]["structuredContent"] == {"result": 5}


def test_unknown_version_gets_our_latest(mcp):
    _, c = mcp()
    r = c.post(request(1, "initialize", {"protocolVersion": "1999-01-01", **INIT_PARAMS}), session=False)
    assert r.json()["result"]["protocolVersion"] == "2025-11-25"


def test_session_header_rules(mcp):
    _, c = mcp()
    c.initialize()
    missing = c.post(request(1, "ping"), session=False)
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == -32600
    unknown = c.post(request(1, "ping"), {"Mcp-Session-Id": "not-a-session"})
    assert unknown.status_code == 404
    bad_version = c.post(request(1, "ping"), {"MCP-Protocol-Version": "2020-01-01"})
    assert bad_version.status_code == 400
    # initialize negotiates in its body; a header there is not checked.
    init = c.post(request(2, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS}),
                  {"MCP-Protocol-Version": "2026-07-28"}, session=False)
    assert init.status_code == 200
    no_version = c.http.post(c.url, content=json.dumps(request(2, "ping")),
                             headers={"Accept": ACCEPT_BOTH, "Content-Type": "application/json",
                                      "Mcp-Session-Id": c.session})
    assert (no_version.status_code, no_version.json()["result"]) == (200, {})


def test_accept_content_type_and_method_rules(mcp):
    _, c = mcp()
    c.initialize()
    assert c.post(request(1, "ping"), {"Accept": "application/json"}).status_code == 406
    assert c.post(request(1, "ping"), {"Accept": "text/event-stream"}).status_code == 406
    assert c.post(request(1, "ping"), {"Content-Type": "text/plain"}).status_code == 415
    get = c.http.get(c.url, headers={"Accept": "application/json", "Mcp-Session-Id": c.session})
    assert get.status_code == 406
    assert c.http.put(c.url, content=b"{}").status_code == 405


def test_foreign_origin_is_forbidden(mcp):
    server, c = mcp("--allowed-origin", "http://localhost:*")
    body = request(0, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS})
    assert c.post(body, {"Origin": "https://evil.example"}, session=False).status_code == 403
    assert c.post(body, {"Origin": "http://localhost:5173"}, session=False).status_code == 200
    assert c.post(body, {"Origin": f"http://127.0.0.1:{server.port}"}, session=False).status_code == 200


def test_dns_rebinding_host_is_forbidden(mcp):
    server, c = mcp("--allowed-host", "mcp.test")
    body = request(0, "initialize", {"protocolVersion": "2025-11-25", **INIT_PARAMS})
    evil = c.post(body, {"Host": "evil.example.com", "Origin": "http://evil.example.com"}, session=False)
    assert evil.status_code == 403
    assert evil.json()["error"]["message"] == "Forbidden: Host not allowed"
    assert c.post(body, {"Host": f"localhost:{server.port}"}, session=False).status_code == 200
    assert c.post(body, {"Host": "mcp.test"}, session=False).status_code == 200


def test_message_size_limit_is_413(mcp):
    _, c = mcp("--max-message-bytes", "4096")
    c.initialize()
    big = c.post(request(1, "tools/call", {"name": "echo", "arguments": {"text": "x" * 5000}}))
    assert big.status_code == 413
    ok, _ = c.call(2, "tools/call", {"name": "echo", "arguments": {"text": "x" * 3000}})
    assert ok["result"]["content"][0]["text"] == "x" * 3000


def test_session_limits_and_idle_expiry(mcp):
    _, c = mcp("--sessions-per-principal", "2", "--session-idle-ms", "300")
    body = request(0, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS})
    first = c.post(body, session=False)
    assert c.post(body, session=False).status_code == 200
    full = c.post(body, session=False)
    assert full.status_code == 429
    assert full.json()["error"]["message"] == "Too many sessions for this principal"
    # Idle sessions go, which frees their places (a refused initialize touches no session).
    poll(lambda: c.post(body, session=False).status_code, lambda status: status == 200, "idle sessions to expire")
    c.session, c.version = first.headers["mcp-session-id"], "2025-06-18"
    assert c.post(request(1, "ping")).status_code == 404


def test_malformed_json_rpc(mcp):
    _, c = mcp()
    c.initialize()
    parse = c.post(b'{"jsonrpc":"2.0",')
    assert parse.status_code == 400
    assert parse.json()["error"]["code"] == -32700
    invalid = c.post(b'{"jsonrpc":"1.0","id":3,"method":"ping"}').json()
    assert invalid == {"jsonrpc": "2.0", "id": 3,
                       "error": {"code": -32600, "message": "Invalid Request: \"jsonrpc\" must be \"2.0\""}}
    unknown, _ = c.call("x-1", "no/such/method")
    assert unknown == {"jsonrpc": "2.0", "id": "x-1",
                       "error": {"code": -32601, "message": "Method not found: no/such/method"}}
    bad_params, _ = c.call(4, "tools/call", {"name": 5})
    assert bad_params["error"]["code"] == -32602
    unknown_tool, _ = c.call(5, "tools/call", {"name": "nope"})
    assert unknown_tool["error"] == {"code": -32602, "message": "Unknown tool: nope"}


def test_deeply_nested_and_huge_arguments(mcp):
    _, c = mcp()
    c.initialize()
    deep = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":' + \
        "[" * 5000 + "]" * 5000 + "}}}"
    r = c.post(deep.encode())
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32600
    wide = c.post(request(2, "tools/call", {"name": "echo", "arguments": {"text": "y", **{f"k{i}": i for i in range(20000)}}}))
    assert wide.status_code == 400
    huge, _ = c.call(3, "tools/call", {"name": "echo", "arguments": {"text": "z" * 600_000}})
    assert len(huge["result"]["content"][0]["text"]) == 600_000
    invalid, _ = c.call(4, "tools/call", {"name": "add", "arguments": {"a": [1, [2]], "c": 1}})
    assert invalid["result"]["isError"] is True
    assert invalid["result"]["content"][0]["text"] == (
        "Invalid arguments for tool 'add':\n/b: Field required\n/a: Input should be a valid number\n"
        "/c: Extra inputs are not permitted")


def test_sse_answer_carries_progress_and_logs_before_the_result(mcp):
    _, c = mcp()
    c.initialize()
    r = c.post(request(7, "tools/call", {"name": "slow", "arguments": {"ms": 30, "steps": 3},
                                         "_meta": {"progressToken": "tok"}}))
    assert r.headers["content-type"].startswith("text/event-stream")
    events = [e["data"] for e in sse_events(r.text)]
    assert events[0] == {"jsonrpc": "2.0", "method": "notifications/message",
                         "params": {"level": "info", "logger": "slow", "data": "slow started"}}
    assert [e["params"]["progress"] for e in events[1:4]] == [1, 2, 3]
    assert all(e["params"]["progressToken"] == "tok" and e["params"]["total"] == 3 for e in events[1:4])
    assert events[4] == {"jsonrpc": "2.0", "id": 7,
                         "result": {"content": [{"type": "text", "text": "done"}], "isError": False}}


def test_quick_answers_stay_json_and_json_response_mode_never_streams(mcp):
    _, c = mcp()
    c.initialize()
    _, r = c.call(1, "tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    assert r.headers["content-type"] == "application/json"
    _, j = mcp("--json-response")
    j.initialize()
    answer, r = j.call(2, "tools/call", {"name": "slow", "arguments": {"ms": 10, "steps": 2},
                                         "_meta": {"progressToken": 1}})
    assert r.headers["content-type"] == "application/json"
    assert answer["result"]["content"][0]["text"] == "done"


def test_get_stream_delivers_server_messages_and_resumes_from_last_event_id(mcp):
    _, c = mcp()
    c.initialize()
    assert c.call(1, "resources/subscribe", {"uri": "info://server"})[0]["result"] == {}
    get_headers = {"Accept": "text/event-stream", "Mcp-Session-Id": c.session, "MCP-Protocol-Version": c.version}
    with c.http.stream("GET", c.url, headers=get_headers) as live:
        assert live.status_code == 200
        assert live.headers["content-type"].startswith("text/event-stream")
        c.call(2, "tools/call", {"name": "touch", "arguments": {}})
        first = read_events(live, 1)
    assert first == [{"id": "1", "data": {"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                          "params": {"uri": "info://server"}}}]
    # Missed while no stream is open: kept for the reconnect.
    c.call(3, "tools/call", {"name": "toggle", "arguments": {}})
    c.call(4, "tools/call", {"name": "touch", "arguments": {}})
    with c.http.stream("GET", c.url, headers={**get_headers, "Last-Event-ID": "1"}) as resumed:
        replay = read_events(resumed, 2)
    assert [(e["id"], e["data"]["method"]) for e in replay] == [
        ("2", "notifications/tools/list_changed"), ("3", "notifications/resources/updated")]


def test_a_resumable_post_stream_survives_its_connection(mcp):
    _, c = mcp("--resumable-streams")
    c.initialize("2025-11-25")
    body = json.dumps(request(5, "tools/call", {"name": "slow", "arguments": {"ms": 300, "steps": 3},
                                                "_meta": {"progressToken": "r"}}))
    with c.http.stream("POST", c.url, content=body, headers=c.headers()) as first:
        seen = read_events(first, 2)
    assert seen[0] == {"id": "1-0", "data": None}  # the priming event (2025-11-25)
    assert (seen[1]["id"], seen[1]["data"]["method"]) == ("1-1", "notifications/message")
    # The connection is gone, the call goes on; GET with the last id reads the rest of that stream.
    headers = {"Accept": "text/event-stream", "Mcp-Session-Id": c.session, "MCP-Protocol-Version": c.version,
               "Last-Event-ID": "1-1"}
    with c.http.stream("GET", c.url, headers=headers) as resumed:
        rest = read_events(resumed, 4)
    assert [e["id"] for e in rest] == ["1-2", "1-3", "1-4", "1-5"]
    assert [e["data"]["params"]["progress"] for e in rest[:3]] == [1, 2, 3]
    assert rest[3]["data"] == {"jsonrpc": "2.0", "id": 5,
                               "result": {"content": [{"type": "text", "text": "done"}], "isError": False}}
    stats = c.call(6, "tools/call", {"name": "stats", "arguments": {}})[0]["result"]["structuredContent"]
    assert stats["slow_cancelled"] == 0
    # A finished stream replays what was kept, then ends.
    with c.http.stream("GET", c.url, headers={**headers, "Last-Event-ID": "1-4"}) as again:
        assert [e["id"] for e in sse_events(again.read().decode())] == ["1-5"]


def test_release_stream_ends_the_connection_and_get_reads_the_rest(mcp):
    _, c = mcp("--resumable-streams", "--stream-retry-ms", "250")
    c.initialize("2025-11-25")
    r = c.post(request(8, "tools/call", {"name": "slow", "arguments": {"ms": 200, "steps": 2, "release": True}}))
    body = r.text
    assert body.startswith("retry: 250\n")
    events = sse_events(body)
    assert [e["id"] for e in events] == ["1-0", "1-1"]  # priming, the log; then the connection ended
    assert events[1]["data"]["method"] == "notifications/message"
    headers = {"Accept": "text/event-stream", "Mcp-Session-Id": c.session, "MCP-Protocol-Version": c.version,
               "Last-Event-ID": "1-1"}
    with c.http.stream("GET", c.url, headers=headers) as resumed:
        rest = read_events(resumed, 1)
    assert rest[0]["data"]["result"]["content"] == [{"type": "text", "text": "done"}]


def test_delete_ends_the_session(mcp):
    _, c = mcp()
    c.initialize()
    sid = {"Mcp-Session-Id": c.session}
    assert c.http.delete(c.url, headers=sid).status_code == 200
    assert c.post(request(1, "ping")).status_code == 404
    assert c.http.delete(c.url, headers=sid).status_code == 404
    assert c.http.delete(c.url).status_code == 400


def test_batches_only_on_2025_03_26(mcp):
    _, old = mcp()
    old.initialize("2025-03-26")
    r = old.post([request(1, "ping"), request(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}),
                  notification("notifications/progress")])
    assert r.status_code == 200
    answers = {a["id"]: a for a in r.json()}
    assert answers[1]["result"] == {}
    assert answers[2]["result"]["content"] == [{"type": "text", "text": '{"result":2}'}]
    assert "structuredContent" not in answers[2]["result"]  # 2025-03-26 has no structured results
    assert old.post([notification("notifications/progress")]).status_code == 202
    init_in_batch = old.post([request(9, "initialize", {"protocolVersion": "2025-03-26"})]).json()
    assert init_in_batch[0]["error"]["code"] == -32600
    _, new = mcp()
    new.initialize("2025-06-18")
    refused = new.post([request(1, "ping")]).json()
    assert refused["error"]["code"] == -32600


def test_another_principals_session_id_is_unknown(mcp, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text(f"alice {ALICE_KEY}\nbob {BOB_KEY}\n")
    server, alice = mcp("--auth", "required", "--api-keys-file", str(keys), headers={"X-API-Key": ALICE_KEY})
    alice.initialize()
    bob = McpHttp(server, headers={"X-API-Key": BOB_KEY})
    try:
        bob.session, bob.version = alice.session, alice.version
        assert bob.post(request(1, "ping")).status_code == 404
        assert bob.http.delete(bob.url, headers={"Mcp-Session-Id": alice.session}).status_code == 404
    finally:
        bob.close()
    assert alice.call(2, "ping")[0]["result"] == {}
    anonymous = httpx.post(alice.url, content=json.dumps(request(3, "ping")),
                           headers={"Accept": ACCEPT_BOTH, "Content-Type": "application/json",
                                    "Mcp-Session-Id": alice.session})
    assert anonymous.status_code == 401


def test_cancelled_notification_stops_slow(mcp):
    server, c = mcp()
    c.initialize()
    result = {}

    def run():
        r = c.post(request(42, "tools/call", {"name": "slow", "arguments": {"ms": 20000, "steps": 200},
                                              "_meta": {"progressToken": 1}}))
        result["body"] = r.text

    t = threading.Thread(target=run)
    t.start()
    other = McpHttp(server)
    other.session, other.version = c.session, c.version
    try:
        # A cancel that arrives before the request is ignored (the spec allows that), so it is repeated until the
        # request's stream ends.
        while t.is_alive():
            cancel = other.post(notification("notifications/cancelled", {"requestId": 42, "reason": "test"}))
            assert cancel.status_code == 202
            t.join(timeout=0.05)
        assert not t.is_alive(), "the cancelled request's stream did not end"
    finally:
        other.close()
    assert all("id" not in e["data"] for e in sse_events(result["body"]) if e["data"]), result["body"][-300:]  # no answer
    assert_slow_cancelled(c)


def test_client_disconnect_cancels_the_running_tool(mcp):
    _, c = mcp()
    c.initialize()
    body = json.dumps(request(9, "tools/call", {"name": "slow", "arguments": {"ms": 20000, "steps": 200}}))
    with c.http.stream("POST", c.url, content=body, headers=c.headers()) as r:
        assert read_events(r, 1)[0]["data"]["params"]["data"] == "slow started"
    # The connection is gone: the call is cancelled, and the tool's thread stopped.
    assert_slow_cancelled(c)


def assert_slow_cancelled(c, count=1):
    """Waits (bounded) until the example counted `count` slow calls stopped by cancellation."""
    poll(lambda: c.call(900, "tools/call", {"name": "stats", "arguments": {}})[0]["result"]["structuredContent"],
         lambda stats: stats["slow_cancelled"] >= count, "the slow tool to stop")


def test_stateless_mode(mcp):
    _, c = mcp("--stateless")
    r = c.post(request(1, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS}), session=False)
    assert r.status_code == 200 and "mcp-session-id" not in r.headers
    c.version = "2025-06-18"
    answer, _ = c.call(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    assert answer["result"]["structuredContent"] == {"result": 3}
    assert c.http.get(c.url, headers={"Accept": "text/event-stream"}).status_code == 405
    assert c.http.delete(c.url).status_code == 405


def test_resources_prompts_completion_over_http(mcp):
    _, c = mcp()
    c.initialize("2025-11-25")
    read, _ = c.call(1, "resources/read", {"uri": "greeting://ada"})
    assert read["result"] == {"contents": [{"uri": "greeting://ada", "mimeType": "text/plain", "text": "Hello, ada!"}]}
    missing, _ = c.call(2, "resources/read", {"uri": "nothing://here"})
    assert missing["error"] == {"code": -32002, "message": "Resource not found", "data": {"uri": "nothing://here"}}
    prompt, _ = c.call(3, "prompts/get", {"name": "review", "arguments": {"code": "x = 1"}})
    assert prompt["result"]["messages"][0]["content"]["text"] == "Please review this code:\n\nx = 1"
    complete, _ = c.call(4, "completion/complete", {"ref": {"type": "ref/prompt", "name": "review"},
                                                    "argument": {"name": "code", "value": "pr"}})
    assert complete["result"]["completion"] == {"values": ["print('hello')"], "total": 1, "hasMore": False}
    failed, _ = c.call(5, "tools/call", {"name": "fail", "arguments": {}})
    assert failed["result"] == {"content": [{"type": "text", "text": "this tool always fails"}], "isError": True}


def test_handshake_json_and_sse_answers_over_every_protocol(serve):
    """h1, h1 over TLS, h2c and h2: the same session rules and answers (the SSE one with its progress events)."""
    client = serve(binary="mcp_server")  # the HTTP/1.1 client sends "Host: t": a single label passes the Host check
    base = [("Accept", ACCEPT_BOTH), ("Content-Type", "application/json")]

    def post(message, session=None):
        headers = base + ([("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-11-25")] if session else [])
        return client.request("POST", "/mcp", headers, json.dumps(message).encode())

    init = post(request(1, "initialize", {"protocolVersion": "2025-11-25", **INIT_PARAMS}))
    assert init.status == 200
    sid = init.header("mcp-session-id")
    assert json.loads(init.body)["result"]["protocolVersion"] == "2025-11-25"
    assert post(notification("notifications/initialized"), sid).status == 202
    add = post(request(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}), sid)
    assert (add.header("content-type"), json.loads(add.body)["result"]["structuredContent"]) == (
        "application/json", {"result": 2})
    slow = post(request(3, "tools/call", {"name": "slow", "arguments": {"ms": 10, "steps": 2},
                                          "_meta": {"progressToken": 3}}), sid)
    assert slow.header("content-type").startswith("text/event-stream")
    events = [e["data"] for e in sse_events(slow.body.decode())]
    assert [e.get("method") for e in events] == ["notifications/message", "notifications/progress",
                                                  "notifications/progress", None]
    assert events[-1]["id"] == 3
    assert post(request(4, "ping"), "unknown-session").status == 404
    assert client.request("DELETE", "/mcp", [("Mcp-Session-Id", sid)]).status == 200
