"""File bodies sent by the engine (sendfile on plain TCP, bounded reads for TLS, HTTP/2): a 20 MB file compared byte
for byte with curl and http.client, Range, HEAD, pipelined requests mixing files and small answers, a file that
shrinks while it is sent, and no file descriptor left open. The server is the Python package's, in this process."""
import http.client
import os
import random
import shutil
import socket
import ssl
import time

import pytest

from tests.e2e.helpers import curl

slipstream = pytest.importorskip("slipstream")

BIG = 20 * 1024 * 1024
CONTENT = b"0123456789abcdefghij"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("files")
    (root / "big.bin").write_bytes(random.Random(7).randbytes(BIG))
    (root / "a.txt").write_bytes(CONTENT)
    (root / "page.html").write_text("<h1>hi</h1>" * 500)  # compressible: must still arrive as sent
    return root



def make_app(site):
    app = slipstream.App()

    @app.api_route("/big", methods=["GET", "HEAD"])
    def big():
        return slipstream.FileResponse(site / "big.bin")

    @app.get("/shrinking")
    def shrinking():
        return slipstream.FileResponse(site / "shrink.bin")

    @app.get("/small/{n}")
    def small(n: int):
        return {"n": n}

    app.mount("/static", slipstream.StaticFiles(directory=site))
    return app


class Running:
    def __init__(self, site, **options):
        self.native = make_app(site).build(access_log=False, threads=1, **options)
        self.native.listen("127.0.0.1", 0)
        self.native.start()
        self.port = self.native.port

    def stop(self):
        self.native.stop()
        self.native.wait()


@pytest.fixture(scope="module")
def server(site):
    s = Running(site)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def tls_server(site, pki):
    s = Running(site, tls_cert_file=str(pki.server_cert), tls_key_file=str(pki.server_key))
    yield s
    s.stop()


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def fetch(*args):
    """curl's stdout (bytes); curl itself gives up after 60 s."""
    return curl("--max-time", "60", *args, text=False, timeout=90)


