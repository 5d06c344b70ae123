"""The validated LLM proxy route (`slipstream-serve --llm-upstream URL --llm-proxy-schema FILE`) against a fake
OpenAI-compatible upstream started here (asyncio on a real socket) that streams canned chat.completion.chunk events:
valid output, output invalid at several points, truncated, slow, stalled, error statuses; the client's own
disconnect; and, when the binary can load it, the project's own inference server (`--model models/tiny-kjv.gguf`)
as the upstream, with response_format json_schema so its output is valid."""
import asyncio
import json
import socket
import ssl
import subprocess
import time

import pytest

from tests.conftest import BUILD, ROOT, Server
from tests.e2e.asyncio_server import ThreadedAsyncioServer, serving
from tests.e2e.certs import make_pki
from tests.e2e.streams import sse_events

httpx = pytest.importorskip("httpx", reason="httpx is not installed")

SERVE = BUILD / "src/app/slipstream-serve"

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
    "additionalProperties": False,
}

# What the fake upstream streams, by the request's "model".
SCRIPTS = {
    "valid": ['{"na', 'me": "Ada', ' Lovelace", ', '"age": 36', "}"],
    "invalid-key": ['{"name": "x", "e', 'mail": "a@b"', "}"],
    "invalid-type": ['{"name": 12', "3}"],
    "invalid-end": ['{"name": "a", "age": -1', "}"],
    "invalid-missing": ['{"age": 3', "}"],
    "chatter": ["Sure! Here it is: ", '{"name": "x"}'],
    "truncated": ['{"name": "Ad', 'a", "age"'],
    # tool calls: (tool call index, function name or None, a piece of its arguments)
    "tool-valid": [(0, "get_weather", '{"ci'), (0, None, 'ty": "Paris", '), (0, None, '"unit": "c"}')],
    "tool-invalid": [(0, "get_weather", '{"city": '), (0, None, "12")] + [(0, None, " ")] * 30 + [(0, None, "}")],
    "tool-unknown": [(0, "launch", "{}")],
    "tool-truncated": [(0, "get_weather", '{"city": "Paris"')],
    "tool-and-content": ['{"name": "Ada", ', '"age": 36}', (0, "get_weather", '{"city": "Rome"}')],
}

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
    "required": ["city"], "additionalProperties": False}}}


class FakeUpstream(ThreadedAsyncioServer):
    """An OpenAI-compatible /v1/chat/completions on 127.0.0.1 (keep-alive, chunked SSE), run on its own thread."""

    def __init__(self, ssl_context=None):
        self.requests = []  # (head text, parsed body)
        self.disconnects = 0  # streams whose client went away before the end
        self.pieces_sent = {}  # model -> pieces written before it ended
        super().__init__(ssl_context)

    async def _serve(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                text = head.decode("latin-1")
                length = 0
                for line in text.split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = json.loads(await reader.readexactly(length)) if length else {}
                self.requests.append((text, body))
                if not await self._answer(body.get("model", ""), writer, body):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    @staticmethod
    def _chunk(data):
        data = data.encode() if isinstance(data, str) else data
        return b"%x\r\n%s\r\n" % (len(data), data)

    @staticmethod
    def _event(content, finish=None):
        obj = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "fake",
               "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]}
        return f"data: {json.dumps(obj)}\n\n"

    @classmethod
    def _piece_event(cls, piece):
        """A content piece, or (index, name, arguments) of a tool call (the name and an id in its first piece)."""
        if isinstance(piece, str):
            return cls._event(piece)
        index, name, arguments = piece
        call = {"index": index, "function": {"arguments": arguments}}
        if name:
            call.update(id=f"call_{index}", type="function")
            call["function"]["name"] = name
        obj = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "fake",
               "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
        return f"data: {json.dumps(obj)}\n\n"

    async def _answer(self, model, writer, request=None):
        """Writes one response; False when the connection must close."""
        if model == "500":
            body = b'{"error": {"message": "the model crashed", "type": "server_error"}}'
            writer.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            return True
        if model == "429":
            body = b'{"error": {"message": "rate limited"}}'
            writer.write(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            return True
        if model == "silent":
            await asyncio.sleep(5)
            return False
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        if model == "stall":
            writer.write(self._chunk(self._event('{"name": ')))
            await writer.drain()
            await asyncio.sleep(5)
            return False
        if model in ("slow", "endless"):
            pieces = ['{"name": "'] + ["a"] * (400 if model == "endless" else 20) + ['", "age": 1}']
            gap = 0.05 if model == "slow" else 0.02
        else:
            pieces = SCRIPTS[model]
            gap = 0.01
        sent = 0
        try:
            for i, piece in enumerate(pieces):
                if model == "truncated" and i == len(pieces) - 1:
                    writer.write(self._chunk(self._piece_event(piece)))
                    await writer.drain()
                    return False  # closes without the last chunk or [DONE]
                writer.write(self._chunk(self._piece_event(piece)))
                await writer.drain()
                sent += 1
                await asyncio.sleep(gap)
            finish = self._event("", "tool_calls" if model.startswith("tool-") else "stop")
            if (request or {}).get("stream_options", {}).get("include_usage"):
                usage = {"prompt_tokens": 12, "completion_tokens": len(pieces), "total_tokens": 12 + len(pieces)}
                finish += "data: " + json.dumps({"id": "c1", "object": "chat.completion.chunk", "choices": [],
                                                 "usage": usage}) + "\n\n"
            writer.write(self._chunk(finish) + self._chunk("data: [DONE]\n\n") + b"0\r\n\r\n")
            await writer.drain()
        except ConnectionError:
            self.disconnects += 1
            return False
        finally:
            self.pieces_sent[model] = sent
        return True


@pytest.fixture(scope="module")
def upstream():
    yield from serving(FakeUpstream())


def start_proxy(upstream_url, tmp_path, *flags):
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built (ninja -C build slipstream-serve)")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    return Server([str(SERVE), "--port", "0", "--threads", "1", "--llm-upstream", upstream_url,
                   "--llm-upstream-api-key", "sk-upstream", "--llm-proxy-schema", str(schema), *flags])


