"""Resumable streams kept in the session store (examples/mcp_server.cpp --resumable-streams --mcp-store): a POST
stream dropped on one server process is resumed with GET and Last-Event-ID on another process sharing the SQLite file
or the PostgreSQL database (the events the call keeps producing on the first process reach the client on the
second), and after a restart; ids of other sessions, other principals and made-up ids replay nothing."""

import json
import signal

import pytest

from tests.e2e.mcp_http import read_events, request
from tests.e2e.test_mcp_store import ALICE_KEY, BOB_KEY, cluster, keys, mcp  # noqa: F401 (fixtures)

SLOW = {"name": "slow", "arguments": {"ms": 600, "steps": 3}, "_meta": {"progressToken": "r"}}


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """Store flags of processes sharing resumable streams: one SQLite file (polled), or PostgreSQL (NOTIFY)."""
    if request.param == "sqlite":
        return ["--resumable-streams", "--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    # The periodic read a minute apart: the events reach the other process through NOTIFY.
    url = request.getfixturevalue("cluster").url
    return ["--resumable-streams", "--mcp-store", url, "--mcp-store-poll-ms", "60000"]


def get_headers(c, last_event_id):
    return {
        "Accept": "text/event-stream",
        "Mcp-Session-Id": c.session,
        "MCP-Protocol-Version": c.version,
        "Last-Event-ID": last_event_id,
    }


def start_slow(c, id_, count=2):
    """POSTs the slow call, reads its first `count` events and drops the connection; returns those events."""
    with c.http.stream(
        "POST", c.url, content=json.dumps(request(id_, "tools/call", SLOW)), headers=c.headers()
    ) as first:
        assert first.headers["content-type"].startswith("text/event-stream")
        return read_events(first, count)


def resume(c, last_event_id, count=10):
    with c.http.stream("GET", c.url, headers=get_headers(c, last_event_id)) as resumed:
        assert resumed.status_code == 200
        return read_events(resumed, count)


def assert_rest_of_slow(rest, stream, id_):
    """Progress 1..3 then the answer, with the ids of `stream` after its priming event and log."""
    assert [e["id"] for e in rest] == [f"{stream}-{n}" for n in (2, 3, 4, 5)]
    assert [e["data"]["params"]["progress"] for e in rest[:3]] == [1, 2, 3]
    assert rest[3]["data"] == {
        "jsonrpc": "2.0",
        "id": id_,
        "result": {"content": [{"type": "text", "text": "done"}], "isError": False},
    }


def test_a_stream_dropped_on_one_process_resumes_on_another(mcp, store):  # noqa: F811 (the imported fixture)
    start, client = mcp
    a, b = start(store), start(store)
    on_a = client(a)
    on_a.initialize("2025-11-25")
    seen = start_slow(on_a, 5)
    assert seen[0]["data"] is None  # the priming event
    stream, n = seen[1]["id"].rsplit("-", 1)
    assert n == "1" and seen[1]["data"]["method"] == "notifications/message"
    # B replays what A stored and follows what A's call still produces, to its answer; then the stream ends.
    on_b = client(b, session=on_a.session, version=on_a.version)
    rest = resume(on_b, seen[1]["id"])
    assert_rest_of_slow(rest, stream, 5)
    stats = on_a.call(6, "tools/call", {"name": "stats", "arguments": {}})[0]["result"]["structuredContent"]
    assert stats["slow_cancelled"] == 0
    # A finished stream replays from any id, on either process.
    assert [e["id"] for e in resume(on_b, f"{stream}-3")] == [f"{stream}-4", f"{stream}-5"]
    assert [e["id"] for e in resume(on_a, f"{stream}-4")] == [f"{stream}-5"]


def read_elsewhere(servers, flags, id_):
    """A slow call's stream dropped on one process (after the log) and read to its end on another one; returns the
    two processes, the client of the first, the id of the log event and the stream's id."""
    start, client = servers
    first, other = start(flags), start(flags)
    c = client(first)
    c.initialize("2025-11-25")
    last = start_slow(c, id_)[1]["id"]
    stream = last.rsplit("-", 1)[0]
    assert_rest_of_slow(resume(client(other, session=c.session, version=c.version), last), stream, id_)
    return first, other, c, last, stream


def test_a_stream_resumes_after_a_restart(mcp, tmp_path):  # noqa: F811 (the imported fixture)
    start, client = mcp
    flags = ["--resumable-streams", "--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    # Read to its end through the other process (so every event is in the store), then restart both.
    first, other, c, last, stream = read_elsewhere(mcp, flags, 7)
    assert first.stop(signal.SIGTERM) == 0
    assert other.stop(signal.SIGTERM) == 0
    again = client(start(flags), session=c.session, version=c.version)
    assert_rest_of_slow(resume(again, last), stream, 7)


def test_foreign_and_made_up_event_ids_replay_nothing(mcp, tmp_path):  # noqa: F811 (the imported fixture)
    _, client = mcp
    flags = ["--resumable-streams", "--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    _, b, alice, last, stream = read_elsewhere(mcp, flags, 9)
    # Another session of the same principal, and one of another principal, on the other process: the id names a
    # stream of Alice's first session, which theirs do not have; their own GET stream opens instead.
    second = client(b)
    second.initialize("2025-11-25")
    bob = client(b, BOB_KEY)
    bob.initialize("2025-11-25")
    made_up = [
        last,
        f"{stream}-0",
        "0-0",
        "x-1",
        f"{stream}-99999999999999999999999",
        "-1",
        "a" * 300 + "-1",
        "1-2-3",
        stream,
    ]
    for c in (second, bob):
        assert c.call(1, "resources/subscribe", {"uri": "info://server"})[0]["result"] == {}
        for i, last in enumerate(made_up):
            with c.http.stream("GET", c.url, headers=get_headers(c, last)) as s:
                assert s.status_code == 200
                assert c.call(10 + i, "tools/call", {"name": "touch", "arguments": {}})[0]["result"]["content"]
                first_event = read_events(s, 1)[0]
            assert first_event["data"]["method"] == "notifications/resources/updated", last
            assert "-" not in first_event["id"]  # the session's own stream, nothing of Alice's replayed
    # Bob with Alice's session id: not his session.
    r = bob.http.get(bob.url, headers={**get_headers(bob, last), "Mcp-Session-Id": alice.session})
    assert r.status_code == 404


def test_the_official_sdk_resumes_a_stream_on_another_process(mcp, tmp_path):  # noqa: F811 (the imported fixture)
    """The SDK's own resumption: a call's resumption tokens (on_resumption_token_update), then a second client of the
    same session on another process sends the request again with the token of an event in the middle
    (ClientMessageMetadata.resumption_token): its GET with Last-Event-ID receives the rest and the result."""
    pytest.importorskip("mcp", reason="the official MCP SDK (python/requirements-dev.txt) is not installed")
    import anyio
    import httpx2
    import mcp_types
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.message import ClientMessageMetadata

    start, _ = mcp
    flags = ["--resumable-streams", "--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    a, b = start(flags), start(flags)
    auth = {"X-API-Key": ALICE_KEY}
    call = mcp_types.CallToolRequest(
        params=mcp_types.CallToolRequestParams(name="slow", arguments={"ms": 300, "steps": 3})
    )

    async def first():
        tokens, sessions = [], []

        async def remember(response):
            if "mcp-session-id" in response.headers:
                sessions.append(response.headers["mcp-session-id"])

        async def on_token(token):
            tokens.append(token)

        http = httpx2.AsyncClient(headers=auth, event_hooks={"response": [remember]})
        async with (
            http,
            streamable_http_client(a.url + "/mcp", http_client=http, terminate_on_close=False) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.send_request(
                call,
                mcp_types.CallToolResult,
                metadata=ClientMessageMetadata(on_resumption_token_update=on_token),
                progress_callback=on_progress,
            )
            assert result.content[0].text == "done"
        return sessions[0], tokens

    async def on_progress(value, total, message):
        pass

    async def again(session_id, token):
        http = httpx2.AsyncClient(headers={**auth, "Mcp-Session-Id": session_id})
        with anyio.fail_after(30):  # a GET that replayed nothing would wait for the answer forever
            return await resumed(http, token)

    async def resumed(http, token):
        async with (
            http,
            streamable_http_client(b.url + "/mcp", http_client=http, terminate_on_close=False) as (read, write),
            ClientSession(read, write) as session,
        ):
            result = await session.send_request(
                call, mcp_types.CallToolResult, metadata=ClientMessageMetadata(resumption_token=token)
            )
        return result

    session_id, tokens = anyio.run(first)
    # The priming event, the log, three progress notifications, the answer.
    assert [t.rsplit("-", 1)[1] for t in tokens] == ["0", "1", "2", "3", "4", "5"]
    result = anyio.run(again, session_id, tokens[2])  # after the first progress notification
    assert result.content[0].text == "done"
