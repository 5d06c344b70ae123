"""The request path every protocol shares (h1, h1 over TLS, h2c, h2): routes, validation, handlers (immediate,
deferred, streamed), HEAD, 404/405, request ids, the access log, request metrics, body and header limits, curl."""
import json
import shutil

import pytest

from tests.e2e.helpers import curl

JSON = ("Content-Type", "application/json")


def test_routes_validation_and_handlers(serve):
    c = serve()
    r = c.request("GET", "/hello")
    assert (r.status, r.body) == (200, b'{"message":"hello"}')
    assert r.header("content-type") == "application/json"
    assert r.header("content-length") == str(len(r.body))
    assert len(r.header("x-request-id")) == 32
    assert r.header("server") == "slipstream"
    r = c.request("POST", "/echo", [JSON], b'{"a": [1, {"b": true}]}')
    assert (r.status, r.body) == (200, b'{"a":[1,{"b":true}]}')
    r = c.request("POST", "/echo", [JSON], b"{bad")
    assert r.status == 400
    assert json.loads(r.body)["status"] == 400
    r = c.request("GET", "/delay/20")
    assert (r.status, r.body) == (200, b'{"delayed_ms":20}')
    r = c.request("GET", "/stream/4")
    assert (r.status, r.body) == (200, b"line 0\nline 1\nline 2\nline 3\n")
    r = c.request("HEAD", "/hello")
    assert (r.status, r.body, r.header("content-length")) == (200, b"", "19")
    r = c.request("GET", "/missing")
    assert (r.status, r.header("content-type")) == (404, "application/problem+json")
    r = c.request("DELETE", "/hello")
    assert r.status == 405
    assert "GET" in r.header("allow")
    r = c.request("GET", "/hello", [("X-Request-ID", "my-id-1")])
    assert r.header("x-request-id") == "my-id-1"
    assert c.server.wait_for_line('"request_id":"my-id-1"') is not None


def test_metrics_count_requests(serve):
    c = serve(fresh=True)
    for _ in range(3):
        assert c.request("GET", "/hello").status == 200
    text = c.request("GET", "/metrics").body.decode()
    assert 'slipstream_http_requests_total{route="/hello",method="GET",status="200"} 3' in text


@pytest.mark.parametrize(("limit", "body"), [("10", b"[1,2,3,4,5]"), ("1k", b"[" + b"1," * 1000 + b"1]")])
def test_body_over_the_limit_is_413(serve, limit, body):
    c = serve("--max-body-bytes", limit)
    assert c.request("POST", "/echo", [JSON], body).status == 413


def test_header_list_over_the_limit_is_431(serve):
    c = serve()
    assert c.request("GET", "/hello", [("X-Big", "v" * 20000)]).status == 431
    assert c.request("GET", "/hello").status == 200  # the server (HTTP/2: the connection) goes on


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl(serve, protocol):
    base = protocol.url(serve().server)
    out = curl(*protocol.curl_flags(), "-w", "\n%{http_code} %{http_version}", f"{base}/hello")
    assert out == '{"message":"hello"}\n200 ' + ("2" if protocol.http2 else "1.1")
    out = curl(*protocol.curl_flags(), "-H", "Content-Type: application/json", "--data-binary", '{"x": [1, 2]}',
               f"{base}/echo")
    assert out == '{"x":[1,2]}'
