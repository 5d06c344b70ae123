"""HTTP/2 end to end: h2c prior knowledge and h2 over TLS, the same request path as HTTP/1.1, limits, flood
defences (GOAWAY ENHANCE_YOUR_CALM), and h2spec conformance."""
import json
import os
import pathlib
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest

from tests.e2e.certs import Pki

ROOT = pathlib.Path(__file__).resolve().parents[2]
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, CONTINUATION = 0, 1, 3, 4, 6, 7, 9
END_STREAM, END_HEADERS, ACK = 1, 4, 1
PROTOCOL_ERROR, REFUSED_STREAM, ENHANCE_YOUR_CALM = 1, 7, 11




def open_socket(server, use_tls: bool, pki: Pki | None) -> socket.socket:
    s = socket.create_connection((server.host, server.port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if not use_tls:
        return s
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    ctx.set_alpn_protocols(["h2"])
    t = ctx.wrap_socket(s, server_hostname="localhost")
    assert t.selected_alpn_protocol() == "h2"
    return t


class H2Client:
    """A blocking HTTP/2 client over the h2 state machine; collects responses by stream id."""

    def __init__(self, sock, local_settings=None, scheme="https", preface=True):
        """`preface=False` leaves the connection preface to the caller (an h2c upgrade sends it after the 101)."""
        self.sock = sock
        self.scheme = scheme
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        if local_settings:
            self.conn.local_settings = h2.settings.Settings(client=True, initial_values=local_settings)
        if preface:
            self.conn.initiate_connection()
            self.flush()
        self.responses: dict[int, dict] = {}
        self.goaway = None

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def start(self, method, path, headers=(), body=b"", end=True):
        sid = self.conn.get_next_available_stream_id()
        self.responses[sid] = {"headers": {}, "body": b"", "ended": False, "reset": None}
        hdrs = [(":method", method), (":scheme", self.scheme), (":authority", "localhost"), (":path", path), *headers]
        self.conn.send_headers(sid, hdrs, end_stream=not body and end)
        self.flush()
        while body:
            size = min(len(body), self.conn.max_outbound_frame_size)
            if self.conn.local_flow_control_window(sid) < size:
                self.pump(lambda n=size: self.conn.local_flow_control_window(sid) >= n)
            self.conn.send_data(sid, body[:size], end_stream=end and size == len(body))
            body = body[size:]
            self.flush()
        return sid

    def pump(self, until, timeout=10.0):
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("no answer in time")
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.feed(data)

    def feed(self, data):
        for ev in self.conn.receive_data(data):
            self.on_event(ev)
        self.flush()

    def on_event(self, ev):
        if isinstance(ev, h2.events.ResponseReceived):
            self.responses[ev.stream_id]["headers"] = dict(ev.headers)
        elif isinstance(ev, h2.events.DataReceived):
            self.responses[ev.stream_id]["body"] += ev.data
            self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self.responses[ev.stream_id]["ended"] = True
        elif isinstance(ev, h2.events.StreamReset):
            self.responses[ev.stream_id]["reset"] = ev.error_code
        elif isinstance(ev, h2.events.ConnectionTerminated):
            self.goaway = ev

    def wait(self, sid):
        """(status, headers, body) of stream `sid` once it ended or was reset."""
        self.pump(lambda: self.responses[sid]["ended"] or self.responses[sid]["reset"] is not None)
        r = self.responses[sid]
        return int(r["headers"].get(":status", 0)), r["headers"], r["body"]

    def request(self, method, path, headers=(), body=b""):
        return self.wait(self.start(method, path, headers, body))


def curl(*args, timeout=10):
    return subprocess.run(["curl", "-s", "--noproxy", "*", *args], capture_output=True, text=True, timeout=timeout,
                          check=True).stdout


# ---- curl ----

def test_curl_h2c_prior_knowledge(start_server):
    server = start_server("--threads", "1")
    out = curl("--http2-prior-knowledge", "-w", "\n%{http_code} %{http_version}", f"{server.url}/hello")
    assert out == '{"message":"hello"}\n200 2'


def test_curl_h2_over_tls(start_server, pki):
    server = start_server("--threads", "1", "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key))
    out = curl("--http2", "--cacert", str(pki.ca_cert), "-w", "\n%{http_code} %{http_version}",
               f"https://127.0.0.1:{server.port}/hello")
    assert out == '{"message":"hello"}\n200 2'
    out = curl("--http2", "--cacert", str(pki.ca_cert), "-H", "Content-Type: application/json",
               "--data-binary", '{"x": [1, 2]}', f"https://127.0.0.1:{server.port}/echo")
    assert out == '{"x":[1,2]}'


def test_curl_upgrade_h2c_is_served_over_http2(start_server):
    # Upgrade: h2c (RFC 7540 §3.2) is accepted: 101, then stream 1 (more in test_h2c_upgrade.py).
    server = start_server("--threads", "1")
    out = curl("--http2", "-w", "\n%{http_code} %{http_version}", f"{server.url}/hello")
    assert out == '{"message":"hello"}\n200 2'


def test_http2_off_leaves_the_preface_to_http1(start_server):
    server = start_server("--threads", "1", "--no-http2")
    with server.connect() as s:
        s.sendall(PREFACE)
        assert s.recv(4096).startswith(b"HTTP/1.1 ")


# ---- the same request path ----

def test_routes_validation_and_handlers(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki))
    status, headers, body = c.request("GET", "/hello")
    assert (status, body) == (200, b'{"message":"hello"}')
    assert headers["content-type"] == "application/json"
    assert headers["content-length"] == str(len(body))
    assert len(headers["x-request-id"]) == 32
    assert headers["server"] == "slipstream"
    status, _, body = c.request("POST", "/echo", [("content-type", "application/json")], b'{"a": [1, {"b": true}]}')
    assert (status, body) == (200, b'{"a":[1,{"b":true}]}')
    status, _, body = c.request("POST", "/echo", [("content-type", "application/json")], b"{bad")
    assert status == 400
    assert json.loads(body)["status"] == 400
    status, _, body = c.request("GET", "/delay/20")
    assert (status, body) == (200, b'{"delayed_ms":20}')
    status, _, body = c.request("GET", "/stream/4")
    assert (status, body) == (200, b"line 0\nline 1\nline 2\nline 3\n")
    status, headers, body = c.request("HEAD", "/hello")
    assert (status, body, headers["content-length"]) == (200, b"", "19")
    status, headers, body = c.request("GET", "/missing")
    assert (status, headers["content-type"]) == (404, "application/problem+json")
    status, headers, _ = c.request("DELETE", "/hello")
    assert status == 405
    assert "GET" in headers["allow"]
    status, _, _ = c.request("GET", "/hello", [("x-request-id", "my-id-1")])
    assert c.responses[max(c.responses)]["headers"]["x-request-id"] == "my-id-1"
    assert server.wait_for_line('"path":"/hello"') is not None


def test_metrics_count_http2_requests(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki))
    for _ in range(3):
        assert c.request("GET", "/hello")[0] == 200
    _, _, body = c.request("GET", "/metrics")
    assert 'slipstream_http_requests_total{route="/hello",method="GET",status="200"} 3' in body.decode()


def test_multiplexed_streams_answer_independently(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki))
    slow = c.start("GET", "/delay/300")
    fast = [c.start("GET", "/hello") for _ in range(20)]
    c.pump(lambda: all(c.responses[s]["ended"] for s in fast))
    assert not c.responses[slow]["ended"]  # the slow answer does not hold the others back
    c.pump(lambda: c.responses[slow]["ended"])
    assert c.responses[slow]["body"] == b'{"delayed_ms":300}'