@pytest.fixture(scope="module")
def proxy(upstream, tmp_path_factory):
    s = start_proxy(upstream.url, tmp_path_factory.mktemp("proxy"), "--llm-upstream-first-byte-timeout", "1s",
                    "--llm-upstream-idle-timeout", "1s")
    yield s
    s.stop()


def request(model, **extra):
    return {"model": model, "messages": [{"role": "user", "content": "Who wrote the first program?"}], **extra}


def post(server, body, path="/v1/structured", headers=None):
    with httpx.Client(timeout=30) as c:
        return c.post(server.url + path, json=body, headers=headers or {})


def events_of(response):
    assert response.headers["content-type"].startswith("text/event-stream"), response.text
    return [(event, json.loads(data)) for event, _, data in sse_events(response.text)]


def test_valid_stream_partial_snapshots_then_the_document(proxy, upstream):
    r = post(proxy, request("valid"), headers={"Authorization": "Bearer client-token"})
    assert r.status_code == 200
    assert r.headers["cache-control"] == "no-cache"
    events = events_of(r)
    assert events[0] == ("partial", {})
    assert ("partial", {"name": "Ada"}) in events
    assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
    assert all(kind == "partial" for kind, _ in events[:-1])
    head, body = upstream.requests[-1]
    assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n")
    assert "Authorization: Bearer sk-upstream\r\n" in head
    assert "client-token" not in head  # the client's credentials never go upstream
    assert body["stream"] is True
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "output", "schema": SCHEMA, "strict": True}}
    assert body["messages"] == request("valid")["messages"]


@pytest.mark.parametrize("model,pointer,keyword", [
    ("invalid-key", "/e", "additionalProperties"),
    ("invalid-type", "/name", "type"),
    ("invalid-end", "/age", "minimum"),
    ("invalid-missing", "", "required"),
    ("chatter", "", "json"),
])
def test_invalid_output_ends_with_an_error_event_naming_where(proxy, upstream, model, pointer, keyword):
    r = post(proxy, request(model))
    assert r.status_code == 200
    events = events_of(r)
    kind, error = events[-1]
    assert kind == "error"
    assert error["pointer"] == pointer and error["keyword"] == keyword
    assert isinstance(error["offset"], int) and error["message"]
    assert all(k == "partial" for k, _ in events[:-1])


def test_output_is_rejected_at_the_first_byte_that_proves_it(proxy, upstream):
    r = post(proxy, request("invalid-key"))
    kind, error = events_of(r)[-1]
    # '{"name": "x", "e' : no property starts with "e"; offset 15 is that byte. The rest was never fed.
    assert (kind, error["offset"]) == ("error", 15)
    assert "no allowed property name starts with 'e'" in error["message"]


def test_truncated_upstream_stream_is_an_upstream_error_event(proxy):
    events = events_of(post(proxy, request("truncated")))
    kind, error = events[-1]
    assert kind == "error" and error["keyword"] == "upstream"
    assert "closed the connection" in error["message"]


def test_stalled_upstream_ends_with_an_idle_timeout_event(proxy):
    t0 = time.monotonic()
    events = events_of(post(proxy, request("stall")))
    assert time.monotonic() - t0 < 4
    kind, error = events[-1]
    assert kind == "error" and error["keyword"] == "upstream"
    assert "idle timeout" in error["message"]


