"""Response compression (policy, Vary, metrics) and compressed request bodies (caps and errors), against the C++
example app over real sockets, over every protocol (h1, h1 over TLS, h2c, h2): HTTP/2 takes the same request
pipeline as HTTP/1.1."""

import gzip
import json
import shutil
import subprocess
import zlib

import pytest

from tests.e2e.helpers import Protocol, curl

BIG = json.dumps([{"id": i, "name": f"item {i}", "tags": ["a", "b", "c"]} for i in range(200)], separators=(",", ":"))
BIG_BYTES = BIG.encode()
JSON = ("Content-Type", "application/json")


def echo(client, accept=None, body=BIG_BYTES, extra=()):
    headers = [JSON, *extra]
    if accept is not None:
        headers.append(("Accept-Encoding", accept))
    return client.request("POST", "/echo", headers, body)


def problem(r):
    assert r.header("content-type") == "application/problem+json"
    return json.loads(r.body)


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("gzip", "gzip"),
        ("br", "br"),
        ("zstd", "zstd"),
        ("gzip, deflate, br, zstd", "zstd"),  # equal weights: the server's order (zstd, br, gzip)
        ("gzip;q=1.0, br;q=0.5, zstd;q=0.1", "gzip"),
        ("br;q=0.9, gzip;q=0.8", "br"),
        ("*", "zstd"),
        ("*;q=0.5, zstd;q=0", "br"),
        ("identity;q=1, gzip;q=0.5", None),
        ("gzip;q=0", None),
        ("deflate", None),  # not offered by default
        ("", None),
        (None, None),
    ],
)
def test_coding_follows_accept_encoding_q_values(serve, protocol, accept, expected):
    c = serve()
    r = echo(c, accept)
    assert r.status == 200
    assert r.header("content-encoding") == expected
    assert r.header("vary") == "Accept-Encoding"
    assert r.header("content-length") == str(len(r.body))
    if expected is None:
        assert r.body == BIG_BYTES
    else:
        assert len(r.body) < len(BIG) // 4
    if protocol.http2:
        # The same policy as HTTP/1.1 on the same transport: same coding, same Vary, same compressed bytes.
        h1 = Protocol("h1-tls" if protocol.tls else "h1", protocol.pki).client(c.server)
        ref = echo(h1, accept)
        h1.close()
        assert (ref.header("content-encoding"), ref.header("vary"), ref.body) == (expected, "Accept-Encoding", r.body)


def test_gzip_body_decodes_to_the_json(serve):
    r = echo(serve(), "gzip")
    assert r.status == 200
    assert gzip.decompress(r.body) == BIG_BYTES


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("coding", ["br", "zstd", "gzip"])
def test_curl_decodes_each_coding(serve, protocol, coding):
    # curl decodes br and zstd (Python's standard library has neither).
    c = serve()
    out = curl(*protocol.curl_flags(), "--compressed", "-H", f"Accept-Encoding: {coding}", "-H",
               "Content-Type: application/json", "--data-binary", "@-", "-D", "-", f"{protocol.url(c.server)}/echo",
               input=BIG_BYTES, text=False)
    head, _, payload = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/2 200" if protocol.http2 else b"HTTP/1.1 200")
    fields = head.decode().lower().split("\r\n")
    assert f"content-encoding: {coding}" in fields
    assert "vary: accept-encoding" in fields
    assert payload == BIG_BYTES


def test_small_bodies_are_not_compressed(serve):
    r = serve().request("GET", "/hello", [("Accept-Encoding", "gzip, br, zstd")])
    assert r.status == 200
    assert r.header("content-encoding") is None
    assert r.header("vary") is None
    assert r.body == b'{"message":"hello"}'


def test_min_size_is_configurable(serve):
    c = serve("--compression-min-size", "100", "--compression-encodings", "gzip")
    small = json.dumps({"text": "abc " * 100}, separators=(",", ":")).encode()  # ~400 bytes, compressible
    r = echo(c, "gzip", small)
    assert r.header("content-encoding") == "gzip"
    assert gzip.decompress(r.body) == small
    r = echo(c, "gzip", b'{"short":true}')  # under 100 bytes
    assert r.header("content-encoding") is None


def test_content_types_outside_the_list_are_not_compressed(serve):
    c = serve("--compression-types", "text/*,application/xml")
    r = echo(c, "gzip, br, zstd")
    assert (r.status, r.header("content-encoding"), r.header("vary"), r.body) == (200, None, None, BIG_BYTES)
    r = c.request("GET", "/hello", [("Accept-Encoding", "gzip, br, zstd")])
    assert (r.status, r.body, r.header("content-encoding"), r.header("vary")) == (200, b'{"message":"hello"}', None,
                                                                                  None)


def test_compression_can_be_switched_off(serve):
    r = echo(serve("--no-compression"), "gzip")
    assert (r.status, r.header("content-encoding"), r.body) == (200, None, BIG_BYTES)