def test_settings_are_advertised(any_server, pki):
    server, use_tls = any_server("--h2-max-concurrent-streams", "7", "--h2-max-header-list-size", "32k")
    c = H2Client(open_socket(server, use_tls, pki))
    c.pump(lambda: c.conn.remote_settings.max_concurrent_streams == 7)
    assert c.conn.remote_settings.max_header_list_size == 32 * 1024
    assert c.conn.remote_settings.initial_window_size == 1024 * 1024


def test_flow_control_with_a_small_client_window(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki), {h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 64})
    status, _, body = c.request("GET", "/stream/300")
    assert status == 200
    assert body == b"".join(f"line {i}\n".encode() for i in range(300))


def test_upload_larger_than_the_default_window(any_server, pki):
    server, use_tls = any_server("--max-body-bytes", "2m")
    c = H2Client(open_socket(server, use_tls, pki))
    c.pump(lambda: c.conn.remote_settings.initial_window_size == 1024 * 1024)
    payload = json.dumps({"items": ["y" * 64] * 4000}, separators=(",", ":")).encode()
    assert len(payload) > 200_000
    sid = c.start("POST", "/echo", [("content-type", "application/json")], payload, end=True)
    c.pump(lambda: c.responses[sid]["ended"])
    assert c.responses[sid]["body"] == payload


def test_body_over_the_limit_is_413(any_server, pki):
    server, use_tls = any_server("--max-body-bytes", "1k")
    c = H2Client(open_socket(server, use_tls, pki))
    status, _, _ = c.request("POST", "/echo", [("content-type", "application/json")], b"[" + b"1," * 1000 + b"1]")
    assert status == 413


def test_header_list_over_the_limit_is_431(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki))
    status, _, _ = c.request("GET", "/hello", [("x-big", "v" * 20000)])
    assert status == 431
    assert c.request("GET", "/hello")[0] == 200  # the connection goes on


