"""TLS and HTTP/2 metrics in /metrics equal, exactly, what the clients did: handshakes by version and ALPN,
handshake failures, HTTP/2 connections by how they began, streams opened, RST_STREAM received and sent,
GOAWAY sent by code, flood defences by kind."""
import socket
import ssl

import pytest

from tests.e2e.helpers import (
    DATA,
    H2Client,
    UpgradedClient,
    curl,
    flood_continuation,
    flood_ping,
    flood_rapid_reset,
    frame,
    hpack_bomb,
    metric_samples,
    metrics_text,
    open_socket,
    raw_exchange,
)

SAMPLES = ("slipstream_tls_", "slipstream_http2_")


def metrics(server) -> dict[str, float]:
    """The TLS and HTTP/2 samples, fetched over a cleartext HTTP/1.1 connection (which counts in none of them)."""
    return metric_samples(metrics_text(server), SAMPLES)


def test_streams_resets_and_goaway_over_h2c(start_server):
    server = start_server("--threads", "1", "--max-body-bytes", "1k")
    c = H2Client(socket.create_connection((server.host, server.port), timeout=10))
    for _ in range(5):
        assert c.request("GET", "/hello")[0] == 200
    # Two streams the client resets (CANCEL) before they end.
    for _ in range(2):
        sid = c.start("POST", "/echo", [("content-type", "application/json")], b"{", end=False)
        c.conn.reset_stream(sid, error_code=8)
        c.flush()
    # A body over the limit: 413 before the request ended, then RST_STREAM(NO_ERROR) from the server.
    sid = c.start("POST", "/echo", [("content-type", "application/json")], b"x" * 2048, end=False)
    c.pump(lambda: c.responses[sid]["ended"])
    assert c.responses[sid]["headers"][":status"] == "413"
    assert c.request("GET", "/hello")[0] == 200  # the resets have been read by now
    # Another connection breaks the protocol (DATA on stream 0): GOAWAY PROTOCOL_ERROR.
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        raw_exchange(s, frame(DATA, 0, 0, b"x"))
    m = metrics(server)
    assert m['slipstream_http2_connections_total{via="prior_knowledge"}'] == 2
    assert m["slipstream_http2_streams_opened_total"] == 5 + 2 + 1 + 1
    assert m['slipstream_http2_rst_stream_received_total{code="CANCEL"}'] == 2
    assert m['slipstream_http2_rst_stream_sent_total{code="NO_ERROR"}'] == 1
    assert m['slipstream_http2_goaway_sent_total{code="PROTOCOL_ERROR"}'] == 1
    assert not any(k.startswith("slipstream_http2_flood") for k in m)
    assert m["slipstream_tls_handshake_failures_total"] == 0


@pytest.mark.parametrize(("attack", "flags", "kind"), [
    (flood_ping, ["--h2-control-burst", "50"], "control_frames"),
    (flood_rapid_reset, ["--h2-reset-burst", "50"], "rapid_reset"),
    (flood_continuation, [], "continuation"),
    (hpack_bomb, [], "hpack_bomb"),
])
def test_flood_defences_by_kind(start_server, attack, flags, kind):
    server = start_server("--threads", "1", *flags)
    for _ in range(2):
        with socket.create_connection((server.host, server.port), timeout=10) as s:
            raw_exchange(s, attack())
    m = metrics(server)
    floods = {k: v for k, v in m.items() if k.startswith("slipstream_http2_flood_defenses_total")}
    assert floods == {f'slipstream_http2_flood_defenses_total{{kind="{kind}"}}': 2}
    assert m['slipstream_http2_goaway_sent_total{code="ENHANCE_YOUR_CALM"}'] == 2


def test_upgrade_connections_and_streams(start_server):
    server = start_server("--threads", "1")
    for _ in range(3):
        c = UpgradedClient(server)
        assert c.wait(1)[0] == 200
        assert c.request("GET", "/hello")[0] == 200
        c.sock.close()
    m = metrics(server)
    assert m['slipstream_http2_connections_total{via="upgrade"}'] == 3
    assert m["slipstream_http2_streams_opened_total"] == 6


def test_tls_handshakes_by_version_and_alpn(start_server, pki):
    server = start_server("--threads", "1", "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key))
    for _ in range(2):
        c = H2Client(open_socket(server, True, pki))
        assert c.request("GET", "/hello")[0] == 200
        c.sock.close()
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    ctx.set_alpn_protocols(["http/1.1"])
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    with ctx.wrap_socket(socket.create_connection((server.host, server.port)), server_hostname="localhost") as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
    plain = ssl.create_default_context(cafile=str(pki.ca_cert))  # no ALPN offered
    with plain.wrap_socket(socket.create_connection((server.host, server.port)), server_hostname="localhost") as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
    for _ in range(3):  # not TLS at all: three failed handshakes
        with socket.create_connection((server.host, server.port), timeout=10) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                s.recv(65536)
            except ConnectionResetError:
                pass
    out = curl("--cacert", str(pki.ca_cert), "--http1.1", f"https://127.0.0.1:{server.port}/metrics")
    m = metric_samples(out, SAMPLES)
    # The scrape (curl --http1.1) is the TLSv1.3 "http/1.1" handshake: counted before /metrics renders.
    assert m == {
        'slipstream_tls_handshakes_total{version="TLSv1.3",alpn="h2"}': 2,
        'slipstream_tls_handshakes_total{version="TLSv1.2",alpn="http/1.1"}': 1,
        'slipstream_tls_handshakes_total{version="TLSv1.3",alpn="none"}': 1,
        'slipstream_tls_handshakes_total{version="TLSv1.3",alpn="http/1.1"}': 1,
        "slipstream_tls_handshake_failures_total": 3,
        'slipstream_http2_connections_total{via="alpn"}': 2,
        "slipstream_http2_streams_opened_total": 2,
    }
