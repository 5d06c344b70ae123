"""Helpers shared by the end-to-end tests: /metrics samples, polling, curl, server stderr, raw HTTP/2 frames and
an HTTP/2 client, WebSocket frames, and one client that speaks each protocol the engine serves (h1, h1 over TLS,
h2c, h2) so that a behaviour test runs over all of them (see the `serve` fixture in conftest.py)."""

import contextlib
import dataclasses
import json
import os
import re
import select
import socket
import ssl
import struct
import subprocess
import time
import zlib

import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest

from tests.e2e.certs import Pki
from tests.e2e.http_client import RawConnection

# ---- polling, curl, server output ----


def poll(fn, until, what, timeout=10.0):
    """Calls fn() until until(value) holds; returns the value (fails after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if until(value):
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}: last {value!r}"
        time.sleep(0.02)


def wait_until(check, what, timeout=5.0):
    """Polls an observable server state (a metric) until `check()` holds; fails after `timeout`."""
    poll(check, bool, what, timeout)


def curl(*args, input=None, timeout=10, text=True):
    """curl's stdout (str, or bytes with text=False); fails on a non-zero exit."""
    return subprocess.run(["curl", "-s", "--noproxy", "*", *args], input=input, capture_output=True, text=text,
                          timeout=timeout, check=True).stdout


def wait_for_stderr(server, needle, timeout=5.0):
    """The next line of the server's stderr (its log) holding `needle`, or None after `timeout` or at EOF.
    Reads the raw descriptor; what follows the line stays buffered for the next call."""
    fd = server.proc.stderr.fileno()
    pending = getattr(server, "stderr_pending", b"")
    deadline = time.monotonic() + timeout
    while True:
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            if needle.encode() in line:
                server.stderr_pending = pending
                return line.decode(errors="replace")
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            server.stderr_pending = pending
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            server.stderr_pending = b""
            return pending.decode(errors="replace") if needle.encode() in pending else None
        pending += chunk


# ---- streamed bodies and the access log ----


