"""App.llm_proxy / slipstream.llm_upstream: a route served by the engine that calls an OpenAI-compatible upstream
(the fake of tests/e2e/test_llm_proxy.py, asyncio on a real socket) and streams its output validated against a
pydantic model: valid streams (SSE partials, NDJSON deltas), output invalid mid-stream, a stream cut short, upstream
error statuses, the client's disconnect, the OpenAPI document and bad options."""
import json
import socket
import time

import pytest
from pydantic import BaseModel, Field
from slipstream import App, TestClient
from slipstream.llm_upstream import LlmRoute, Upstream

from tests.e2e.test_llm_proxy import FakeUpstream


class Person(BaseModel, extra="forbid"):
    name: str
    age: int = Field(ge=0)


@pytest.fixture(scope="module")
def fake():
    u = FakeUpstream()
    yield u
    u.stop()


@pytest.fixture(scope="module")
def client(fake):
    app = App()

    @app.get("/hello")
    def hello() -> dict:
        return {"hello": "world"}

    upstream = Upstream(fake.url, api_key="sk-upstream", headers={"OpenAI-Organization": "org-1"},
                        first_byte_timeout=2, idle_timeout=2)
    app.llm_proxy("/v1/person", Person, upstream=upstream)
    app.llm_proxy("/v1/person.ndjson", Person, upstream=upstream, format="ndjson", partial=False)
    app.llm_proxy("/v1/default", Person, upstream=Upstream(fake.url, model="valid"))

    @app.post("/py/{format}/{model}")
    async def from_python(format: str, model: str, n: int = 1):
        body = {"model": model, "messages": [{"role": "user", "content": "Who?"}], "n": n}
        return await upstream.stream(Person, body, format=format, partial=format == "sse", max_buffered=4)
    with TestClient(app) as c:
        c.upstream = upstream
        yield c


def ask(model=None, **extra):
    body = {"messages": [{"role": "user", "content": "Who wrote the first program?"}], **extra}
    if model is not None:
        body["model"] = model
    return body


def sse(response):
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = []
    for block in response.text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line and not line.startswith(":"))
        if "event" in fields:
            events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_valid_stream_is_partials_then_the_document(client, fake):
    assert client.get("/hello").json() == {"hello": "world"}
    r = client.post("/v1/person", json=ask("valid"), headers={"Authorization": "Bearer client-token"})
    events = sse(r)
    kinds = [k for k, _ in events]
    assert kinds[-1] == "complete" and set(kinds[:-1]) == {"partial"} and len(kinds) > 2
    assert events[-1][1] == {"name": "Ada Lovelace", "age": 36}
    assert Person.model_validate(events[-1][1]).name == "Ada Lovelace"
    head, body = fake.requests[-1]
    assert "authorization: bearer sk-upstream" in head.lower() and "client-token" not in head
    assert "openai-organization: org-1" in head.lower()
    assert body["stream"] is True
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "Person"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["name", "age"]


