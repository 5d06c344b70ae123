"""slipstream.sessions on a Python app, on real sockets (TestClient, and raw http.client / an SSE stream on its
port): App(sessions=...) and app.sessions() mount the C++ session routes next to Python routes (listed in
/openapi.json, counted on /metrics); the AgentSession dependency appends, reads events and state and updates the
state with an expected version (409 on a stale one) from async handlers (awaited) and def handlers (session.sync);
what a handler writes is what the routes read and the reverse (on SQLite and on a throwaway PostgreSQL); two apps
on one SQLite file share sessions; principals come from the engine's auth; bad options and stores raise."""

import asyncio
import http.client
import socket

import pytest
from slipstream import App, Depends, TestClient
from slipstream.sessions import AgentSession, SessionError, Sessions, agent_session

SESSION = Depends(agent_session)  # what `session: AgentSession = Depends(agent_session)` spells inline


def url(tmp_path, name: str = "sessions.db") -> str:
    return f"sqlite://{tmp_path}/{name}"


def chat_app(store) -> App:
    """Python routes that use the dependency: an async one and a def one over the same operations."""
    app = App(sessions=store)

    @app.post("/chat/{session_id}")
    async def chat(message: dict, session: AgentSession = SESSION) -> dict:
        added = await session.append("user", message, idempotency_key=message.get("key"))
        state = await session.state()
        turns = state.document.get("turns", 0) + 1
        written = await session.update_state({**state.document, "turns": turns}, version=state.version)
        return {"appended": added, "version": written.version, "events": await session.events()}

    @app.post("/chat-sync/{session_id}")
    def chat_sync(message: dict, session: AgentSession = SESSION) -> dict:
        added = session.sync.append(events=[{"role": "user", "content": message}, {"role": "tool", "content": 1}])
        state = session.sync.state()
        written = session.sync.update_state({"turns": 99}, version=state.version)
        return {"appended": added, "version": written.version, "events": session.sync.events(after=1, limit=1)}

    @app.put("/stale/{session_id}")
    async def stale(session: AgentSession = SESSION) -> dict:
        await session.update_state({"lost": True}, version=1)  # raises SessionError(409) once the state moved on
        return {}

    @app.put("/stale-sync/{session_id}")
    def stale_sync(session: AgentSession = SESSION) -> dict:
        try:
            session.sync.update_state({"lost": True}, version=1)
        except SessionError as e:
            return {"status": e.status_code, "current_version": e.current_version}
        return {}

    return app


def test_handlers_and_routes_share_the_sessions(database_url):
    app = chat_app(database_url)  # a fresh SQLite file, or the session's PostgreSQL cluster
    with TestClient(app) as c:
        made = c.post("/sessions", json={"state": {"turns": 0}})
        assert made.status_code == 201
        sid = made.json()["id"]

        first = c.post(f"/chat/{sid}", json={"text": "hi", "key": "k1"}).json()
        assert first["appended"] == {"first_seq": 1, "last_seq": 1, "replayed": False}
        assert first["version"] == 2
        assert [(e["seq"], e["role"], e["content"]) for e in first["events"]] == [
            (1, "user", {"text": "hi", "key": "k1"})
        ]
        again = c.post(f"/chat/{sid}", json={"text": "hi", "key": "k1"}).json()
        assert again["appended"] == {"first_seq": 1, "last_seq": 1, "replayed": True}
        assert again["version"] == 3

        synced = c.post(f"/chat-sync/{sid}", json={"text": "sync"}).json()
        assert synced["appended"] == {"first_seq": 2, "last_seq": 3, "replayed": False}
        assert synced["version"] == 4
        assert [e["seq"] for e in synced["events"]] == [2]

        # The C++ routes read what the handlers wrote, and the reverse.
        page = c.get(f"/sessions/{sid}/events").json()
        assert [(e["seq"], e["role"]) for e in page["events"]] == [(1, "user"), (2, "user"), (3, "tool")]
        state = c.get(f"/sessions/{sid}/state")
        assert (state.json(), state.headers["etag"]) == ({"turns": 99}, '"4"')
        assert c.post(f"/sessions/{sid}/events", json={"role": "assistant", "content": "ok"}).status_code == 201
        assert c.post(f"/chat/{sid}", json={"text": "more"}).json()["appended"]["first_seq"] == 5

        # A stale expected version: 409 from the async handler (SessionError unhandled), caught in the def one.
        conflict = c.put(f"/stale/{sid}")
        assert (conflict.status_code, conflict.json()["detail"]) == (409, "the state changed: version 5 is current")
        assert c.put(f"/stale-sync/{sid}").json() == {"status": 409, "current_version": 5}

        # Unknown sessions are 404s through the dependency too.
        assert c.post("/chat/AAAAAAAAAAAAAAAAAAAAAA", json={"text": "x"}).status_code == 404

        doc = c.get("/openapi.json").json()
        assert {"/chat/{session_id}", "/sessions", "/sessions/{id}/events", "/sessions/{id}/state"} <= set(doc["paths"])
        assert doc["paths"]["/sessions/{id}/events"]["post"]["tags"] == ["sessions"]
        metrics = c.get("/metrics").text
        assert "slipstream_sessions_appends_total 4\n" in metrics
        assert "slipstream_sessions_conflicts_total 2\n" in metrics


