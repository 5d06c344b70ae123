"""The validated LLM proxy against HTTP/2 upstreams (`--llm-upstream-http2`): a fake OpenAI-compatible upstream
written with the `h2` library (h2c by prior knowledge, and TLS where ALPN chooses h2), streaming the same canned
chunks as tests/e2e/test_llm_proxy.py; early aborts and client disconnects reset only their stream (RST_STREAM),
concurrent calls share one connection; tests/e2e/test_llm_proxy.py runs
the proxy over h2c to our own engine's HTTP/2 (`slipstream-serve --model`)."""

import asyncio
import concurrent.futures
import json
import socket
import ssl
import time

import pytest

from tests.e2e.asyncio_server import ThreadedAsyncioServer, serving
from tests.e2e.certs import make_pki
from tests.e2e.test_llm_proxy import SCRIPTS, FakeUpstream, events_of, post, request, start_proxy

h2_connection = pytest.importorskip("h2.connection", reason="the h2 package is not installed")
h2_config = pytest.importorskip("h2.config")
h2_events = pytest.importorskip("h2.events")
h2_exceptions = pytest.importorskip("h2.exceptions")


class H2Upstream(ThreadedAsyncioServer):
    """An OpenAI-compatible /v1/chat/completions over HTTP/2 on 127.0.0.1, on its own thread (asyncio + h2)."""

    def __init__(self, ssl_context=None):
        self.requests = []  # (headers dict, parsed body, connection number)
        self.resets = []  # models whose stream the client reset
        self.connections = 0
        self.alpn = []  # the protocol ALPN chose, per TLS connection
        self.active = 0
        self.max_active = 0
        super().__init__(ssl_context)

    async def _serve(self, reader, writer):
        self.connections += 1
        number = self.connections
        ssl_object = writer.get_extra_info("ssl_object")
        if ssl_object is not None:
            self.alpn.append(ssl_object.selected_alpn_protocol())
        conn = h2_connection.H2Connection(h2_config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        writer.write(conn.data_to_send())
        heads, bodies, models, tasks = {}, {}, {}, []
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for ev in conn.receive_data(data):
                    if isinstance(ev, h2_events.RequestReceived):
                        heads[ev.stream_id] = dict(ev.headers)
                        bodies[ev.stream_id] = b""
                    elif isinstance(ev, h2_events.DataReceived):
                        bodies[ev.stream_id] += ev.data
                        conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    elif isinstance(ev, h2_events.StreamEnded):
                        body = json.loads(bodies[ev.stream_id] or b"{}")
                        self.requests.append((heads[ev.stream_id], body, number))
                        models[ev.stream_id] = body.get("model", "")
                        tasks.append(
                            asyncio.ensure_future(self._answer(conn, writer, ev.stream_id, models[ev.stream_id]))
                        )
                    elif isinstance(ev, h2_events.StreamReset):
                        self.resets.append(models.get(ev.stream_id, "?"))
                writer.write(conn.data_to_send())
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            for t in tasks:
                t.cancel()
            writer.close()

    async def _answer(self, conn, writer, stream_id, model):
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            conn.send_headers(stream_id, [(":status", "200"), ("content-type", "text/event-stream")])
            if model in ("slow", "endless"):
                pieces = ['{"name": "'] + ["a"] * (400 if model == "endless" else 10) + ['", "age": 1}']
            else:
                pieces = SCRIPTS[model]
            for piece in pieces:
                conn.send_data(stream_id, FakeUpstream._event(piece).encode())
                writer.write(conn.data_to_send())
                await writer.drain()
                await asyncio.sleep(0.03 if model in ("slow", "endless") else 0.01)
            conn.send_data(stream_id, (FakeUpstream._event("", "stop") + "data: [DONE]\n\n").encode(), end_stream=True)
            writer.write(conn.data_to_send())
            await writer.drain()
        except (h2_exceptions.StreamClosedError, h2_exceptions.ProtocolError, ConnectionError):
            pass
        finally:
            self.active -= 1


@pytest.fixture(scope="module")
def h2c():
    yield from serving(H2Upstream())


@pytest.fixture(scope="module")
def proxy_h2c(h2c, tmp_path_factory):
    s = start_proxy(
        h2c.url,
        tmp_path_factory.mktemp("proxy-h2c"),
        "--llm-upstream-http2",
        "prior-knowledge",
        "--llm-upstream-idle-timeout",
        "2s",
    )
    yield s
    s.stop()


def test_valid_stream_over_h2c(proxy_h2c, h2c):
    r = post(proxy_h2c, request("valid"), headers={"Authorization": "Bearer client-token"})
    assert r.status_code == 200
    events = events_of(r)
    assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
    head, body, _ = h2c.requests[-1]
    assert head[":method"] == "POST" and head[":path"] == "/v1/chat/completions"
    assert head[":authority"] == f"127.0.0.1:{h2c.port}"
    assert head["authorization"] == "Bearer sk-upstream"
    assert head["user-agent"] == "slipstream-llm-proxy"
    assert body["stream"] is True and body["messages"] == request("valid")["messages"]


def test_early_abort_resets_only_its_stream(proxy_h2c, h2c):
    connections = h2c.connections
    r = post(proxy_h2c, request("invalid-key"))
    kind, error = events_of(r)[-1]
    assert (kind, error["offset"], error["keyword"]) == ("error", 15, "additionalProperties")
    deadline = time.monotonic() + 5
    while "invalid-key" not in h2c.resets and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "invalid-key" in h2c.resets  # RST_STREAM, not a closed connection
    events = events_of(post(proxy_h2c, request("valid")))
    assert events[-1][0] == "complete"
    assert h2c.connections == connections  # the same connection carried the next call


def test_concurrent_calls_share_one_connection(proxy_h2c, h2c):
    before = h2c.connections
    h2c.max_active = 0
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: post(proxy_h2c, request("slow")), range(6)))
    for r in results:
        assert events_of(r)[-1] == ("complete", {"name": "a" * 10, "age": 1})
    assert h2c.connections == before
    assert h2c.max_active > 1  # streams in flight together on that connection