def test_ndjson_deltas_join_into_the_document(client):
    r = client.post("/v1/person.ndjson", json=ask("valid"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines() if line]
    assert {line["type"] for line in lines[:-1]} == {"delta"}
    assert lines[-1] == {"type": "complete", "value": {"name": "Ada Lovelace", "age": 36}}
    assert json.loads("".join(line["value"] for line in lines[:-1])) == lines[-1]["value"]


def test_the_upstreams_default_model(client, fake):
    events = sse(client.post("/v1/default", json=ask()))
    assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
    assert fake.requests[-1][1]["model"] == "valid"


@pytest.mark.parametrize("model,pointer,keyword", [
    ("invalid-key", "/e", "additionalProperties"),
    ("invalid-type", "/name", "type"),
    ("invalid-end", "/age", "minimum"),
    ("truncated", "", "upstream"),
])
def test_invalid_output_ends_with_an_error_event(client, model, pointer, keyword):
    events = sse(client.post("/v1/person", json=ask(model)))
    kind, error = events[-1]
    assert kind == "error" and [k for k, _ in events[:-1]] == ["partial"] * (len(events) - 1)
    assert error["pointer"] == pointer and error["keyword"] == keyword, error
    assert isinstance(error["offset"], int) and error["message"]


def test_upstream_failures_before_streaming_are_statuses(client):
    r = client.post("/v1/person", json=ask("500"))
    assert r.status_code == 502 and r.json()["error"]["message"]
    r = client.post("/v1/person", json=ask("429"))
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    r = client.post("/v1/person", json=ask("valid", n=2))
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
    r = client.post("/v1/person", content=b"[1, 2", headers={"content-type": "application/json"})
    assert r.status_code == 400


def hang_up_after_partials(port, request, partials=3):
    """Sends `request` on a new connection, reads until `partials` partial events came, then closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        reader = s.makefile("rb")
        assert reader.readline().startswith(b"HTTP/1.1 200")
        seen = 0
        while seen < partials:
            line = reader.readline()
            assert line, "the stream ended early"
            seen += line.startswith(b"event: partial")
        reader.close()


def wait_for_cancelled(upstream, before):
    """The upstream's cancelled counter once it moved past `before` (or as it is after 10 s)."""
    deadline = time.monotonic() + 10
    while upstream.stats()["cancelled"] == before and time.monotonic() < deadline:
        time.sleep(0.02)
    return upstream.stats()["cancelled"]


def test_client_disconnect_cancels_the_upstream_call(client, fake):
    before = client.upstream.stats()["cancelled"]
    body = json.dumps(ask("endless")).encode()
    hang_up_after_partials(client.port, b"POST /v1/person HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                                        b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    assert wait_for_cancelled(client.upstream, before) == before + 1
    deadline = time.monotonic() + 10
    while fake.pieces_sent.get("endless") is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake.pieces_sent["endless"] < 300  # cut long before the 402 pieces were written


def test_stats_count_outcomes(client):
    stats = client.upstream.stats()
    assert stats["completed"] >= 2 and stats["invalid"] >= 3 and stats["refused"] >= 2
    assert set(stats) == {"started", "refused", "completed", "invalid", "failed", "cancelled", "active"}
    metrics = client.get("/metrics").text
    assert f"slipstream_llm_proxy_completed_total {stats['completed']}" in metrics


def test_openapi_documents_the_route(client):
    doc = client.get("/openapi.json").json()
    op = doc["paths"]["/v1/person"]["post"]
    assert op["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ChatCompletionRequest"}
    assert "text/event-stream" in op["responses"]["200"]["content"]
    assert "application/x-ndjson" in doc["paths"]["/v1/person.ndjson"]["post"]["responses"]["200"]["content"]
    assert set(op["responses"]) >= {"200", "400", "502", "504"}
    schemas = doc["components"]["schemas"]
    assert schemas["Person"]["required"] == ["name", "age"]
    assert schemas["ChatCompletionRequest"]["required"] == ["messages"]
    assert "/hello" in doc["paths"]


def test_unreachable_upstream_is_502():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = App()
    app.llm_proxy("/v1/person", Person, upstream=Upstream(f"http://127.0.0.1:{port}", connect_timeout=2))
    with TestClient(app) as c:
        r = c.post("/v1/person", json=ask("valid"))
    assert r.status_code == 502 and r.json()["error"]["message"]


def test_tool_calls_end_a_handlers_stream(fake):
    """A request naming tools: the model's calls, validated, are the final event of upstream.stream()."""
    from tests.e2e.test_llm_proxy import WEATHER

    app = App()
    upstream = Upstream(fake.url)

    @app.post("/tools")
    async def tools():
        return await upstream.stream(Person, ask("tool-valid", tools=[WEATHER], stream_options={"include_usage": True}))

    with TestClient(app) as c:
        events = sse(c.post("/tools"))
    assert [k for k, _ in events] == ["usage", "tool_calls"]
    assert events[-1][1]["tool_calls"][0]["arguments"] == {"city": "Paris", "unit": "c"}


def test_an_http2_upstream():
    """Upstream(..., http2="prior-knowledge") speaks h2c to an HTTP/2-only upstream (the `h2` package's, from
    tests/e2e/test_llm_proxy_h2.py): the route's stream and a handler's upstream.stream() both validate."""
    pytest.importorskip("h2.connection", reason="the h2 package is not installed")
    from tests.e2e.test_llm_proxy_h2 import H2Upstream

    h2 = H2Upstream()
    try:
        app = App()
        upstream = Upstream(h2.url, http2="prior-knowledge", max_streams=8)
        app.llm_proxy("/v1/person", Person, upstream=upstream)

        @app.post("/py")
        async def from_python():
            return await upstream.stream(Person, ask("valid"))

        with TestClient(app) as c:
            assert sse(c.post("/v1/person", json=ask("valid")))[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
            assert sse(c.post("/py"))[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
        assert h2.connections == 1 and len(h2.requests) == 2
        assert h2.requests[0][0][":path"] == "/v1/chat/completions"
    finally:
        h2.stop()


def test_bad_options_raise(fake):
    with pytest.raises(ValueError):
        Upstream(fake.url, http2="h3")
    with pytest.raises(ValueError):
        Upstream("ftp://example.com")
    with pytest.raises(ValueError):
        Upstream(fake.url, idle_timeout=0)
    with pytest.raises(ValueError):
        Upstream(fake.url, max_connections=0)
    with pytest.raises(ValueError):
        Upstream(fake.url, ca_file="/nonexistent/ca.pem")
    upstream = Upstream(fake.url)
    with pytest.raises(ValueError):
        LlmRoute(Person, upstream, format="xml")
    with pytest.raises(ValueError):
        LlmRoute({"type": 5}, upstream)
    with pytest.raises(TypeError):
        LlmRoute(Person, fake.url)
    app = App()
    app.llm_proxy("/a", {"type": "object"}, upstream=upstream)
    app.llm_proxy("/a", {"type": "object"}, upstream=upstream)
    with pytest.raises(ValueError):
        app.build()  # the same route twice


def test_a_handler_streams_the_upstream_call(client, fake):
    events = sse(client.post("/py/sse/valid"))
    assert [k for k, _ in events[:-1]] == ["partial"] * (len(events) - 1) and len(events) > 2
    assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
    assert fake.requests[-1][1]["response_format"]["json_schema"]["name"] == "Person"
    r = client.post("/py/ndjson/valid")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines() if line]
    assert json.loads("".join(line["value"] for line in lines[:-1])) == lines[-1]["value"]
    assert lines[-1] == {"type": "complete", "value": {"name": "Ada Lovelace", "age": 36}}


def test_a_handler_stream_invalid_and_refused(client):
    kind, error = sse(client.post("/py/sse/invalid-key"))[-1]
    assert kind == "error" and error["pointer"] == "/e" and error["keyword"] == "additionalProperties"
    kind, error = sse(client.post("/py/sse/truncated"))[-1]
    assert kind == "error" and error["keyword"] == "upstream"
    r = client.post("/py/sse/500")
    assert r.status_code == 502 and r.json()["error"]["message"]
    r = client.post("/py/sse/429")
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    r = client.post("/py/sse/valid?n=2")  # refused before the upstream is called
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"


def test_a_handler_stream_is_cancelled_when_the_client_goes_away(client):
    before = client.upstream.stats()["cancelled"]
    hang_up_after_partials(client.port, b"POST /py/sse/endless HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
    assert wait_for_cancelled(client.upstream, before) == before + 1


def test_a_route_that_returns_the_upstream_request(fake):
    upstream = Upstream(fake.url)
    app = App()

    @app.post("/v1/ask", response_stream=Person, upstream=upstream)
    async def ask_person(model: str, question: str = "Who?"):
        return {"model": model, "messages": [{"role": "user", "content": question}]}

    @app.post("/v1/ask-sync", response_stream=Person, upstream=upstream)
    def ask_person_sync(model: str):
        return json.dumps({"model": model, "messages": [{"role": "user", "content": "Who?"}]})

    with TestClient(app) as c:
        events = sse(c.post("/v1/ask?model=valid&question=Ada%3F"))
        assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
        assert fake.requests[-1][1]["messages"][0]["content"] == "Ada?"
        assert sse(c.post("/v1/ask-sync?model=invalid-type"))[-1][1]["pointer"] == "/name"
        assert c.post("/v1/ask?model=500").status_code == 502
        assert c.post("/v1/ask").status_code == 422  # the handler's own parameters are validated first
        doc = c.get("/openapi.json").json()
    assert "text/event-stream" in doc["paths"]["/v1/ask"]["post"]["responses"]["200"]["content"]
    with pytest.raises(TypeError):
        app.post("/x", upstream=upstream)(ask_person)
    with pytest.raises(TypeError):
        app.post("/x", response_stream=Person, upstream=fake.url)(ask_person)


def test_a_stream_dropped_before_it_is_sent_is_cancelled(fake):
    class Ask(BaseModel):
        model: str
        messages: list[dict]
        temperature: float | None = None

    upstream = Upstream(fake.url)
    app = App()

    @app.post("/dropped")
    async def dropped():
        response = await upstream.stream(Person, Ask(model="endless", messages=[{"role": "user", "content": "x"}]))
        assert response.status_code == 200
        return {"dropped": True}  # the streamed response is never sent

    with TestClient(app) as c:
        assert c.post("/dropped").json() == {"dropped": True}
        assert wait_for_cancelled(upstream, 0) == 1
    assert "temperature" not in fake.requests[-1][1]  # None fields of the model are left out