def read_response(f):
    """One HTTP/1.1 response with Content-Length from a socket file: (status, headers, body)."""
    status = int(f.readline().split()[1])
    headers = {}
    while (line := f.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    body = f.read(int(headers.get("content-length", "0")))
    return status, headers, body


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("http", ["--http1.1", "--http2-prior-knowledge"])
def test_large_file_with_curl(server, site, http, tmp_path):
    out = tmp_path / "out.bin"
    head = fetch(http, "-D", "-", "-o", str(out), f"http://127.0.0.1:{server.port}/big").decode()
    assert out.read_bytes() == (site / "big.bin").read_bytes()
    assert f"content-length: {BIG}" in head.lower()
    assert "transfer-encoding" not in head.lower()
    ranged = fetch(http, "-r", "1000-1999999", f"http://127.0.0.1:{server.port}/big")
    assert ranged == (site / "big.bin").read_bytes()[1000:2000000]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("http", ["--http1.1", "--http2"])
def test_large_file_over_tls(tls_server, site, pki, http, tmp_path):
    out = tmp_path / "out.bin"
    base = f"https://localhost:{tls_server.port}"
    head = fetch(http, "--cacert", str(pki.ca_cert), "-D", "-", "-o", str(out), base + "/big").decode()
    assert out.read_bytes() == (site / "big.bin").read_bytes()
    assert f"content-length: {BIG}" in head.lower()
    ranged = fetch(http, "--cacert", str(pki.ca_cert), "-r", "5-24", base + "/static/big.bin")
    assert ranged == (site / "big.bin").read_bytes()[5:25]


def test_range_head_and_validators(server, site):
    data = (site / "big.bin").read_bytes()
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    cases = [
        ({"Range": "bytes=0-0"}, 206, data[:1], f"bytes 0-0/{BIG}"),
        ({"Range": "bytes=-10"}, 206, data[-10:], f"bytes {BIG - 10}-{BIG - 1}/{BIG}"),
        ({"Range": f"bytes={BIG - 3}-"}, 206, data[-3:], f"bytes {BIG - 3}-{BIG - 1}/{BIG}"),
        ({"Range": "bytes=100-199,300-399"}, 200, data, None),  # several ranges: the whole file
    ]
    for headers, status, body, content_range in cases:
        c.request("GET", "/static/big.bin", headers=headers)
        r = c.getresponse()
        got = r.read()
        assert (r.status, r.getheader("content-range"), len(got), got == body) == \
            (status, content_range, len(body), True), headers
        assert r.getheader("content-length") == str(len(body))
    c.request("GET", "/static/big.bin", headers={"Range": f"bytes={BIG}-"})
    r = c.getresponse()
    assert (r.status, r.getheader("content-range"), r.read()) == (416, f"bytes */{BIG}", b"")
    c.request("HEAD", "/big")
    r = c.getresponse()
    assert (r.status, r.getheader("content-length"), r.read()) == (200, str(BIG), b"")
    etag = r.getheader("etag")
    c.request("GET", "/big", headers={"If-None-Match": etag})
    r = c.getresponse()
    assert (r.status, r.read(), r.getheader("etag")) == (304, b"", etag)
    c.request("GET", "/static/page.html", headers={"Accept-Encoding": "gzip"})
    r = c.getresponse()
    assert (r.getheader("content-encoding"), r.read()) == (None, (site / "page.html").read_bytes())
    c.request("GET", "/small/1")  # the connection is still in step after all of that
    assert c.getresponse().read() == b'{"n":1}'
    c.close()


def test_pipelined_files_and_small_answers(server, site):
    data = (site / "big.bin").read_bytes()
    requests = [
        ("/static/a.txt", {}, 200, CONTENT),
        ("/small/1", {}, 200, b'{"n":1}'),
        ("/big", {}, 200, data),
        ("/small/2", {}, 200, b'{"n":2}'),
        ("/static/big.bin", {"Range": "bytes=10-20"}, 206, data[10:21]),
        ("/static/a.txt", {"Range": "bytes=3-4"}, 206, b"34"),
        ("/big", {"Range": "bytes=-5"}, 206, data[-5:]),
        ("/small/3", {}, 200, b'{"n":3}'),
    ]
    wire = b"".join(f"GET {p} HTTP/1.1\r\nHost: x\r\n".encode() +
                    b"".join(f"{k}: {v}\r\n".encode() for k, v in h.items()) + b"\r\n" for p, h, _, _ in requests)
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(wire)
        f = s.makefile("rb")
        for path, _, status, body in requests:
            got_status, _, got = read_response(f)
            assert (got_status, len(got), got == body) == (status, len(body), True), path


def test_file_that_shrinks_while_sent_cuts_the_connection(server, site):
    shrink = site / "shrink.bin"
    size = 40 * 1024 * 1024
    shrink.write_bytes(b"x" * size)
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)  # the server blocks well before the end
        s.settimeout(30)
        s.connect(("127.0.0.1", server.port))
        s.sendall(b"GET /shrinking HTTP/1.1\r\nHost: x\r\n\r\n")
        f = s.makefile("rb")
        assert f.readline().startswith(b"HTTP/1.1 200")
        while f.readline() != b"\r\n":
            pass
        got = len(f.read(1024 * 1024))
        os.truncate(shrink, 2 * 1024 * 1024)
        try:
            while chunk := f.read1(1 << 20):
                got += len(chunk)
        except ConnectionResetError:
            pass
    assert 1024 * 1024 <= got < size  # the connection ended (no hang) before a complete-looking body


def test_no_file_descriptor_is_left_open(server, site):
    baseline = open_fds()
    for _ in range(20):
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        c.request("GET", "/static/big.bin", headers={"Range": "bytes=0-99999"})
        assert len(c.getresponse().read()) == 100000
        c.close()
    for _ in range(5):  # clients that leave in the middle of a body
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(65536)
    deadline = time.monotonic() + 10  # the server notices the resets on its own thread
    while open_fds() > baseline and time.monotonic() < deadline:
        time.sleep(0.05)
    assert open_fds() == baseline


def test_tls_pipelined_with_http_client(tls_server, site, pki):
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    c = http.client.HTTPSConnection("localhost", tls_server.port, context=ctx, timeout=30)
    data = (site / "big.bin").read_bytes()
    for path, headers, body in [("/big", {}, data), ("/small/1", {}, b'{"n":1}'),
                                ("/static/big.bin", {"Range": "bytes=16380-16400"}, data[16380:16401]),
                                ("/static/a.txt", {}, CONTENT)]:
        c.request("GET", path, headers=headers)
        got = c.getresponse().read()
        assert (len(got), got == body) == (len(body), True), path
    c.request("HEAD", "/big")
    r = c.getresponse()
    assert (r.getheader("content-length"), r.read()) == (str(BIG), b"")
    c.close()