def test_metrics_endpoint_is_compressed_for_prometheus(serve):
    r = serve().request("GET", "/metrics", [("Accept-Encoding", "gzip")])
    assert r.status == 200
    assert r.header("content-encoding") == "gzip"
    assert b"slipstream_http_requests_total" in gzip.decompress(r.body)


def test_head_gets_the_compressed_length_without_a_body(serve):
    c = serve()
    head = c.request("HEAD", "/metrics", [("Accept-Encoding", "gzip")])
    assert (head.status, head.body) == (200, b"")
    assert head.header("content-encoding") == "gzip"
    assert head.header("vary") == "Accept-Encoding"
    assert int(head.header("content-length")) > 0
    # No body bytes followed the head: the next response on the connection parses cleanly.
    r = c.request("GET", "/hello")
    assert (r.status, r.body) == (200, b'{"message":"hello"}')


def test_async_and_streamed_answers_are_compressed(serve):
    r = serve().request("GET", "/stream/300", [("Accept-Encoding", "gzip")])
    assert (r.status, r.header("content-encoding"), r.header("vary")) == (200, "gzip", "Accept-Encoding")
    assert r.header("content-length") is None
    assert gzip.decompress(r.body) == b"".join(f"line {i}\n".encode() for i in range(300))


def test_compression_metrics_count_responses_and_saved_bytes(serve):
    c = serve(fresh=True)
    for _ in range(3):
        assert echo(c, "br").header("content-encoding") == "br"
    text = c.request("GET", "/metrics").body.decode()
    assert 'slipstream_http_compressed_responses_total{encoding="br"} 3' in text
    saved = [
        line
        for line in text.splitlines()
        if line.startswith('slipstream_http_compression_saved_bytes_total{encoding="br"}')
    ]
    assert saved and int(saved[0].split()[-1]) > 3 * len(BIG) // 2


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
def test_compressed_request_bodies_are_decoded(serve, coding):
    name, wire = encode_body(coding, BIG_BYTES)
    r = echo(serve(), None, wire, [("Content-Encoding", name)])
    assert r.status == 200, r.body
    assert r.body == BIG_BYTES


def test_br_request_body_round_trips_through_the_server(serve):
    # No brotli encoder in Python's standard library: the server's own br response is sent back as a body.
    c = serve()
    packed = echo(c, "br").body
    r = echo(c, None, packed, [("Content-Encoding", "br")])
    assert r.status == 200
    assert r.body == BIG_BYTES


@pytest.mark.parametrize(
    ("flags", "coding", "payload", "status", "detail"),
    [
        # ~1 KB expanding ~900 times, under the 1 MiB size cap
        ((), "gzip", gzip.compress(b"0" * (900 * 1024)), 413,
         "the body expands more than 100 times when decompressed"),
        (("--max-decompression-ratio", "0"), "gzip", gzip.compress(b"0" * (5 * 1024 * 1024)), 413,
         "the decompressed body exceeds the limit of 1048576 bytes"),
        (("--max-decompressed-body-bytes", "4k"), "gzip", gzip.compress(json.dumps({"text": "x" * 5000}).encode()),
         413, "the decompressed body exceeds the limit of 4096 bytes"),
        ((), "compress", BIG_BYTES, 415,
         "unsupported Content-Encoding 'compress' (supported: gzip, br, zstd, deflate)"),
        ((), "gzip", b'{"not":"gzip"}', 400, "invalid gzip data: incorrect header check"),
        ((), "gzip", gzip.compress(BIG_BYTES)[:-10], 400, "invalid gzip data: truncated stream"),
    ],
    ids=["ratio", "size", "size-flag", "unknown", "malformed", "truncated"],
)
def test_request_body_refusals(serve, flags, coding, payload, status, detail):
    c = serve(*flags)
    r = echo(c, None, payload, [("Content-Encoding", coding)])
    assert r.status == status
    assert problem(r)["detail"] == detail
    if status == 415:
        assert r.header("accept-encoding") == "gzip, br, zstd, deflate"
    assert c.request("GET", "/hello").status == 200  # the request failed, the server (HTTP/2: the connection) goes on


def test_request_decompression_can_be_switched_off(serve):
    r = echo(serve("--no-request-decompression"), None, gzip.compress(BIG_BYTES), [("Content-Encoding", "gzip")])
    assert r.status == 415
    assert r.header("accept-encoding") == "identity"


def test_refusals_are_counted(serve):
    c = serve(fresh=True)
    assert echo(c, None, b"plain", [("Content-Encoding", "gzip")]).status == 400
    assert echo(c, None, b"plain", [("Content-Encoding", "lzw")]).status == 415
    text = c.request("GET", "/metrics").body.decode()
    assert 'slipstream_http_encoded_requests_rejected_total{reason="malformed"} 1' in text
    assert 'slipstream_http_encoded_requests_rejected_total{reason="unsupported"} 1' in text
