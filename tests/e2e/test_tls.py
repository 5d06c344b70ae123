"""TLS end to end: versions, ALPN, ciphers, resumption, mTLS, handshake timeout, SIGHUP reload, HTTP/1.1 over TLS."""
import http.client
import json
import shutil
import signal
import socket
import ssl
import subprocess
import time

import pytest

from tests.conftest import example_binary
from tests.e2e.certs import Pki
from tests.e2e.helpers import wait_for_stderr

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl CLI makes the test certificates")



@pytest.fixture
def tls_server(start_server, pki):
    def start(*flags, cert=None, key=None):
        return start_server("--threads", "1", "--tls-cert", str(cert or pki.server_cert),
                            "--tls-key", str(key or pki.server_key), *flags)

    return start


def client_context(pki: Pki, *, alpn=None, max_version=None, client_cert=False) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    if alpn:
        ctx.set_alpn_protocols(alpn)
    if max_version:
        ctx.maximum_version = max_version
    if client_cert:
        ctx.load_cert_chain(str(pki.client_cert), str(pki.client_key))
    return ctx


def tls_connect(server, ctx: ssl.SSLContext, session=None) -> ssl.SSLSocket:
    raw = socket.create_connection((server.host, server.port), timeout=5)
    return ctx.wrap_socket(raw, server_hostname="localhost", session=session)


def https(server, pki: Pki) -> http.client.HTTPSConnection:
    return http.client.HTTPSConnection("localhost", server.port, context=client_context(pki), timeout=5)


def served_cn(server, pki: Pki) -> str:
    with tls_connect(server, client_context(pki)) as s:
        subject = dict(x[0] for x in s.getpeercert()["subject"])
        return subject["commonName"]


def test_https_with_curl(tls_server, pki):
    server = tls_server()
    out = subprocess.run(
        ["curl", "-s", "--noproxy", "*", "--cacert", str(pki.ca_cert), "--http1.1",
         "-w", "\n%{http_code} %{http_version}", f"https://127.0.0.1:{server.port}/hello"],
        capture_output=True, text=True, timeout=10, check=True).stdout
    assert out == '{"message":"hello"}\n200 1.1'


@pytest.mark.parametrize(("max_version", "expected"), [
    (ssl.TLSVersion.TLSv1_2, "TLSv1.2"),
    (ssl.TLSVersion.TLSv1_3, "TLSv1.3"),
])
def test_tls_versions(tls_server, pki, max_version, expected):
    server = tls_server()
    with tls_connect(server, client_context(pki, max_version=max_version)) as s:
        assert s.version() == expected
        assert s.cipher()[0] in {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                                 "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
                                 "ECDHE-ECDSA-CHACHA20-POLY1305"}


@pytest.mark.parametrize("flags", [["-tls1_1"], ["-tls1_2", "-cipher", "AES128-SHA"], ["-tls1_2", "-cipher", "DHE-RSA-AES128-GCM-SHA256"]])
def test_old_versions_and_weak_ciphers_refused(tls_server, pki, flags):
    server = tls_server()
    proc = subprocess.run(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{server.port}", "-CAfile", str(pki.ca_cert), *flags],
        input="", capture_output=True, text=True, timeout=10, check=False)
    assert proc.returncode != 0
    assert "Cipher is (NONE)" in proc.stdout or "no protocols available" in proc.stderr or "alert" in proc.stderr


@pytest.mark.parametrize(("flags", "offer", "expected"), [
    ([], ["h2", "http/1.1"], "h2"),
    ([], ["http/1.1", "h2"], "h2"),
    ([], ["http/1.1"], "http/1.1"),
    (["--no-http2"], ["h2", "http/1.1"], "http/1.1"),
    ([], None, None),
])
def test_alpn(tls_server, pki, flags, offer, expected):
    server = tls_server(*flags)
    with tls_connect(server, client_context(pki, alpn=offer)) as s:
        assert s.selected_alpn_protocol() == expected