def assert_records(body):
    """Every 16-byte record is its index as "%015d\n": nothing lost, repeated or out of order. Checked one
    digit column at a time (the 10^d digit of record i is i // 10^d % 10), which is fast on 100 MB."""
    n = len(body) // 16
    assert len(body) == 16 * n and body[15::16] == b"\n" * n
    for d in range(15):
        step = 10**d
        cycle = b"".join(bytes([48 + k]) * step for k in range(10)) if step <= n else b"0"
        expected = (cycle * (n // len(cycle) + 1))[:n]
        assert body[14 - d :: 16] == expected, f"the 10^{d} digits"


def log_line(server, path):
    """The next access-log line (parsed) of a request for `path`; fails after 10 s."""
    line = server.wait_for_line(f'"path":"{path}"', timeout=10)
    assert line is not None, f"no access-log line for {path}"
    return json.loads(line)


def get_json(server, path):
    """The JSON body of GET `path` on a fresh cleartext connection."""
    s = server.connect()
    try:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    finally:
        s.close()
    return json.loads(data.split(b"\r\n\r\n", 1)[1])


# ---- /metrics ----


def metrics_text(source):
    """The /metrics exposition, read from a server (a fresh cleartext HTTP/1.1 connection), an open
    RawConnection (kept alive) or an H2Client (the same connection, answered after every frame sent before)."""
    if isinstance(source, H2Client):
        status, _, body = source.request("GET", "/metrics")
        assert status == 200
        return body.decode()
    if isinstance(source, RawConnection):
        source.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        return source.read_response().body.decode()
    with source.connect() as sock:
        conn = RawConnection(sock)
        conn.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        return conn.read_response().body.decode()


def metric_value(text, name, labels=None, default=0.0):
    """The value of one sample in exposition text (`labels`: a dict, in the order exposed); `default` if absent."""
    want = ",".join(f'{k}="{v}"' for k, v in (labels or {}).items())
    pattern = r"^" + re.escape(name) + (r"\{" + re.escape(want) + r"\}" if want else "") + r" (\S+)$"
    m = re.search(pattern, text, re.MULTILINE)
    return float(m.group(1)) if m else default


def metric(source, name, labels=None, default=0.0):
    """One sample's value read from `source` (see metrics_text); `default` when it is absent."""
    return metric_value(metrics_text(source), name, labels, default)


def metric_samples(text, prefixes):
    """Every sample whose name starts with one of `prefixes`: {'name{labels}': value}."""
    out = {}
    for line in text.splitlines():
        if line.startswith(prefixes):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


# ---- HTTP/2: raw frames ----

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS, ACK = 1, 4, 1
PROTOCOL_ERROR, REFUSED_STREAM, CANCEL, ENHANCE_YOUR_CALM = 1, 7, 8, 11


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


def send_and_read_rest(sock, payload: bytes, received: bytes = b"") -> list[tuple[int, int, int, bytes]]:
    """Sends `payload`, reads until the server closes; the frames it sent (after `received`, read before)."""
    try:
        sock.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server hung up mid-flood: what it sent before is read below
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return parse_frames(received)


def raw_exchange(sock, payload: bytes, wait_for_settings_ack=False) -> list[tuple[int, int, int, bytes]]:
    """Sends the preface and `payload`, reads until the server closes; returns the frames it sent."""
    received = b""
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
    if wait_for_settings_ack:
        while not any(f[0] == SETTINGS and not f[1] & ACK for f in parse_frames(received)):
            received += sock.recv(65536)
        sock.sendall(frame(SETTINGS, ACK, 0))
    return send_and_read_rest(sock, payload, received)


def read_frames_until(sock, done, received=b"", closed_ok=True):
    """Reads until `done(frames)`; returns (frames, bytes). When the server closes first: stops there, or
    fails when `closed_ok` is False."""
    while not done(parse_frames(received)):
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            assert closed_ok, "the server closed the connection"
            break
        received += chunk
    return parse_frames(received), received


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


# ---- HTTP/2: a client over the h2 state machine ----


def open_socket(server, use_tls: bool, pki: Pki | None, alpn: str = "h2") -> socket.socket:
    """A TCP connection to `server`; under TLS, with `alpn` offered and agreed."""
    s = socket.create_connection((server.host, server.port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if not use_tls:
        return s
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    ctx.set_alpn_protocols([alpn])
    t = ctx.wrap_socket(s, server_hostname="localhost")
    assert t.selected_alpn_protocol() == alpn
    return t


class H2Client:
    """A blocking HTTP/2 client over the h2 state machine; collects responses by stream id ("headers": a dict,
    "fields": the list as received, a repeated field visible)."""

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
        self.responses[sid] = {"headers": {}, "fields": [], "body": b"", "ended": False, "reset": None}
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
            self.responses[ev.stream_id]["fields"] = list(ev.headers)
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


def read_head(sock) -> tuple[bytes, bytes]:
    """An HTTP/1.1 response head and whatever followed it in the same reads."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head + b"\r\n\r\n", rest


def upgrade_request(path="/hello", method="GET", settings: str | None = None, extra=b"", body=b"") -> bytes:
    """An HTTP/1.1 request asking to upgrade to h2c (RFC 7540 §3.2)."""
    lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: localhost", b"Connection: Upgrade, HTTP2-Settings",
             b"Upgrade: h2c"]
    if settings is not None:
        lines.append(b"HTTP2-Settings: " + settings.encode())
    if body:
        lines += [b"Content-Type: application/json", b"Content-Length: " + str(len(body)).encode()]
    return b"\r\n".join(lines) + b"\r\n" + extra + b"\r\n" + body


SWITCH = b"HTTP/1.1 101 Switching Protocols\r\n"


class UpgradedClient(H2Client):
    """Performs the h2c upgrade with the h2 package's client state machine, then serves as an HTTP/2 client."""

    def __init__(self, server, path="/hello", method="GET", body=b""):
        super().__init__(socket.create_connection((server.host, server.port), timeout=10), scheme="http",
                         preface=False)
        settings = self.conn.initiate_upgrade_connection()
        self.sock.sendall(upgrade_request(path, method, settings.decode(), body=body))
        self.head, rest = read_head(self.sock)
        self.responses[1] = {"headers": {}, "fields": [], "body": b"", "ended": False, "reset": None}
        if self.head.startswith(SWITCH):
            self.flush()
            self.feed(rest)


# ---- WebSocket frames ----


def ws_frame(opcode, payload=b"", fin=True, rsv=0, mask=True, length=None):
    """A client frame (masked unless mask=False); `rsv`: the three RSV bits (4: RSV1); `length` may lie."""
    b0 = opcode | (0x80 if fin else 0) | (rsv << 4)
    n = len(payload) if length is None else length
    mbit = 0x80 if mask else 0
    if n < 126:
        head = bytes([b0, mbit | n])
    elif n < 65536:
        head = bytes([b0, mbit | 126]) + struct.pack(">H", n)
    else:
        head = bytes([b0, mbit | 127]) + struct.pack(">Q", n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def ws_deflate(data, sync=True):
    """permessage-deflate: raw deflate, flushed; `sync` drops the 00 00 FF FF tail as RFC 7692 asks."""
    c = zlib.compressobj(wbits=-15)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    return out[:-4] if sync else out


# ---- one client for every protocol ----


class Answer:
    """Status, fields (lower-case names, every value in order, no pseudo-fields) and body of one response."""

    def __init__(self, status, fields, body):
        self.status = status
        self.fields = fields
        self.body = body

    @property
    def headers(self):
        """The fields as a dict (the first value of a repeated one)."""
        out = {}
        for k, v in self.fields:
            out.setdefault(k, v)
        return out

    def header(self, name):
        return self.headers.get(name)

    def values(self, name):
        return [v for k, v in self.fields if k == name]

    def one(self, name):
        values = self.values(name)
        assert len(values) == 1, (name, self.fields)
        return values[0]

    def cors(self):
        """The Access-Control-* fields, each sent once."""
        out = {}
        for k, v in self.fields:
            if k.startswith("access-control-"):
                assert k not in out, (k, self.fields)
                out[k] = v
        return out


@dataclasses.dataclass(frozen=True)
class Protocol:
    """How a test reaches the server: "h1", "h1-tls" (ALPN http/1.1), "h2c" (prior knowledge), "h2" (ALPN h2)."""

    name: str
    pki: Pki

    @property
    def tls(self) -> bool:
        return self.name in ("h1-tls", "h2")

    @property
    def http2(self) -> bool:
        return self.name in ("h2c", "h2")

    def server_flags(self) -> tuple[str, ...]:
        return ("--tls-cert", str(self.pki.server_cert), "--tls-key", str(self.pki.server_key)) if self.tls else ()

    def connect(self, server) -> socket.socket:
        return open_socket(server, self.tls, self.pki, "h2" if self.http2 else "http/1.1")

    def client(self, server) -> "Client":
        return Client(server, self)

    def url(self, server) -> str:
        """The server's base URL for curl (https under TLS: the certificate names 127.0.0.1)."""
        return f"https://127.0.0.1:{server.port}" if self.tls else server.url

    def curl_flags(self) -> tuple[str, ...]:
        """curl's flags for this protocol (HTTP/2 over TLS through ALPN, h2c by prior knowledge)."""
        version = "--http2" if self.tls and self.http2 else "--http2-prior-knowledge" if self.http2 else "--http1.1"
        return (version, "--cacert", str(self.pki.ca_cert)) if self.tls else (version,)


class Client:
    """Requests to one server over one protocol and one kept-alive connection (HTTP/1.1: reopened after a
    Connection: close). `request` answers an Answer; `stream` reads a body piece by piece."""

    def __init__(self, server, protocol: Protocol):
        self.server = server
        self.protocol = protocol
        self._h1 = None
        self._h2 = None
        self._streams: list[RawConnection] = []  # HTTP/1.1 connections that stream() handed to a body

    @property
    def h2(self) -> H2Client:
        """The HTTP/2 connection (opened on first use)."""
        assert self.protocol.http2
        if self._h2 is None:
            self._h2 = H2Client(self.protocol.connect(self.server), scheme="https" if self.protocol.tls else "http")
        return self._h2

    def close(self):
        """Closes every connection of this client, the ones its streams read from included (a client that
        leaves mid-stream); the next request opens a new one."""
        for c in (self._h1, self._h2, *self._streams):
            if c is not None:
                c.sock.close()
        self._h1 = self._h2 = None
        self._streams = []

    def _h1_send(self, method, path, headers, body):
        if self._h1 is None:
            self._h1 = RawConnection(self.protocol.connect(self.server))
        lines = [f"{method} {path} HTTP/1.1", "Host: t", *(f"{k}: {v}" for k, v in headers)]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self._h1.send(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return self._h1

    def request(self, method, path, headers=(), body=b"") -> Answer:
        if self.protocol.http2:
            c = self.h2
            sid = c.start(method, path, [(k.lower(), v) for k, v in headers], body)
            status, _, data = c.wait(sid)
            fields = [(k, v) for k, v in c.responses[sid]["fields"] if not k.startswith(":")]
            return Answer(status, fields, data)
        r = self._h1_send(method, path, headers, body).read_response(head_request=method == "HEAD")
        if (r.header("connection") or "").lower() == "close":
            self.close()
        return Answer(r.status, r.headers, r.body)

    def stream(self, path, headers=()) -> "BodyStream":
        """A GET whose head has been read; its body comes piece by piece as the server sends it."""
        if self.protocol.http2:
            return _H2Stream(self.h2, self.h2.start("GET", path, [(k.lower(), v) for k, v in headers]))
        conn = self._h1_send("GET", path, headers, b"")
        self._h1 = None  # the stream owns the connection now
        self._streams.append(conn)
        return _H1Stream(conn)


class BodyStream:
    """A response read as it arrives: `answer` holds the status and fields; read() the next piece (b"" at the
    end): HTTP/1.1 one chunk, HTTP/2 what the next reads brought."""

    answer: Answer

    def read(self) -> bytes:
        raise NotImplementedError

    def rest(self) -> bytes:
        out = b""
        while piece := self.read():
            out += piece
        return out


class _H1Stream(BodyStream):
    def __init__(self, conn: RawConnection):
        self.conn = conn
        head = conn._read_until(b"\r\n\r\n")
        status_line, *lines = head[:-4].decode("latin-1").split("\r\n")
        fields = [(k.strip().lower(), v.strip()) for k, _, v in (line.partition(":") for line in lines)]
        self.answer = Answer(int(status_line.split()[1]), fields, b"")
        assert self.answer.header("transfer-encoding") == "chunked", fields

    def read(self) -> bytes:
        size = int(self.conn._read_until(b"\r\n")[:-2].split(b";")[0], 16)
        data = self.conn._read_exact(size + 2)[:-2]
        if not size:
            self.conn.sock.close()
        return data


class _H2Stream(BodyStream):
    def __init__(self, c: H2Client, sid: int):
        self.c, self.sid, self.seen = c, sid, 0
        r = c.responses[sid]
        c.pump(lambda: ":status" in r["headers"] or r["reset"] is not None)
        fields = [(k, v) for k, v in r["fields"] if not k.startswith(":")]
        self.answer = Answer(int(r["headers"].get(":status", 0)), fields, b"")

    def read(self) -> bytes:
        r = self.c.responses[self.sid]
        self.c.pump(lambda: len(r["body"]) > self.seen or r["ended"] or r["reset"] is not None)
        piece, self.seen = r["body"][self.seen:], len(r["body"])
        return piece


@contextlib.contextmanager
def bookstore_cluster(*extra_sql):
    """A throwaway PostgreSQL (tests/pg_cluster.py) with examples/bookstore/schema.sql loaded, then `extra_sql`;
    the test is skipped, with the reason, where PostgreSQL's server is not installed."""
    from tests.conftest import ROOT
    from tests.pg_cluster import PgCluster, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's server is not installed (scripts/setup.sh installs it)")
    cluster = PgCluster(bindir).start()
    try:
        cluster.psql(file=os.path.join(ROOT, "examples", "bookstore", "schema.sql"))
        for sql in extra_sql:
            cluster.psql(sql)
        yield cluster
    finally:
        cluster.close()