def test_a_real_socket_follows_what_a_handler_appends(database_url):
    app = chat_app(database_url)
    with TestClient(app) as c:
        sid = c.post("/sessions", json={}).json()["id"]
        with socket.create_connection(("127.0.0.1", c.port), timeout=10) as follower:
            follower.sendall(f"GET /sessions/{sid}/events?follow=1 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            received = b""
            while b"\r\n\r\n" not in received:
                received += follower.recv(4096)
            assert received.startswith(b"HTTP/1.1 200")
            conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=10)
            conn.request("POST", f"/chat/{sid}", body=b'{"text":"live"}', headers={"Content-Type": "application/json"})
            assert conn.getresponse().status == 200
            conn.close()
            while b'"live"' not in received:
                received += follower.recv(4096)
            assert b"id: 1\n" in received


def test_two_apps_on_one_sqlite_file_share_sessions(tmp_path):
    one, two = chat_app(url(tmp_path, "shared.db")), chat_app(url(tmp_path, "shared.db"))
    with TestClient(one) as a, TestClient(two) as b:
        sid = a.post("/sessions", json={"state": {"turns": 0}}).json()["id"]
        assert a.post(f"/chat/{sid}", json={"text": "from one"}).status_code == 200
        assert b.post(f"/chat/{sid}", json={"text": "from two"}).status_code == 200
        for client in (a, b):
            events = client.get(f"/sessions/{sid}/events").json()["events"]
            assert [e["content"]["text"] for e in events] == ["from one", "from two"]
            assert client.get(f"/sessions/{sid}/state").json() == {"turns": 2}


def test_one_sessions_object_on_two_apps_and_outside_handlers(tmp_path):
    shared = Sessions(url(tmp_path), max_events=3)
    first, second = App(), App()
    assert first.sessions(shared) is shared
    second.sessions(shared, prefix="/v2/sessions")
    with TestClient(first) as a, TestClient(second) as b:
        session = shared.sync.create("alice", state={"n": 1})
        assert session.sync.append(events=[{"role": "user", "content": i} for i in range(3)])["last_seq"] == 3
        with pytest.raises(SessionError) as full:
            session.sync.append("user", "one too many")
        assert full.value.status_code == 409 and full.value.problem["limit"] == "events_per_session"
        # alice's session: the anonymous principal of the routes may not read it.
        assert a.get(f"/sessions/{session.id}").status_code == 403
        assert b.get(f"/v2/sessions/{session.id}").status_code == 403
        with pytest.raises(SessionError) as forbidden:
            shared.session(session.id).sync.state()
        assert forbidden.value.status_code == 403
        assert shared.session(session.id, "alice").sync.state() == (({"n": 1}), 1)


