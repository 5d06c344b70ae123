"""HTTP/2 cleartext upgrade (RFC 7540 §3.2): "Upgrade: h2c" with HTTP2-Settings is answered 101 and the request
is served as stream 1 through the usual request path; a bad or repeated HTTP2-Settings, or TLS, leaves the
request on HTTP/1.1."""
import base64
import socket
import ssl

from tests.e2e.helpers import SWITCH, UpgradedClient, curl, read_head, upgrade_request


def test_curl_upgrades_and_is_served_over_http2(start_server):
    server = start_server("--threads", "1")
    assert curl("--http2", "-w", "\n%{http_code} %{http_version}", f"{server.url}/hello") == \
        '{"message":"hello"}\n200 2'


def test_curl_upgrade_with_a_body(start_server):
    server = start_server("--threads", "1")
    out = curl("--http2", "-H", "Content-Type: application/json", "--data-binary", '{"x": [1, 2]}',
               "-w", "\n%{http_code} %{http_version}", f"{server.url}/echo")
    assert out == '{"x":[1,2]}\n200 2'


def test_h2_client_upgrade_then_more_streams(start_server):
    server = start_server("--threads", "1")
    c = UpgradedClient(server)
    assert c.head == SWITCH + b"Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
    status, headers, body = c.wait(1)
    assert (status, headers["content-type"], body) == (200, "application/json", b'{"message":"hello"}')
    assert c.request("GET", "/hello")[0] == 200  # stream 3 on the same connection
    assert c.request("GET", "/nope")[0] == 404  # stream 5


def test_h2_client_upgrade_with_a_body_and_head(start_server):
    server = start_server("--threads", "1")
    c = UpgradedClient(server, "/echo", "POST", b'{"a": 1}')
    assert c.wait(1) == (200, c.responses[1]["headers"], b'{"a":1}')
    c = UpgradedClient(server, "/hello", "HEAD")
    status, headers, body = c.wait(1)
    assert (status, headers["content-length"], body) == (200, "19", b"")


def exchange(server, payload: bytes) -> bytes:
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        s.sendall(payload)
        head, _ = read_head(s)
    return head


def test_bad_or_repeated_settings_leave_the_request_on_http1(start_server):
    server = start_server("--threads", "1")
    good = base64.urlsafe_b64encode(b"\x00\x03\x00\x00\x00\x64").decode().rstrip("=")
    cases = [
        upgrade_request(settings="!!!"),                          # not base64url
        upgrade_request(settings="AAEAAB"),                       # not whole settings
        upgrade_request(settings="AAIAAAAC"),                     # ENABLE_PUSH = 2: nghttp2 refuses it
        upgrade_request(settings=None),                           # missing
        upgrade_request(settings=good, extra=b"HTTP2-Settings: " + good.encode() + b"\r\n"),  # repeated
    ]
    for payload in cases:
        head = exchange(server, payload)
        assert head.startswith(b"HTTP/1.1 200 OK\r\n"), (payload, head)
    assert exchange(server, upgrade_request(settings=good)).startswith(SWITCH)


def test_no_upgrade_over_tls(start_server, pki):
    server = start_server("--threads", "1", "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key))
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    ctx.set_alpn_protocols(["http/1.1"])
    raw = socket.create_connection((server.host, server.port), timeout=10)
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        s.sendall(upgrade_request(settings=""))
        head, _ = read_head(s)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")


def test_http2_off_ignores_the_upgrade(start_server):
    server = start_server("--threads", "1", "--no-http2")
    assert exchange(server, upgrade_request(settings="")).startswith(b"HTTP/1.1 200 OK\r\n")