def test_client_reset_cancels_the_handler_stream(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki))
    sid = c.start("GET", "/delay/2000")
    c.conn.reset_stream(sid)
    c.flush()
    assert c.request("GET", "/hello")[0] == 200


# ---- raw frames: limits and floods ----

def frame(ftype: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def hpack_int(first: int, prefix: int, v: int) -> bytes:
    top = (1 << prefix) - 1
    if v < top:
        return bytes([first | v])
    out, v = bytearray([first | top]), v - top
    while v >= 128:
        out.append(v % 128 + 128)
        v //= 128
    out.append(v)
    return bytes(out)


def literal(name: bytes, value: bytes, index: bool = False) -> bytes:
    return bytes([0x40 if index else 0]) + hpack_int(0, 7, len(name)) + name + hpack_int(0, 7, len(value)) + value


def get_block(path: bytes = b"/hello") -> bytes:
    return literal(b":method", b"GET") + literal(b":scheme", b"http") + literal(b":authority", b"x") + \
        literal(b":path", path)


def parse_frames(data: bytes) -> list[tuple[int, int, int, bytes]]:
    frames = []
    while len(data) >= 9:
        length = int.from_bytes(data[:3], "big")
        if len(data) < 9 + length:
            break
        frames.append((data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF, data[9:9 + length]))
        data = data[9 + length:]
    return frames


def raw_exchange(sock, payload: bytes, wait_for_settings_ack=False) -> list[tuple[int, int, int, bytes]]:
    """Sends the preface and `payload`, reads until the server closes; returns the frames it sent."""
    received = b""
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
    if wait_for_settings_ack:
        while not any(f[0] == SETTINGS and not f[1] & ACK for f in parse_frames(received)):
            received += sock.recv(65536)
        sock.sendall(frame(SETTINGS, ACK, 0))
    try:
        sock.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server hung up mid-flood: what it sent before is below
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return parse_frames(received)


def goaway_code(frames) -> int | None:
    for ftype, _, _, payload in frames:
        if ftype == GOAWAY:
            return int.from_bytes(payload[4:8], "big")
    return None


def flood_ping():
    return b"".join(frame(PING, 0, 0, b"12345678") for _ in range(200))


def flood_settings():
    return b"".join(frame(SETTINGS, 0, 0) for _ in range(200))


def flood_empty_data():
    head = frame(HEADERS, END_HEADERS, 1, literal(b":method", b"POST") + get_block()[len(literal(b":method", b"GET")):])
    return head + b"".join(frame(DATA, 0, 1) for _ in range(200))


def flood_rapid_reset():
    out = b""
    for sid in range(1, 400, 2):
        out += frame(HEADERS, END_HEADERS | END_STREAM, sid, get_block()) + frame(RST_STREAM, 0, sid, b"\0\0\0\x08")
    return out


def flood_continuation():
    return frame(HEADERS, 0, 1, get_block()) + b"".join(
        frame(CONTINUATION, 0, 1, literal(b"x-a", b"b")) for _ in range(100))


def hpack_bomb():
    block = get_block() + literal(b"x-bomb", b"b" * 4000, index=True) + bytes([0x80 | 62]) * 2000
    return frame(HEADERS, END_HEADERS | END_STREAM, 1, block)


@pytest.mark.parametrize(("attack", "flags"), [
    (flood_ping, ["--h2-control-burst", "50"]),
    (flood_settings, ["--h2-control-burst", "50"]),
    (flood_empty_data, ["--h2-control-burst", "50"]),
    (flood_rapid_reset, ["--h2-reset-burst", "50"]),
    (flood_continuation, []),
    (hpack_bomb, []),
])
def test_floods_end_with_enhance_your_calm(any_server, pki, attack, flags):
    server, use_tls = any_server(*flags)
    with open_socket(server, use_tls, pki) as s:
        frames = raw_exchange(s, attack())
    assert goaway_code(frames) == ENHANCE_YOUR_CALM
    assert server.proc.poll() is None
    c = H2Client(open_socket(server, use_tls, pki))  # other clients are served as before
    assert c.request("GET", "/hello")[0] == 200


def test_max_concurrent_streams_is_enforced(any_server, pki):
    server, use_tls = any_server("--h2-max-concurrent-streams", "2")
    payload = b"".join(frame(HEADERS, END_HEADERS | END_STREAM, sid, get_block(b"/delay/500")) for sid in (1, 3, 5))
    with open_socket(server, use_tls, pki) as s:
        frames = raw_exchange(s, payload, wait_for_settings_ack=True)
    refused = [f for f in frames if f[0] == RST_STREAM and f[2] == 5]
    assert goaway_code(frames) == PROTOCOL_ERROR or (refused and refused[0][3] in (b"\0\0\0\x01", b"\0\0\0\x07"))


MALFORMED = {
    "uppercase name": get_block() + literal(b"X-Upper", b"1"),
    "CR LF in a value": get_block() + literal(b"x-a", b"a\r\nb: c"),
    "connection-specific field": get_block() + literal(b"connection", b"close"),
    "pseudo-field after a regular one": literal(b"accept", b"*/*") + get_block(),
    "no :path": literal(b":method", b"GET") + literal(b":scheme", b"http") + literal(b":authority", b"x"),
    "content-length with no body": get_block() + literal(b"content-length", b"5"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_requests_are_reset_and_the_connection_goes_on(any_server, pki, case):
    server, use_tls = any_server()
    with open_socket(server, use_tls, pki) as s:
        s.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_HEADERS | END_STREAM, 1, MALFORMED[case]) +
                  frame(HEADERS, END_HEADERS | END_STREAM, 3, get_block()))
        frames, _ = read_frames_until(s, lambda f: any(x[0] == DATA and x[2] == 3 and x[1] & END_STREAM for x in f))
    resets = [payload for ftype, _, sid, payload in frames if ftype == RST_STREAM and sid == 1]
    assert resets == [struct.pack(">I", PROTOCOL_ERROR)]
    assert not any(ftype == HEADERS and sid == 1 for ftype, _, sid, _ in frames)  # no handler ran for it
    assert any(ftype == DATA and sid == 3 for ftype, _, sid, _ in frames)  # the next request is answered
    assert goaway_code(frames) is None


def read_frames_until(sock, done, received=b""):
    """Reads until `done(frames)` or the server closes; returns (frames, bytes)."""
    while not done(parse_frames(received)):
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    return parse_frames(received), received


def test_first_frame_must_be_settings(start_server):
    server = start_server("--threads", "1")
    with server.connect() as s:
        s.sendall(PREFACE + frame(PING, 0, 0, b"12345678"))
        frames, _ = read_frames_until(s, lambda f: False)
    assert goaway_code(frames) == PROTOCOL_ERROR


def test_drain_finishes_streams_and_sends_goaway(any_server, pki):
    server, use_tls = any_server()
    with open_socket(server, use_tls, pki) as s:
        s.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(SETTINGS, ACK, 0) +
                  frame(HEADERS, END_HEADERS | END_STREAM, 1, get_block(b"/delay/300")) + frame(PING, 0, 0, b"syncsync"))
        # The PING's answer comes after the request was dispatched: the handler is at work when the signal comes.
        _, received = read_frames_until(s, lambda f: any(x[0] == PING and x[1] & ACK for x in f))
        server.proc.send_signal(signal.SIGTERM)
        frames, _ = read_frames_until(s, lambda f: False, received)
    assert goaway_code(frames) == 0
    data = [f for f in frames if f[0] == DATA and f[2] == 1]
    assert b"".join(f[3] for f in data) == b'{"delayed_ms":300}'
    assert data[-1][1] & END_STREAM
    assert server.proc.wait(timeout=15) == 0


