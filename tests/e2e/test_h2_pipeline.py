"""HTTP/2 takes the same request pipeline as HTTP/1.1: response compression (policy and Vary), Content-Encoding
request bodies (caps and errors), SSE heartbeats, and the metrics/access-log record, over h2c and h2 (TLS)."""

import gzip
import json
import re
import shutil
import ssl
import subprocess
import zlib

import pytest

from tests.e2e.http_client import RawConnection
from tests.e2e.streams import sse_events
from tests.e2e.test_http2 import H2Client, open_socket

BIG = json.dumps([{"id": i, "name": f"item {i}", "tags": ["a", "b", "c"]} for i in range(200)], separators=(",", ":"))
BIG_BYTES = BIG.encode()
JSON = ("content-type", "application/json")


class H1Reference:
    """The same server over HTTP/1.1 (ALPN http/1.1 under TLS): what HTTP/2 answers are compared with."""

    def __init__(self, server, use_tls: bool, pki):
        self.server, self.use_tls, self.pki = server, use_tls, pki

    def connect(self):
        sock = self.server.connect()
        if not self.use_tls:
            return sock
        ctx = ssl.create_default_context(cafile=str(self.pki.ca_cert))
        ctx.set_alpn_protocols(["http/1.1"])
        return ctx.wrap_socket(sock, server_hostname="localhost")


def client(any_server, pki, *flags):
    """(an HTTP/1.1 reference to the server, an HTTP/2 client) for a server started with `flags`."""
    server, use_tls = any_server(*flags)
    return H1Reference(server, use_tls, pki), H2Client(open_socket(server, use_tls, pki))


def h1_request(ref: H1Reference, method, path, headers=(), body=b""):
    """The same request over HTTP/1.1 on a fresh connection (the reference)."""
    with ref.connect() as sock:
        conn = RawConnection(sock)
        lines = [f"{method} {path} HTTP/1.1", "Host: t", *(f"{k}: {v}" for k, v in headers)]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        conn.send(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return conn.read_response(head_request=method == "HEAD")


def problem(headers, body):
    assert headers["content-type"] == "application/problem+json"
    return json.loads(body)


def metrics_text(c):
    status, _, body = c.request("GET", "/metrics")
    assert status == 200
    return body.decode()


# ---- response compression ----


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("gzip", "gzip"),
        ("br", "br"),
        ("zstd", "zstd"),
        ("gzip, deflate, br, zstd", "zstd"),  # equal weights: the server's order
        ("gzip;q=1.0, br;q=0.5, zstd;q=0.1", "gzip"),
        ("*;q=0.5, zstd;q=0", "br"),
        ("identity;q=1, gzip;q=0.5", None),
        ("deflate", None),  # not offered by default
        (None, None),
    ],
)
def test_compression_follows_accept_encoding_as_on_http1(any_server, pki, accept, expected):
    ref, c = client(any_server, pki)
    headers = [JSON] + ([("accept-encoding", accept)] if accept is not None else [])
    status, h, body = c.request("POST", "/echo", headers, BIG_BYTES)
    assert status == 200
    assert h.get("content-encoding") == expected
    assert h["vary"] == "Accept-Encoding"
    assert h["content-length"] == str(len(body))
    if expected is None:
        assert body == BIG_BYTES
    else:
        assert len(body) < len(BIG_BYTES) // 4
    # The same policy as HTTP/1.1: same coding, same Vary, same compressed length.
    h1 = h1_request(ref, "POST", "/echo", [(k, v) for k, v in headers], BIG_BYTES)
    assert (h1.header("content-encoding"), h1.header("vary"), h1.body) == (expected, "Accept-Encoding", body)


