"""The session routes described and counted: their OpenAPI 3.1 document (--session-openapi) states the routes,
parameters, bodies and answers the server really has, and /metrics counts what the store did (creates, appends,
events, replays, state writes, conflicts, the buffered queue, the append latency histogram). Real sockets, the hello
server with --sessions on SQLite."""

import http.client
import json
import re


def call(server, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    fields = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        fields["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=fields)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    return resp.status, raw


def metric(text, name):
    """The value of an unlabelled sample `name`, or None when absent."""
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else None


def start(start_server, tmp_path, *flags):
    return start_server("--threads", "1", "--no-access-log", "--sessions", "--data-dir", str(tmp_path / "d"), *flags)


def test_the_openapi_document_describes_every_route_as_served(start_server, tmp_path):
    server = start(start_server, tmp_path)
    status, raw = call(server, "GET", "/openapi/sessions.json")
    assert status == 200
    doc = json.loads(raw)
    assert doc["openapi"].startswith("3.1")
    methods = {path: sorted(ops) for path, ops in doc["paths"].items()}
    assert methods == {
        "/sessions": ["delete", "get", "post"],
        "/sessions/{id}": ["delete", "get"],
        "/sessions/{id}/events": ["get", "post"],
        "/sessions/{id}/state": ["get", "patch", "put"],
    }
    append = doc["paths"]["/sessions/{id}/events"]["post"]
    assert append["tags"] == ["sessions"]
    assert {p["name"]: p["in"] for p in append["parameters"]} == {"id": "path", "Idempotency-Key": "header"}
    body = append["requestBody"]["content"]["application/json"]["schema"]
    assert body["oneOf"] == [{"required": ["events"]}, {"required": ["role", "content"]}]
    assert sorted(append["responses"]) == ["200", "201", "401", "403", "404", "409", "413", "422", "503"]
    created = append["responses"]["201"]["content"]["application/json"]["schema"]
    assert created["required"] == ["first_seq", "last_seq", "replayed"]
    assert doc["paths"]["/sessions/{id}"]["delete"]["responses"]["204"] == {"description": "No Content"}
    listing = {p["name"]: p["schema"] for p in doc["paths"]["/sessions"]["get"]["parameters"]}
    assert listing["limit"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}
    follow = doc["paths"]["/sessions/{id}/events"]["get"]["responses"]["200"]["content"]
    assert sorted(follow) == ["application/json", "text/event-stream"]
    assert doc["components"]["schemas"]["Problem"]["required"] == ["title", "status"]

    # What the document says is what the server does: a made session matches its schema's required fields.
    status, raw = call(server, "POST", "/sessions", {})
    schema = doc["paths"]["/sessions"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert status == 201 and sorted(json.loads(raw)) == sorted(schema["required"])


def test_the_document_moves_or_goes_with_the_flag(start_server, tmp_path):
    moved = start(start_server, tmp_path, "--session-openapi", "/v1/sessions-api.json")
    assert call(moved, "GET", "/v1/sessions-api.json")[0] == 200
    assert call(moved, "GET", "/openapi/sessions.json")[0] == 404
    off = start(start_server, tmp_path / "off", "--session-openapi", "off")
    assert call(off, "GET", "/openapi/sessions.json")[0] == 404


def test_metrics_count_what_the_store_did(start_server, tmp_path):
    server = start(start_server, tmp_path)
    ids = [json.loads(call(server, "POST", "/sessions", {})[1])["id"] for _ in range(3)]
    events = f"/sessions/{ids[0]}/events"
    assert call(server, "POST", events, {"role": "user", "content": "a"}, {"Idempotency-Key": "k1"})[0] == 201
    assert call(server, "POST", events, {"role": "user", "content": "a"}, {"Idempotency-Key": "k1"})[0] == 200
    batch = {"events": [{"role": "user", "content": 1}, {"role": "tool", "content": 2}]}
    assert call(server, "POST", events, batch)[0] == 201
    state = f"/sessions/{ids[1]}/state"
    assert call(server, "PUT", state, {"step": 2}, {"If-Match": '"1"'})[0] == 200
    assert call(server, "PUT", state, {"step": 3}, {"If-Match": '"1"'})[0] == 409
    assert call(server, "PATCH", state, {"more": True})[0] == 200
    assert call(server, "POST", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/events", {"role": "user", "content": 0})[0] == 404

    text = call(server, "GET", "/metrics")[1].decode()
    assert metric(text, "slipstream_sessions_created_total") == 3
    assert metric(text, "slipstream_sessions_appends_total") == 2
    assert metric(text, "slipstream_sessions_events_total") == 3
    assert metric(text, "slipstream_sessions_replayed_appends_total") == 1
    assert metric(text, "slipstream_sessions_state_writes_total") == 2
    assert metric(text, "slipstream_sessions_conflicts_total") == 1
    assert metric(text, "slipstream_sessions_queued_events") == 0
    assert metric(text, "slipstream_sessions_refused_appends_total") == 0
    assert metric(text, "slipstream_sessions_dropped_events_total") == 0
    # Every append the store answered (added, replayed, unknown session) was timed.
    assert metric(text, "slipstream_sessions_append_latency_seconds_count") == 4
    assert metric(text, 'slipstream_sessions_append_latency_seconds_bucket{le="+Inf"}') == 4


def test_buffered_metrics_show_the_queue_and_its_refusals(start_server, tmp_path):
    server = start(
        start_server, tmp_path, "--session-durability", "buffered", "--session-flush", "60s", "--session-queue", "3"
    )
    sid = json.loads(call(server, "POST", "/sessions", {})[1])["id"]
    too_many = {"events": [{"role": "user", "content": i} for i in range(4)]}
    assert call(server, "POST", f"/sessions/{sid}/events", too_many)[0] == 503
    # One queued event is under half the queue: nothing wakes the flusher before its 60 s.
    assert call(server, "POST", f"/sessions/{sid}/events", {"role": "user", "content": 0})[0] == 201
    text = call(server, "GET", "/metrics")[1].decode()
    assert metric(text, "slipstream_sessions_queued_events") == 1
    assert metric(text, "slipstream_sessions_refused_appends_total") == 1
    assert metric(text, "slipstream_sessions_appends_total") == 1