# ---- h2spec ----

def h2spec_binary() -> str | None:
    for candidate in (os.environ.get("SLIPSTREAM_H2SPEC"), shutil.which("h2spec"), str(ROOT / "build/tools/h2spec")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def run_h2spec(server, tls: bool, strict: bool) -> subprocess.CompletedProcess:
    binary = h2spec_binary()
    if binary is None:
        pytest.skip("h2spec is not installed: run scripts/setup_h2spec.sh (builds it with the Go toolchain)")
    args = [binary, "-h", "127.0.0.1", "-p", str(server.port), "-o", "5", "-j", "/dev/null"]
    if tls:
        args += ["-t", "-k"]
    if strict:
        args.append("-S")
    return subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)


def h2spec_summary(out: str) -> tuple[int, int, int]:
    """(tests, passed, failed) from h2spec's last line: '146 tests, 145 passed, 1 skipped, 0 failed'."""
    for line in reversed(out.splitlines()):
        if " tests, " in line:
            parts = {p.split()[1]: int(p.split()[0]) for p in line.strip().split(", ")}
            return parts["tests"], parts["passed"], parts["failed"]
    raise AssertionError("no h2spec summary in:\n" + out[-2000:])


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_h2spec(any_server, pki, strict):
    server, use_tls = any_server("--max-body-bytes", "16m")
    proc = run_h2spec(server, use_tls, strict)
    tests, passed, failed = h2spec_summary(proc.stdout)
    print(f"h2spec {'strict ' if strict else ''}{'TLS' if use_tls else 'cleartext'}: "
          f"{tests} tests, {passed} passed, {failed} failed")
    assert failed == 0, proc.stdout[-4000:]