@pytest.mark.parametrize(
    ("options", "error"),
    [({"max_events": 0}, ValueError), ({"nonsense": 1}, ValueError), ({"buffered": "yes"}, ValueError),
     ({"append_in_flight": 0}, ValueError), ({"append_batch": 10001}, ValueError)],
)
def test_bad_options_raise(tmp_path, options, error):
    with pytest.raises(error):
        Sessions(url(tmp_path), **options)


def test_a_store_that_cannot_open_raises(tmp_path):
    with pytest.raises(RuntimeError, match="session store"):
        Sessions(f"sqlite://{tmp_path}/no/such/folder/s.db")


def test_the_dependency_needs_sessions_and_an_id(tmp_path):
    app = App()

    @app.get("/x/{session_id}")
    def x(session: AgentSession = SESSION) -> dict:
        return {}

    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.get("/x/abc").status_code == 500


def test_awaited_outside_a_request_on_any_loop(tmp_path):
    shared = Sessions(url(tmp_path))

    async def work() -> tuple:
        session = await shared.create("bob", metadata={"topic": "x"}, state={"n": 0})
        added = await session.append(events=[{"role": "user", "content": 1}, {"role": "assistant", "content": 2}])
        written = await session.update_state({"n": 1}, version=1, patch=True)
        return session.principal, added, await session.events(after=1), written

    principal, added, events, written = asyncio.run(work())
    assert principal == "bob"
    assert added == {"first_seq": 1, "last_seq": 2, "replayed": False}
    assert [(e["seq"], e["content"]) for e in events] == [(2, 2)]
    assert written == ({"n": 1}, 2)
    shared.close()


def test_principals_come_from_the_engines_auth(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("alice alice-key-0123456789abcdef\nbob bob-key-0123456789abcdef00\n")
    app = App(sessions=url(tmp_path), auth="optional", api_keys_file=str(keys))

    @app.get("/mine/{session_id}")
    async def mine(session: AgentSession = SESSION) -> dict:
        return {"principal": session.principal, "state": (await session.state()).document}

    with TestClient(app) as c:
        alice, bob = {"X-API-Key": "alice-key-0123456789abcdef"}, {"X-API-Key": "bob-key-0123456789abcdef00"}
        sid = c.post("/sessions", json={"state": {"x": 1}}, headers=alice).json()["id"]
        assert c.get(f"/mine/{sid}", headers=alice).json() == {"principal": "alice", "state": {"x": 1}}
        assert c.get(f"/mine/{sid}", headers=bob).status_code == 403
        anonymous = c.get(f"/mine/{sid}")
        assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"] == "Bearer"
        assert c.get(f"/sessions/{sid}").status_code == 401  # the routes agree


def test_concurrent_appends_of_many_sessions_share_statements(pg_cluster):
    """PostgreSQL with one statement out at a time: appends that wait go out together; each gets its own range."""
    import concurrent.futures

    sessions = Sessions(pg_cluster.url, append_in_flight=1, append_batch=8)
    try:
        made = [sessions.sync.create("alice") for _ in range(6)]

        def add(i: int) -> tuple[str, int]:
            session = made[i % len(made)]
            return session.id, session.sync.append("user", {"n": i}, idempotency_key=f"k{i}")["first_seq"]

        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(add, range(60)))
        by_session: dict[str, list[int]] = {}
        for sid, seq in answers:
            by_session.setdefault(sid, []).append(seq)
        assert sorted(map(sorted, by_session.values())) == [list(range(1, 11))] * 6
        again = made[0].sync.append("user", {"n": 0}, idempotency_key="k0")
        assert again["replayed"] is True
        logged = made[0].sync.events(limit=100)
        assert [e["seq"] for e in logged] == list(range(1, 11))
        assert sorted(e["content"]["n"] for e in logged) == list(range(0, 60, 6))
    finally:
        sessions.close()