def test_gzip_response_decodes_to_the_json(any_server, pki):
    _, c = client(any_server, pki)
    status, _, body = c.request("POST", "/echo", [JSON, ("accept-encoding", "gzip")], BIG_BYTES)
    assert status == 200
    assert gzip.decompress(body) == BIG_BYTES


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip"])
def test_curl_decodes_each_coding_over_h2c(start_server, coding):
    server = start_server("--threads", "1")
    out = subprocess.run(
        ["curl", "--noproxy", "*", "-s", "--http2-prior-knowledge", "--compressed", "-H", f"Accept-Encoding: {coding}",
         "-H", "Content-Type: application/json", "--data-binary", "@-", "-D", "-", f"{server.url}/echo"],
        input=BIG_BYTES, capture_output=True, check=True, timeout=10,
    ).stdout
    head, _, payload = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/2 200")
    fields = head.decode().lower().split("\r\n")
    assert f"content-encoding: {coding}" in fields
    assert "vary: accept-encoding" in fields
    assert payload == BIG_BYTES


def test_small_bodies_and_excluded_types_are_not_compressed(any_server, pki):
    _, c = client(any_server, pki, "--compression-types", "text/*")
    status, h, body = c.request("GET", "/hello", [("accept-encoding", "gzip, br, zstd")])
    assert (status, body, h.get("content-encoding"), h.get("vary")) == (200, b'{"message":"hello"}', None, None)
    status, h, body = c.request("POST", "/echo", [JSON, ("accept-encoding", "gzip")], BIG_BYTES)
    assert (status, h.get("content-encoding"), h.get("vary"), body) == (200, None, None, BIG_BYTES)


def test_compression_can_be_switched_off(any_server, pki):
    _, c = client(any_server, pki, "--no-compression")
    status, h, body = c.request("POST", "/echo", [JSON, ("accept-encoding", "gzip")], BIG_BYTES)
    assert (status, h.get("content-encoding"), body) == (200, None, BIG_BYTES)


def test_head_gets_the_compressed_length_without_a_body(any_server, pki):
    _, c = client(any_server, pki)
    status, h, body = c.request("HEAD", "/metrics", [("accept-encoding", "gzip")])
    assert (status, body, h["content-encoding"], h["vary"]) == (200, b"", "gzip", "Accept-Encoding")
    assert int(h["content-length"]) > 0
    assert c.request("GET", "/hello")[0] == 200  # the connection goes on


def test_async_and_streamed_answers_are_compressed(any_server, pki):
    _, c = client(any_server, pki)
    status, h, body = c.request("GET", "/stream/300", [("accept-encoding", "gzip")])
    assert (status, h["content-encoding"], h["vary"]) == (200, "gzip", "Accept-Encoding")
    assert "content-length" not in h
    assert gzip.decompress(body) == b"".join(f"line {i}\n".encode() for i in range(300))


def test_compression_metrics_count_http2_responses(any_server, pki):
    _, c = client(any_server, pki)
    for _ in range(3):
        assert c.request("POST", "/echo", [JSON, ("accept-encoding", "br")], BIG_BYTES)[1]["content-encoding"] == "br"
    text = metrics_text(c)
    assert 'slipstream_http_compressed_responses_total{encoding="br"} 3' in text


# ---- compressed request bodies ----


def encode_body(coding: str, data: bytes) -> tuple[str, bytes]:
    if coding == "gzip":
        return "gzip", gzip.compress(data)
    if coding == "deflate":
        return "deflate", zlib.compress(data)
    if coding == "raw-deflate":
        c = zlib.compressobj(wbits=-15)
        return "deflate", c.compress(data) + c.flush()
    if shutil.which("zstd") is None:
        pytest.skip("the zstd command is not installed")
    return "zstd", subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate", "zstd"])
def test_compressed_request_bodies_are_decoded(any_server, pki, coding):
    _, c = client(any_server, pki)
    name, wire = encode_body(coding, BIG_BYTES)
    status, _, body = c.request("POST", "/echo", [JSON, ("content-encoding", name)], wire)
    assert (status, body) == (200, BIG_BYTES)


