"""MCP sessions in a session store (examples/mcp_server.cpp --mcp-store): a session made by one server process is
served by another on the same SQLite file or PostgreSQL database and by a restarted process; DELETE through one ends
it everywhere; another principal never reaches it."""
import concurrent.futures
import json
import signal
import subprocess
import threading

import pytest

from tests.conftest import example_binary
from tests.e2e.mcp_http import INIT_PARAMS, McpHttp, request, sse_events
from tests.pg_cluster import PgCluster, find_bindir

ALICE_KEY = "alice-mcp-key-0123456789abcdef"
BOB_KEY = "bob-mcp-key-0123456789abcdefgh"


@pytest.fixture
def keys(tmp_path):
    path = tmp_path / "keys.txt"
    path.write_text(f"alice {ALICE_KEY}\nbob {BOB_KEY}\n")
    return path


@pytest.fixture
def mcp(start_server, keys):
    """start(store, *flags) -> server: the example MCP server with auth and its sessions in `store`."""
    clients = []

    def start(store_flags, *flags):
        return start_server("--threads", "1", "--auth", "required", "--api-keys-file", str(keys), *store_flags,
                            *flags, binary="mcp_server")

    def client(server, key=ALICE_KEY, session=None, version="2025-06-18"):
        c = McpHttp(server, headers={"X-API-Key": key})
        c.session, c.version = session, version if session else None
        clients.append(c)
        return c

    yield start, client
    for c in clients:
        c.close()


def add(c, id_):
    answer, r = c.call(id_, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
    return r.status_code, answer.get("result", {}).get("structuredContent")


def logs_of_slow(c, id_):
    """The notifications/message a slow call sends before its answer (an SSE stream; JSON when none came first)."""
    r = c.post(request(id_, "tools/call", {"name": "slow", "arguments": {"ms": 0, "steps": 1}}))
    assert r.status_code == 200, r.text
    if r.headers["content-type"] == "application/json":
        assert r.json()["result"]["content"] == [{"type": "text", "text": "done"}]
        return []
    return [e["data"] for e in sse_events(r.text) if e["data"] and e["data"].get("method") == "notifications/message"]


def shared_session_across_processes(mcp, store_flags):
    start, client = mcp
    a, b = start(store_flags), start(store_flags)
    on_a = client(a)
    on_a.initialize()
    assert add(on_a, 1) == (200, {"result": 5})
    on_b = client(b, session=on_a.session)
    # The other process serves it: the negotiated version and the log level come from the store.
    assert add(on_b, 2) == (200, {"result": 5})
    assert len(logs_of_slow(on_b, 3)) == 1  # info, the default level
    answer, _ = on_a.call(4, "logging/setLevel", {"level": "error"})
    assert answer["result"] == {}
    assert logs_of_slow(on_b, 5) == []  # B reads A's change
    # Another principal with the same id: unknown, on both.
    for server in (a, b):
        r = client(server, BOB_KEY, session=on_a.session).post(request(6, "ping"))
        assert r.status_code == 404
    # DELETE through B ends it for A too.
    assert on_b.http.delete(on_b.url, headers=on_b.headers()).status_code == 200
    r = on_a.post(request(7, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}))
    assert r.status_code == 404
    assert on_a.http.delete(on_a.url, headers=on_a.headers()).status_code == 404
    return a, b


def test_two_processes_share_sessions_on_one_sqlite_file(mcp, tmp_path):
    shared_session_across_processes(mcp, ["--mcp-store", "sqlite", "--data-dir", str(tmp_path / "data")])
    assert (tmp_path / "data" / "mcp.db").exists()