def test_alpn_with_openssl_s_client(tls_server, pki):
    server = tls_server()
    proc = subprocess.run(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{server.port}", "-CAfile", str(pki.ca_cert),
         "-alpn", "h2,http/1.1"], input=b"", capture_output=True, timeout=10, check=False)
    proc.stdout = proc.stdout.decode(errors="replace")
    assert "ALPN protocol: h2" in proc.stdout
    assert "Verify return code: 0 (ok)" in proc.stdout


def test_http1_features_over_tls(tls_server, pki):
    server = tls_server()
    conn = https(server, pki)
    conn.request("GET", "/hello")
    r = conn.getresponse()
    assert (r.status, r.read()) == (200, b'{"message":"hello"}')
    conn.request("POST", "/echo", body=b'{"a": [1, 2, {"b": null}]}', headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    assert (r.status, r.read()) == (200, b'{"a":[1,2,{"b":null}]}')
    conn.request("GET", "/delay/20")
    r = conn.getresponse()
    assert (r.status, r.read()) == (200, b'{"delayed_ms":20}')
    conn.request("GET", "/stream/3")
    r = conn.getresponse()
    assert r.getheader("Transfer-Encoding") == "chunked"
    assert r.read() == b"line 0\nline 1\nline 2\n"
    conn.request("GET", "/nope")
    r = conn.getresponse()
    assert r.status == 404
    assert json.loads(r.read())["status"] == 404
    conn.close()


def test_pipelined_requests_over_tls(tls_server, pki):
    server = tls_server()
    with tls_connect(server, client_context(pki)) as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n" * 3 + b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.count(b"HTTP/1.1 200 OK\r\n") == 4
    assert data.endswith(b'{"message":"hello"}')


def test_large_response_body_over_tls(tls_server, pki):
    server = tls_server()
    body = json.dumps({"items": ["x" * 100] * 5000}, separators=(",", ":")).encode()
    conn = https(server, pki)
    conn.request("POST", "/echo", body=body, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    assert r.status == 200
    assert r.read() == body


@pytest.mark.parametrize("max_version", [ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3])
def test_session_resumption(tls_server, pki, max_version):
    server = tls_server()
    ctx = client_context(pki, max_version=max_version)
    with tls_connect(server, ctx) as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        while s.recv(65536):
            pass  # TLS 1.3 tickets arrive after the handshake, with the data
        session = s.session
        assert not s.session_reused
    with tls_connect(server, ctx, session=session) as s:
        assert s.session_reused


def test_mutual_tls(tls_server, pki):
    server = tls_server("--tls-client-ca", str(pki.ca_cert))
    with tls_connect(server, client_context(pki, client_cert=True)) as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 200 OK")
    # Without a certificate the handshake fails (TLS 1.3 clients hear of it at their first read).
    with pytest.raises((ssl.SSLError, ConnectionError)), tls_connect(server, client_context(pki)) as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        if not s.recv(65536):
            raise ConnectionError("closed without a response")


def test_handshake_timeout_closes_silent_clients(tls_server):
    server = tls_server("--tls-handshake-timeout", "200ms")
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        assert s.recv(1024) == b""  # closed by the server, not by our timeout


def test_plain_http_to_a_tls_port_is_dropped(tls_server):
    server = tls_server()
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        try:
            while chunk := s.recv(1024):
                data += chunk
        except ConnectionResetError:
            pass
        assert b"HTTP/1.1 200" not in data


def test_sighup_reloads_certificates_without_dropping_connections(tls_server, pki, tmp_path):
    cert, key = tmp_path / "live.pem", tmp_path / "live.key"
    shutil.copy(pki.server_cert, cert)
    shutil.copy(pki.server_key, key)
    server = tls_server(cert=cert, key=key)
    assert served_cn(server, pki) == "server"
    kept = https(server, pki)
    kept.request("GET", "/hello")
    assert kept.getresponse().read() == b'{"message":"hello"}'

    new_cert, new_key = pki.issue_server("reloaded")
    shutil.copy(new_cert, cert)
    shutil.copy(new_key, key)
    server.proc.send_signal(signal.SIGHUP)
    assert wait_for_stderr(server, "certificate reloaded", timeout=10.0) is not None
    assert served_cn(server, pki) == "reloaded"
    kept.request("GET", "/hello")  # the connection made before the reload goes on
    assert kept.getresponse().read() == b'{"message":"hello"}'

    # A broken file is refused: the server keeps the certificate it has.
    key.write_text("not a key")
    server.proc.send_signal(signal.SIGHUP)
    assert wait_for_stderr(server, "tls reload failed", timeout=10.0) is not None
    assert served_cn(server, pki) == "reloaded"
    assert server.proc.poll() is None


@pytest.mark.parametrize(("flags", "message"), [
    (["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"], "cannot load certificate file"),
    (["--tls-cert", "/nonexistent/cert.pem"], "both a certificate file and a key file are required"),
])
def test_bad_tls_files_fail_at_start(flags, message):
    proc = subprocess.run([example_binary("hello"), "--port", "0", *flags], capture_output=True, text=True,
                          timeout=10, check=False)
    assert proc.returncode == 1
    assert message in proc.stderr



class EarlyBytesClient:
    """A TLS client over memory BIOs whose first application bytes leave in the same send as its Finished:
    the server reads them together with the handshake (read ahead), and the socket never signals them again."""

    def __init__(self, server, ctx: ssl.SSLContext, first: bytes) -> None:
        self.raw = socket.create_connection((server.host, server.port), timeout=5)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = ctx.wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                if self.outgoing.pending:
                    self.raw.sendall(self.outgoing.read())
                self.incoming.write(self.raw.recv(65536))
        self.tls.write(first)
        self.raw.sendall(self.outgoing.read())  # the Finished and the application records together

    def read_until(self, done) -> bytes:
        got = b""
        while not done(got):
            try:
                got += self.tls.read(65536)
                continue
            except ssl.SSLWantReadError:
                pass
            chunk = self.raw.recv(65536)
            if not chunk:
                break
            self.incoming.write(chunk)
        return got


@pytest.mark.parametrize("alpn", [["http/1.1"], ["h2"]])
def test_first_bytes_sent_with_the_finished_are_served(tls_server, pki, alpn):
    server = tls_server()
    ctx = client_context(pki, alpn=alpn, max_version=ssl.TLSVersion.TLSv1_3)
    if alpn == ["h2"]:
        # Preface, empty SETTINGS, then GET /hello on stream 1 (HPACK: static :method GET, :scheme https,
        # :path "/hello" and :authority "localhost" as literals without indexing).
        block = b"\x82\x87\x04\x06/hello\x01\x09localhost"
        first = (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
                 + len(block).to_bytes(3, "big") + b"\x01\x05\x00\x00\x00\x01" + block)
        expected = b'{"message":"hello"}'
    else:
        first = b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n"
        expected = b'{"message":"hello"}'
    client = EarlyBytesClient(server, ctx, first)
    got = client.read_until(lambda data: expected in data)
    assert expected in got


def test_idle_connections_work_after_their_buffers_are_released(tls_server, pki):
    """Every second the server frees the TLS buffers of connections without traffic since the last pass; a
    keep-alive connection idle past two passes is served as before (HTTP/1.1, then HTTP/2 over ALPN)."""
    server = tls_server()
    conn = https(server, pki)
    conn.request("GET", "/hello")
    assert conn.getresponse().read() == b'{"message":"hello"}'
    h2 = EarlyBytesClient(server, client_context(pki, alpn=["h2"]), b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                          + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
    time.sleep(2.5)  # not a synchronization: the release runs on the server's one-second timer
    conn.request("GET", "/hello")
    assert conn.getresponse().read() == b'{"message":"hello"}'
    block = b"\x82\x87\x04\x06/hello\x01\x09localhost"
    h2.tls.write(len(block).to_bytes(3, "big") + b"\x01\x05\x00\x00\x00\x01" + block)
    h2.raw.sendall(h2.outgoing.read())
    assert b'{"message":"hello"}' in h2.read_until(lambda data: b'{"message":"hello"}' in data)
    conn.close()