def test_br_request_body_round_trips(any_server, pki):
    _, c = client(any_server, pki)
    packed = c.request("POST", "/echo", [JSON, ("accept-encoding", "br")], BIG_BYTES)[2]
    status, _, body = c.request("POST", "/echo", [JSON, ("content-encoding", "br")], packed)
    assert (status, body) == (200, BIG_BYTES)


@pytest.mark.parametrize(
    ("flags", "coding", "payload", "status", "detail"),
    [
        ([], "gzip", gzip.compress(b"0" * (900 * 1024)), 413,
         "the body expands more than 100 times when decompressed"),
        (["--max-decompression-ratio", "0"], "gzip", gzip.compress(b"0" * (5 * 1024 * 1024)), 413,
         "the decompressed body exceeds the limit of 1048576 bytes"),
        (["--max-decompressed-body-bytes", "4k"], "gzip", gzip.compress(json.dumps({"t": "x" * 5000}).encode()), 413,
         "the decompressed body exceeds the limit of 4096 bytes"),
        ([], "compress", BIG_BYTES, 415,
         "unsupported Content-Encoding 'compress' (supported: gzip, br, zstd, deflate)"),
        ([], "gzip", b'{"not":"gzip"}', 400, "invalid gzip data: incorrect header check"),
        ([], "gzip", gzip.compress(BIG_BYTES)[:-10], 400, "invalid gzip data: truncated stream"),
    ],
    ids=["ratio", "size", "size-flag", "unknown", "malformed", "truncated"],
)
def test_request_body_refusals_match_http1(any_server, pki, flags, coding, payload, status, detail):
    ref, c = client(any_server, pki, *flags)
    got, h, body = c.request("POST", "/echo", [JSON, ("content-encoding", coding)], payload)
    assert got == status
    assert problem(h, body)["detail"] == detail
    if status == 415:
        assert h["accept-encoding"] == "gzip, br, zstd, deflate"
    h1 = h1_request(ref, "POST", "/echo", [("Content-Type", "application/json"), ("Content-Encoding", coding)],
                     payload)
    assert (h1.status, json.loads(h1.body)["detail"]) == (status, detail)
    assert c.request("GET", "/hello")[0] == 200  # the stream failed, the connection goes on


def test_request_decompression_can_be_switched_off(any_server, pki):
    _, c = client(any_server, pki, "--no-request-decompression")
    status, h, _ = c.request("POST", "/echo", [JSON, ("content-encoding", "gzip")], gzip.compress(BIG_BYTES))
    assert (status, h["accept-encoding"]) == (415, "identity")


def test_request_body_refusals_are_counted(any_server, pki):
    _, c = client(any_server, pki)
    assert c.request("POST", "/echo", [JSON, ("content-encoding", "gzip")], b"plain")[0] == 400
    assert c.request("POST", "/echo", [JSON, ("content-encoding", "lzw")], b"plain")[0] == 415
    text = metrics_text(c)
    assert 'slipstream_http_encoded_requests_rejected_total{reason="malformed"} 1' in text
    assert 'slipstream_http_encoded_requests_rejected_total{reason="unsupported"} 1' in text


# ---- Server-Sent Events ----


def test_event_stream_head_and_events(any_server, pki):
    _, c = client(any_server, pki)
    status, h, body = c.request("GET", "/sse/ticks?n=3&interval_ms=10", [("accept-encoding", "gzip, br, zstd")])
    assert status == 200
    assert (h["content-type"], h["cache-control"], h["x-accel-buffering"]) == (
        "text/event-stream; charset=utf-8", "no-cache", "no")
    assert "content-encoding" not in h and "vary" not in h  # event streams are not compressed unless asked
    assert sse_events(body.decode()) == [("tick", str(i), f'{{"tick":{i}}}') for i in (1, 2, 3)]