def test_client_disconnect_resets_the_upstream_stream(proxy_h2c, h2c):
    body = json.dumps(request("endless")).encode()
    s = socket.create_connection((proxy_h2c.host, proxy_h2c.port), timeout=10)
    s.sendall(
        b"POST /v1/structured HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    got = b""
    while got.count(b"event: partial") < 3:
        data = s.recv(65536)
        assert data
        got += data
    s.close()
    deadline = time.monotonic() + 5
    while "endless" not in h2c.resets and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "endless" in h2c.resets


def test_tls_upstream_chooses_h2_by_alpn(tmp_path):
    pki = make_pki(tmp_path / "pki")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(pki.server_cert, pki.server_key)
    ctx.set_alpn_protocols(["h2", "http/1.1"])
    up = H2Upstream(ctx)
    try:
        proxy = start_proxy(up.url, tmp_path, "--llm-upstream-ca-file", str(pki.ca_cert))  # http2 auto
        try:
            for _ in range(2):
                events = events_of(post(proxy, request("valid")))
                assert events[-1] == ("complete", {"name": "Ada Lovelace", "age": 36})
            assert up.alpn == ["h2"] and up.connections == 1
        finally:
            proxy.stop()
        off = start_proxy(up.url, tmp_path, "--llm-upstream-ca-file", str(pki.ca_cert), "--llm-upstream-http2", "off")
        try:
            # Offered http/1.1 only, this server (h2 only in its loop) cannot answer: the proxy says 502.
            r = post(off, request("valid"))
            assert r.status_code == 502
            assert up.alpn[-1] == "http/1.1"
        finally:
            off.stop()
    finally:
        up.stop()