def test_slow_upstream_streams_as_it_goes(proxy):
    with httpx.Client(timeout=30) as c, c.stream("POST", proxy.url + "/v1/structured", json=request("slow")) as r:
        assert r.status_code == 200
        first = time.monotonic()
        arrivals = []
        for line in r.iter_lines():
            if line.startswith("event:"):
                arrivals.append(time.monotonic() - first)
    # 22 pieces 50 ms apart: events arrive spread over the stream, not all at the end.
    assert len(arrivals) >= 20
    assert arrivals[-1] - arrivals[0] > 0.5


def test_upstream_error_statuses_and_timeouts_come_before_the_head(proxy):
    r = post(proxy, request("500"))
    assert r.status_code == 502
    err = r.json()["error"]
    assert err["code"] == "upstream_status" and err["upstream_status"] == 500
    assert "the model crashed" in err["message"]
    assert err["upstream_error"]["type"] == "server_error"
    r = post(proxy, request("429"))
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    r = post(proxy, request("silent"))
    assert r.status_code == 504
    assert r.json()["error"]["code"] == "upstream_timeout"
    assert "first-byte timeout" in r.json()["error"]["message"]


def test_bad_requests_are_refused_before_the_upstream(proxy, upstream):
    before = len(upstream.requests)
    r = post(proxy, {"model": "valid", "messages": [], "n": 2})
    assert r.status_code == 400 and "'n' must be 1" in r.json()["error"]["message"]
    with httpx.Client(timeout=10) as c:
        r = c.post(proxy.url + "/v1/structured", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
    assert len(upstream.requests) == before


def test_client_disconnect_cancels_the_upstream_call(proxy, upstream):
    body = json.dumps(request("endless")).encode()
    s = socket.create_connection((proxy.host, proxy.port), timeout=10)
    s.sendall(b"POST /v1/structured HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    got = b""
    while got.count(b"event: partial") < 3:
        data = s.recv(65536)
        assert data
        got += data
    disconnects = upstream.disconnects
    s.close()
    deadline = time.monotonic() + 5
    while upstream.disconnects == disconnects and time.monotonic() < deadline:
        time.sleep(0.02)
    assert upstream.disconnects == disconnects + 1  # the upstream saw its client (the proxy) go away
    assert upstream.pieces_sent["endless"] < 300  # long before the 402 pieces were written


def test_ndjson_deltas(upstream, tmp_path):
    s = start_proxy(upstream.url, tmp_path, "--llm-proxy-format", "ndjson", "--llm-proxy-events", "delta",
                    "--llm-proxy-route", "/extract")
    try:
        r = post(s, request("valid"), path="/extract")
        assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
        lines = [json.loads(line) for line in r.text.splitlines()]
        assert [x["value"] for x in lines[:-1]] == SCRIPTS["valid"]
        assert all(x["type"] == "delta" for x in lines[:-1])
        assert lines[-1] == {"type": "complete", "value": {"name": "Ada Lovelace", "age": 36}}
    finally:
        s.stop()


def test_usage_is_passed_through(proxy, upstream):
    r = post(proxy, request("valid", stream_options={"include_usage": True}))
    events = events_of(r)
    assert events[-2:] == [("usage", {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}),
                           ("complete", {"name": "Ada Lovelace", "age": 36})]
    assert upstream.requests[-1][1]["stream_options"] == {"include_usage": True}
    assert all(kind != "usage" for kind, _ in events_of(post(proxy, request("valid"))))  # not asked: none


def test_tool_call_arguments_are_validated_as_they_stream(proxy, upstream):
    events = events_of(post(proxy, request("tool-valid", tools=[WEATHER])))
    assert events[-1] == ("tool_calls", {"tool_calls": [
        {"index": 0, "id": "call_0", "name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}]})
    assert upstream.requests[-1][1]["tools"] == [WEATHER]
    # A number where the tool wants a string: the error names the argument, and the upstream is cut early.
    kind, error = events_of(post(proxy, request("tool-invalid", tools=[WEATHER])))[-1]
    assert (kind, error["pointer"], error["keyword"], error["offset"]) == ("error", "/tool_calls/0/arguments/city",
                                                                          "type", 9)
    deadline = time.monotonic() + 5
    while "tool-invalid" not in upstream.pieces_sent and time.monotonic() < deadline:
        time.sleep(0.02)
    assert upstream.pieces_sent["tool-invalid"] < 20  # of 33: the proxy closed the connection
    kind, error = events_of(post(proxy, request("tool-unknown", tools=[WEATHER])))[-1]
    assert (kind, error["keyword"], error["pointer"]) == ("error", "tool", "/tool_calls/0/arguments")
    assert "'launch'" in error["message"]
    kind, error = events_of(post(proxy, request("tool-truncated", tools=[WEATHER])))[-1]
    assert (kind, error["keyword"], error["pointer"]) == ("error", "json", "/tool_calls/0/arguments")
    # Content and a call: the call, and the valid document under "content".
    events = events_of(post(proxy, request("tool-and-content", tools=[WEATHER])))
    assert events[-1] == ("tool_calls", {"tool_calls": [
        {"index": 0, "id": "call_0", "name": "get_weather", "arguments": {"city": "Rome"}}],
        "content": {"name": "Ada", "age": 36}})
    assert [k for k, _ in events[:-1]] == ["partial"] * (len(events) - 1)
    # Without tools in the request, tool calls are not checked (and no content is an error).
    kind, error = events_of(post(proxy, request("tool-valid")))[-1]
    assert (kind, error["keyword"]) == ("error", "json")


def test_bad_tool_definitions_are_refused_before_the_upstream(proxy, upstream):
    before = len(upstream.requests)
    r = post(proxy, request("tool-valid", tools=[{"type": "function", "function": {"parameters": {}}}]))
    assert r.status_code == 400 and "tools[0]" in r.json()["error"]["message"]
    bad_schema = {"type": "function", "function": {"name": "f", "parameters": {"type": 12}}}
    r = post(proxy, request("tool-valid", tools=[bad_schema]))
    assert r.status_code == 400 and "tools[0].function.parameters" in r.json()["error"]["message"]
    assert len(upstream.requests) == before


def test_tls_upstream_is_verified(tmp_path):
    pki = make_pki(tmp_path / "pki")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(pki.server_cert, pki.server_key)
    up = FakeUpstream(ctx)
    try:
        trusted = start_proxy(up.url, tmp_path, "--llm-upstream-ca-file", str(pki.ca_cert))
        try:
            for _ in range(2):  # the second call reuses the kept-alive TLS connection
                events = events_of(post(trusted, request("valid")))
                assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
        finally:
            trusted.stop()
        untrusted = start_proxy(up.url, tmp_path)  # the system store does not know the test CA
        try:
            r = post(untrusted, request("valid"))
            assert r.status_code == 502
            assert "certificate" in r.json()["error"]["message"]
        finally:
            untrusted.stop()
    finally:
        up.stop()


def test_unreachable_upstream_is_502(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    s = start_proxy(f"http://127.0.0.1:{port}", tmp_path)
    try:
        r = post(s, request("valid"))
        assert r.status_code == 502
        assert r.json()["error"]["code"] == "upstream_unavailable"
    finally:
        s.stop()


def test_start_up_refuses_a_missing_schema():
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built")
    p = subprocess.run([str(SERVE), "--port", "0", "--llm-upstream", "http://127.0.0.1:1"], capture_output=True,
                       text=True, timeout=30, check=False)
    assert p.returncode == 1 and "--llm-proxy-schema" in p.stderr


MODEL = ROOT / "models" / "tiny-kjv.gguf"


@pytest.mark.parametrize("http2", ["auto", "prior-knowledge"])
def test_against_our_own_inference_server(tmp_path, http2):
    """The proxy in front of `slipstream-serve --model`: the model's output is constrained by the response_format
    the proxy adds, so the stream validates and completes. Over HTTP/1.1 (auto, on http://) and over our own engine's
    HTTP/2 (h2c by prior knowledge)."""
    if not SERVE.exists() or not MODEL.exists():
        pytest.skip("slipstream-serve or models/tiny-kjv.gguf is missing")
    model = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(MODEL), "--model-id", "kjv",
                    "--model-threads", "2", "--model-kv-cache", "16m"])
    try:
        schema = {"type": "object", "properties": {"book": {"type": "string", "maxLength": 12},
                                                   "chapter": {"type": "integer"}},
                  "required": ["book", "chapter"], "additionalProperties": False}
        path = tmp_path / "kjv.json"
        path.write_text(json.dumps(schema))
        proxy = Server([str(SERVE), "--port", "0", "--threads", "1", "--llm-upstream", model.url,
                        "--llm-proxy-schema", str(path), "--llm-proxy-model", "kjv", "--llm-upstream-http2", http2])
        try:
            # The tiny model pads with whitespace (valid JSON): ~170 tokens; its context is 256.
            r = post(proxy, {"messages": [{"role": "user", "content": "In the beginning"}], "max_tokens": 220,
                             "temperature": 0})
            assert r.status_code == 200, r.text
            events = events_of(r)
            kind, doc = events[-1]
            assert kind == "complete", events[-3:]
            assert set(doc) == {"book", "chapter"} and isinstance(doc["chapter"], int)
            assert len(doc["book"]) <= 12
            metrics = httpx.get(model.url + "/metrics", timeout=10).text
            opened = [x for x in metrics.splitlines() if x.startswith("slipstream_http2_streams_opened_total")]
            assert float(opened[0].split()[-1]) == (1 if http2 == "prior-knowledge" else 0), opened
        finally:
            proxy.stop()
    finally:
        model.stop()