def test_a_session_survives_a_restart(mcp, tmp_path):
    start, client = mcp
    flags = ["--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    first = start(flags)
    c = client(first)
    c.initialize()
    answer, _ = c.call(1, "logging/setLevel", {"level": "error"})
    assert answer["result"] == {}
    assert first.stop(signal.SIGTERM) == 0
    again = start(flags)
    c2 = client(again, session=c.session)
    assert add(c2, 2) == (200, {"result": 5})
    assert logs_of_slow(c2, 3) == []
    # Without a store the same restart forgets it.
    plain = start([])
    p = client(plain)
    p.initialize()
    plain.stop(signal.SIGTERM)
    assert client(start([]), session=p.session).post(request(4, "ping")).status_code == 404


def test_subscriptions_cross_processes(mcp, tmp_path):
    start, client = mcp
    flags = ["--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    a, b = start(flags), start(flags)
    on_a = client(a)
    on_a.initialize()
    assert on_a.call(1, "resources/subscribe", {"uri": "info://server"})[0]["result"] == {}
    # B learns the subscription from the store: its `touch` announces info://server on the session's GET stream.
    on_b = client(b, session=on_a.session)
    with on_b.http.stream("GET", on_b.url, headers={**on_b.headers(), "Accept": "text/event-stream"}) as stream:
        assert stream.status_code == 200
        assert add(on_b, 2)[0] == 200
        assert on_b.call(3, "tools/call", {"name": "touch", "arguments": {}})[0]["result"]["content"]
        buffer = ""
        for chunk in stream.iter_text():
            buffer += chunk
            if "notifications/resources/updated" in buffer:
                break
    events = [e["data"] for e in sse_events(buffer) if e["data"]]
    assert {"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "info://server"}} in events


def test_an_unopenable_store_stops_the_start(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = subprocess.run([example_binary("mcp_server"), "--port", "0", "--mcp-store", f"sqlite://{blocker}/mcp.db"],
                         capture_output=True, text=True, timeout=30, check=False)
    assert out.returncode == 1
    assert out.stderr.startswith("mcp_server: MCP session store: "), out.stderr


@pytest.fixture(scope="module")
def cluster():
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's server is not installed (scripts/setup.sh installs it)")
    c = PgCluster(bindir).start()
    yield c
    c.close()


def test_two_processes_share_sessions_on_postgresql(mcp, cluster):
    shared_session_across_processes(mcp, ["--mcp-store", cluster.url])
    assert cluster.psql("SELECT COUNT(*) FROM mcp_sessions").strip() == "0"


def test_a_get_stream_ends_when_another_process_deletes_its_session(mcp, tmp_path):
    start, client = mcp
    # A short idle limit makes the sweep (which re-reads sessions with open streams) run every second.
    flags = ["--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}", "--session-idle-ms", "4000"]
    a, b = start(flags), start(flags)
    on_a = client(a)
    on_a.initialize()
    on_b = client(b, session=on_a.session)
    with on_a.http.stream("GET", on_a.url, headers={**on_a.headers(), "Accept": "text/event-stream"}) as stream:
        assert stream.status_code == 200
        assert on_b.http.delete(on_b.url, headers=on_b.headers()).status_code == 200
        for _ in stream.iter_raw():  # keep-alive comments at most, until A ends the stream
            pass
    assert on_a.post(request(9, "ping")).status_code == 404


def test_an_unreachable_store_is_a_503_then_the_session_goes_on(mcp, cluster):
    start, client = mcp
    server = start(["--mcp-store", cluster.url])
    c = client(server)
    c.initialize()
    cluster.stop()
    try:
        r = c.post(request(1, "ping"))
        assert r.status_code == 503
        assert r.headers["retry-after"] == "1"
        assert r.json()["error"]["message"] == "Service Unavailable: the session store cannot be reached"
    finally:
        cluster.start()
    answer = None
    for attempt in range(50):  # the pool reconnects on its own; each try is bounded by the store's timeout
        r = c.post(request(2 + attempt, "ping"))
        if r.status_code == 200:
            answer = r.json()
            break
    assert answer is not None and answer["result"] == {}


def test_the_per_principal_limit_holds_when_creates_race_across_processes_on_postgresql(mcp, cluster):
    """Creates of one principal racing in two processes: exactly the limit succeed (on PostgreSQL the count and the
    INSERT run under the principal's advisory lock). A transaction of the test holds the table while the creates
    arrive, so they wait together and then go at once."""
    start, client = mcp
    flags = ["--mcp-store", cluster.url, "--sessions-per-principal", "3"]
    servers = [start(flags), start(flags)]
    cluster.psql("DELETE FROM mcp_sessions")
    holder = subprocess.Popen([cluster._tool("psql"), "-X", "-q", "-At", "-h", cluster.dir, "-p", "5432", "-U",
                               "slipstream", "-d", "postgres"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        holder.stdin.write("BEGIN; LOCK TABLE mcp_sessions IN SHARE MODE; SELECT 'locked';\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "locked"

        def create(i):
            c = client(servers[i % 2])
            r = c.post(request(0, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS}), session=False)
            return r.status_code

        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = pool.map(create, range(12))
            waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            for _ in range(200):  # until both processes' creates wait on the table (or their locks)
                if int(cluster.psql(waiting).strip()) >= 2:
                    break
                threading.Event().wait(0.05)
            holder.stdin.write("COMMIT;\n")
            holder.stdin.flush()
            statuses = sorted(answers)
    finally:
        holder.stdin.close()
        holder.wait(10)
    assert statuses == [200] * 3 + [429] * 9
    assert cluster.psql("SELECT COUNT(*) FROM mcp_sessions").strip() == "3"


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_store(request, tmp_path):
    """Store flags of two processes sharing sessions: one SQLite file (polled), or a throwaway PostgreSQL (LISTEN)."""
    if request.param == "sqlite":
        return ["--mcp-store", f"sqlite://{tmp_path / 'mcp.db'}"]
    # PostgreSQL's NOTIFY wakes the reader: with the periodic read a minute apart, the signals still arrive at once.
    return ["--mcp-store", request.getfixturevalue("cluster").url, "--mcp-store-poll-ms", "60000"]


def test_a_cancellation_reaching_another_process_stops_the_call(mcp, shared_store):
    start, client = mcp
    a, b = start(shared_store), start(shared_store)
    on_a = client(a)
    on_a.initialize()
    on_b = client(b, session=on_a.session)
    posted = []
    call = request(50, "tools/call", {"name": "slow", "arguments": {"ms": 20000, "steps": 1}})
    worker = threading.Thread(target=lambda: posted.append(client(a, session=on_a.session).post(call)))
    worker.start()
    cancelled = None
    for attempt in range(100):  # until A runs the call and reads B's signal (each cancellation is idempotent)
        r = on_b.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 50}})
        assert r.status_code == 202
        cancelled, _ = on_a.call(100 + attempt, "tools/call", {"name": "stats", "arguments": {}})
        if cancelled["result"]["structuredContent"]["slow_cancelled"] >= 1:
            break
        threading.Event().wait(0.1)
    worker.join(30)
    assert cancelled["result"]["structuredContent"]["slow_cancelled"] == 1
    assert posted and posted[0].status_code == 200 and '"result"' not in posted[0].text  # no answer after a cancel


def test_a_clients_answer_reaching_another_process_reaches_the_call(mcp, shared_store):
    start, client = mcp
    a, b = start(shared_store), start(shared_store)
    on_a = client(a)
    r = on_a.post(request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                                            "clientInfo": {"name": "e2e", "version": "1"}}), session=False)
    on_a.session, on_a.version = r.headers["mcp-session-id"], "2025-06-18"
    on_b = client(b, session=on_a.session)
    call = request(60, "tools/call", {"name": "ask", "arguments": {}})
    with on_a.http.stream("POST", on_a.url, content=json.dumps(call), headers=on_a.headers()) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        asked = next(json.loads(line[5:]) for line in lines if line.startswith("data:"))
        assert asked["method"] == "elicitation/create"
        answer = {"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
        assert on_b.post(answer).status_code == 202  # to the other process
        result = next(json.loads(line[5:]) for line in lines if line.startswith("data:"))
    assert result["id"] == 60
    assert result["result"]["content"][0]["text"] == 'Elicited: {"action":"accept","content":{"name":"Ada"}}'
