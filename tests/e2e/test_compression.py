"""Response compression and compressed request bodies, against the C++ example app over real sockets."""

import gzip
import json
import shutil
import subprocess
import zlib

import pytest

from tests.e2e.http_client import RawConnection

BIG = json.dumps([{"id": i, "name": f"item {i}", "tags": ["a", "b", "c"]} for i in range(200)], separators=(",", ":"))
BIG_BYTES = BIG.encode()


def request(server, method, path, headers=(), body=b""):
    """One request on a fresh connection; returns the parsed response (body as sent: still encoded)."""
    with server.connect() as sock:
        conn = RawConnection(sock)
        lines = [f"{method} {path} HTTP/1.1", "Host: t"]
        lines += [f"{k}: {v}" for k, v in headers]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        conn.send(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return conn.read_response(head_request=method == "HEAD")


def echo(server, accept=None, body=BIG_BYTES, extra=()):
    headers = [("Content-Type", "application/json"), *extra]
    if accept is not None:
        headers.append(("Accept-Encoding", accept))
    return request(server, "POST", "/echo", headers, body)


def curl_decoded(server, accept, body):
    """curl decodes br and zstd (Python's standard library has neither)."""
    out = subprocess.run(
        [
            "curl",
            "--noproxy",
            "*",
            "-s",
            "--compressed",
            "-H",
            f"Accept-Encoding: {accept}",
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            "@-",
            "-D",
            "-",
            f"{server.url}/echo",
        ],
        input=body,
        capture_output=True,
        check=True,
        timeout=10,
    )
    head, _, payload = out.stdout.partition(b"\r\n\r\n")
    return head.decode().lower(), payload


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
def test_coding_follows_accept_encoding_q_values(hello_server, accept, expected):
    r = echo(hello_server, accept)
    assert r.status == 200
    assert r.header("content-encoding") == expected
    assert r.header("vary") == "Accept-Encoding"
    if expected is None:
        assert r.body == BIG.encode()
    else:
        assert int(r.header("content-length")) == len(r.body) < len(BIG) // 4


def test_gzip_body_decodes_to_the_json(hello_server):
    r = echo(hello_server, "gzip")
    assert gzip.decompress(r.body) == BIG.encode()


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip"])
def test_curl_decodes_each_coding(hello_server, coding):
    head, payload = curl_decoded(hello_server, coding, BIG.encode())
    assert f"content-encoding: {coding}\r\n" in head
    assert "vary: accept-encoding\r\n" in head
    assert payload == BIG.encode()


def test_small_bodies_are_not_compressed(hello_server):
    r = request(hello_server, "GET", "/hello", [("Accept-Encoding", "gzip, br, zstd")])
    assert r.status == 200
    assert r.header("content-encoding") is None
    assert r.header("vary") is None
    assert r.body == b'{"message":"hello"}'


def test_min_size_is_configurable(start_server):
    server = start_server("--threads", "1", "--compression-min-size", "100", "--compression-encodings", "gzip")
    small = json.dumps({"text": "abc " * 100}, separators=(",", ":")).encode()  # ~400 bytes, compressible
    r = echo(server, "gzip", small)
    assert r.header("content-encoding") == "gzip"
    assert gzip.decompress(r.body) == small
    r = echo(server, "gzip", b'{"short":true}')  # under 100 bytes
    assert r.header("content-encoding") is None


def test_content_types_outside_the_list_are_not_compressed(start_server):
    server = start_server("--threads", "1", "--compression-types", "text/*,application/xml")
    r = echo(server, "gzip, br, zstd")
    assert r.header("content-encoding") is None
    assert r.header("vary") is None
    assert r.body == BIG.encode()


def test_compression_can_be_switched_off(start_server):
    server = start_server("--threads", "1", "--no-compression")
    r = echo(server, "gzip")
    assert r.header("content-encoding") is None
    assert r.body == BIG.encode()


def test_metrics_endpoint_is_compressed_for_prometheus(hello_server):
    r = request(hello_server, "GET", "/metrics", [("Accept-Encoding", "gzip")])
    assert r.status == 200
    assert r.header("content-encoding") == "gzip"
    assert b"slipstream_http_requests_total" in gzip.decompress(r.body)


def test_head_gets_the_headers_without_a_body(hello_server):
    with hello_server.connect() as sock:
        conn = RawConnection(sock)
        conn.send(b"HEAD /metrics HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
        head = conn.read_response(head_request=True)
        assert head.status == 200
        assert head.header("content-encoding") == "gzip"
        assert head.header("vary") == "Accept-Encoding"
        assert int(head.header("content-length")) > 0
        # No body bytes followed the head: the next response on the connection parses cleanly.
        conn.send(b"GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        r = conn.read_response()
        assert (r.status, r.body) == (200, b'{"message":"hello"}')


def test_compression_metrics_count_responses_and_saved_bytes(hello_server):
    for _ in range(3):
        assert echo(hello_server, "br").header("content-encoding") == "br"
    text = request(hello_server, "GET", "/metrics").body.decode()
    assert 'slipstream_http_compressed_responses_total{encoding="br"} 3' in text
    saved = [
        line
        for line in text.splitlines()
        if line.startswith('slipstream_http_compression_saved_bytes_total{encoding="br"}')
    ]
    assert saved and int(saved[0].split()[-1]) > 3 * len(BIG) // 2


# ---- compressed request bodies ----


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate", "zstd"])
def test_compressed_request_bodies_are_decoded(hello_server, coding):
    data = BIG.encode()
    if coding == "gzip":
        wire = gzip.compress(data)
    elif coding == "deflate":
        wire = zlib.compress(data)
    elif coding == "raw-deflate":
        c = zlib.compressobj(wbits=-15)
        wire = c.compress(data) + c.flush()
        coding = "deflate"
    else:
        if shutil.which("zstd") is None:
            pytest.skip("the zstd command is not installed")
        wire = subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout
    r = echo(hello_server, None, wire, [("Content-Encoding", coding)])
    assert r.status == 200, r.body
    assert r.body == data


def test_br_request_body_round_trips_through_the_server(hello_server):
    # No brotli encoder in Python's standard library: the server's own br response is sent back as a body.
    packed = echo(hello_server, "br").body
    r = echo(hello_server, None, packed, [("Content-Encoding", "br")])
    assert r.status == 200
    assert r.body == BIG.encode()


def problem(r):
    assert r.header("content-type") == "application/problem+json"
    return json.loads(r.body)


def test_gzip_bomb_is_refused_by_ratio(hello_server):
    bomb = gzip.compress(b"0" * (900 * 1024))  # ~1 KB expanding ~900 times, under the 1 MiB size cap
    r = echo(hello_server, None, bomb, [("Content-Encoding", "gzip")])
    assert r.status == 413
    assert problem(r)["detail"] == "the body expands more than 100 times when decompressed"


def test_gzip_bomb_is_refused_by_size(start_server):
    server = start_server("--threads", "1", "--max-decompression-ratio", "0")
    bomb = gzip.compress(b"0" * (5 * 1024 * 1024))
    r = echo(server, None, bomb, [("Content-Encoding", "gzip")])
    assert r.status == 413
    assert problem(r)["detail"] == "the decompressed body exceeds the limit of 1048576 bytes"


def test_decoded_size_cap_is_configurable(start_server):
    server = start_server("--threads", "1", "--max-decompressed-body-bytes", "4k")
    body = json.dumps({"text": "x" * 5000}).encode()
    r = echo(server, None, gzip.compress(body), [("Content-Encoding", "gzip")])
    assert r.status == 413
    assert problem(r)["detail"] == "the decompressed body exceeds the limit of 4096 bytes"


def test_unknown_coding_is_415_with_accept_encoding(hello_server):
    r = echo(hello_server, None, BIG.encode(), [("Content-Encoding", "compress")])
    assert r.status == 415
    assert r.header("accept-encoding") == "gzip, br, zstd, deflate"
    assert problem(r)["detail"] == "unsupported Content-Encoding 'compress' (supported: gzip, br, zstd, deflate)"


def test_malformed_body_is_400(hello_server):
    r = echo(hello_server, None, b'{"not":"gzip"}', [("Content-Encoding", "gzip")])
    assert r.status == 400
    assert problem(r)["detail"] == "invalid gzip data: incorrect header check"


def test_truncated_body_is_400(hello_server):
    r = echo(hello_server, None, gzip.compress(BIG.encode())[:-10], [("Content-Encoding", "gzip")])
    assert r.status == 400
    assert problem(r)["detail"] == "invalid gzip data: truncated stream"


def test_request_decompression_can_be_switched_off(start_server):
    server = start_server("--threads", "1", "--no-request-decompression")
    r = echo(server, None, gzip.compress(BIG.encode()), [("Content-Encoding", "gzip")])
    assert r.status == 415
    assert r.header("accept-encoding") == "identity"


def test_refusals_are_counted(hello_server):
    echo(hello_server, None, b"plain", [("Content-Encoding", "gzip")])
    echo(hello_server, None, b"plain", [("Content-Encoding", "lzw")])
    text = request(hello_server, "GET", "/metrics").body.decode()
    assert 'slipstream_http_encoded_requests_rejected_total{reason="malformed"} 1' in text
    assert 'slipstream_http_encoded_requests_rejected_total{reason="unsupported"} 1' in text