def test_heartbeats_fill_idle_time(any_server, pki):
    _, c = client(any_server, pki)
    status, _, body = c.request("GET", "/sse/ticks?n=2&interval_ms=400&heartbeat_ms=50")
    text = body.decode()
    assert status == 200
    assert sse_events(text) == [("tick", "1", '{"tick":1}'), ("tick", "2", '{"tick":2}')]
    assert ": heartbeat\n\n" in text[text.index("id: 1"):text.index("id: 2")]
    count = re.search(r"^slipstream_sse_heartbeats_total (\d+)$", metrics_text(c), re.MULTILINE)
    assert count is not None and int(count.group(1)) >= 1


def test_server_default_heartbeat_is_a_flag(any_server, pki):
    _, c = client(any_server, pki, "--sse-heartbeat", "30ms")
    assert ": heartbeat\n\n" in c.request("GET", "/sse/ticks?n=2&interval_ms=300")[2].decode()
    _, off = client(any_server, pki, "--sse-heartbeat", "0s")
    assert b": heartbeat" not in off.request("GET", "/sse/ticks?n=2&interval_ms=200")[2]


def test_compressed_event_stream_decodes_event_by_event(any_server, pki):
    _, c = client(any_server, pki, "--compress-sse", "--compression-encodings", "gzip,zstd")
    sid = c.start("GET", "/sse/ticks?n=3&interval_ms=100", [("accept-encoding", "gzip")])
    c.pump(lambda: len(c.responses[sid]["body"]) > 0)
    h = c.responses[sid]["headers"]
    assert (h["content-encoding"], h["vary"]) == ("gzip", "Accept-Encoding")
    inflate = zlib.decompressobj(wbits=31)
    # The first event arrives flushed: it decodes before the next one is produced.
    seen = len(c.responses[sid]["body"])
    first = inflate.decompress(c.responses[sid]["body"]).decode()
    assert sse_events(first) == [("tick", "1", '{"tick":1}')]
    c.pump(lambda: c.responses[sid]["ended"])
    rest = inflate.decompress(c.responses[sid]["body"][seen:]).decode()
    assert inflate.eof
    assert sse_events(first + rest) == [("tick", str(i), f'{{"tick":{i}}}') for i in (1, 2, 3)]


# ---- metrics and access log ----


def test_every_outcome_is_counted_and_logged(any_server, pki):
    ref, c = client(any_server, pki)
    tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    cases = [
        ("GET", "/hello?x=1", [("x-request-id", "h2-log-1"), ("traceparent", tp)], b"", 200, "/hello", "/hello"),
        ("GET", "/missing", [("x-request-id", "h2-log-2")], b"", 404, "(unmatched)", "/missing"),
        ("GET", "/delay/5", [("x-request-id", "h2-log-3")], b"", 200, "/delay/{ms:int}", "/delay/5"),
        ("POST", "/echo", [JSON, ("content-encoding", "gzip"), ("x-request-id", "h2-log-4")], b"x", 400, "/echo",
         "/echo"),
        ("GET", "/%zz", [("x-request-id", "h2-log-5")], b"", 400, "(unmatched)", "/%zz"),
    ]
    for method, path, headers, body, status, route, logged_path in cases:
        got, h, _ = c.request(method, path, headers, body)
        rid = dict(headers)["x-request-id"]
        assert (got, h["x-request-id"]) == (status, rid)
        text = ref.server.wait_for_line(f'"{rid}"')
        assert text is not None, rid
        line = json.loads(text)
        assert (line["method"], line["route"], line["path"], line["status"]) == (method, route, logged_path, status)
        assert line["bytes"] > 0
        assert line["peer"].startswith("127.0.0.1:")
        assert line["trace_id"] == ("4bf92f3577b34da6a3ce929d0e0e4736" if rid == "h2-log-1" else "")
    text = metrics_text(c)
    assert 'slipstream_http_requests_total{route="/delay/{ms:int}",method="GET",status="200"} 1' in text
    assert 'slipstream_http_requests_total{route="/echo",method="POST",status="400"} 1' in text
