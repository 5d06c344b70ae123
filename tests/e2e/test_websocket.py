"""WebSocket (RFC 6455 + 7692) against examples/hello's /ws/echo: the `websockets` client, then raw sockets."""
import base64
import hashlib
import os
import select
import signal
import socket
import struct
import time
import zlib

import pytest

from tests.e2e.helpers import metric, ws_deflate, ws_frame
from tests.e2e.http_client import RawConnection

websockets = pytest.importorskip("websockets")
from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.sync.client import connect

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_MESSAGE = 1024 * 1024  # ServerOptions::ws_max_message_bytes default


def ws_url(server, path="/ws/echo"):
    return f"ws://{server.host}:{server.port}{path}"


# ---- a raw client: exact bytes on the wire ----


class RawWs:
    """Handshakes with raw bytes, then sends and reads single frames."""

    def __init__(self, server, path="/ws/echo", extensions=None, timeout=5.0):
        self.sock = server.connect(timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        ext = f"Sec-WebSocket-Extensions: {extensions}\r\n" if extensions else ""
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{ext}\r\n"
            ).encode()
        )
        self.conn = RawConnection(self.sock)
        self.response = self.conn.read_response()
        assert self.response.status == 101, self.response.raw_head
        expected = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
        assert self.response.header("sec-websocket-accept") == expected

    def send(self, data):
        self.sock.sendall(data)

    def read_frame(self):
        """(fin, rsv, opcode, payload) of the next server frame."""
        b0, b1 = self.conn._read_exact(2)
        assert b1 & 0x80 == 0, "server frames are never masked"
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack(">H", self.conn._read_exact(2))
        elif n == 127:
            (n,) = struct.unpack(">Q", self.conn._read_exact(8))
        return bool(b0 & 0x80), (b0 >> 4) & 7, b0 & 0x0F, self.conn._read_exact(n)

    def read_close(self):
        """The close code and reason the server sent, skipping data frames before it."""
        while True:
            _, _, op, payload = self.read_frame()
            if op == 8:
                if not payload:
                    return 1005, ""
                return struct.unpack(">H", payload[:2])[0], payload[2:].decode()

    def closed_by_peer(self, timeout=5.0):
        """True when the server closes the TCP connection within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        self.sock.settimeout(timeout)
        while time.monotonic() < deadline:
            try:
                if not self.sock.recv(65536):
                    return True
            except (ConnectionResetError, BrokenPipeError):
                return True
            except TimeoutError:
                return False
        return False


# ---- handshake ----


def test_upgrade_answers_101_with_accept_key(hello_server):
    ws = RawWs(hello_server)
    assert ws.response.header("upgrade").lower() == "websocket"
    assert ws.response.header("connection").lower() == "upgrade"
    assert ws.response.header("sec-websocket-extensions") is None  # not offered, not agreed


@pytest.mark.parametrize(
    "headers,status",
    [
        ("", 426),  # a plain GET on a WebSocket route
        ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n", 400),  # no key
        (
            ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 8\r\n"),
            426,
        ),
        (
            ("Upgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n"),
            400,
        ),
    ],
    ids=["no-upgrade", "no-key", "version-8", "connection-without-upgrade"],
)
def test_bad_handshakes_are_refused(hello_server, headers, status):
    c = RawConnection(hello_server.connect())
    c.send(f"GET /ws/echo HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    resp = c.read_response()
    assert resp.status == status
    assert resp.header("content-type") == "application/problem+json"
    if status == 426:
        assert resp.header("sec-websocket-version") == "13"
    # The connection stays usable for HTTP.
    c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert c.read_response().status == 200
    assert metric(hello_server, "slipstream_ws_handshake_rejected_total", {"status": str(status)}) == 1


# ---- framing with a real client ----


@pytest.mark.parametrize("compression", [None, "deflate"], ids=["plain", "deflate"])
@pytest.mark.parametrize(
    "message",
    ["hello", "", "κόσμε ✓ 😀", "x" * 70000, b"\x00\x01\xff", b"", os.urandom(200000)],
    ids=["text", "empty-text", "unicode", "text-64bit-len", "binary", "empty-binary", "random-binary"],
)
def test_echo(hello_server, message, compression):
    with connect(ws_url(hello_server), compression=compression, max_size=None) as ws:
        ws.send(message)
        assert ws.recv(timeout=5) == message


def test_many_messages_in_order(hello_server):
    with connect(ws_url(hello_server)) as ws:
        for i in range(200):
            ws.send(f"m{i}")
        assert [ws.recv(timeout=5) for _ in range(200)] == [f"m{i}" for i in range(200)]


def test_fragmented_message_is_reassembled(hello_server):
    with connect(ws_url(hello_server), compression=None) as ws:
        ws.send(["Hel", "lo, ", "wor", "ld"])
        assert ws.recv(timeout=5) == "Hello, world"
        ws.send([b"\x01", b"\x02\x03"])
        assert ws.recv(timeout=5) == b"\x01\x02\x03"


def test_ping_gets_pong(hello_server):
    with connect(ws_url(hello_server)) as ws:
        pong = ws.ping(b"are you there")
        assert pong.wait(timeout=5)


@pytest.mark.parametrize("code,reason", [(1000, "bye"), (1001, ""), (4001, "custom"), (3000, "x" * 100)])
def test_client_close_is_echoed(hello_server, code, reason):
    with connect(ws_url(hello_server)) as ws:
        ws.close(code, reason)
        assert ws.protocol.close_rcvd is not None
        assert ws.protocol.close_rcvd.code == code  # the server echoes the code
    label = str(code) if code < 3000 else "3xxx" if code < 4000 else "4xxx"
    assert metric(hello_server, "slipstream_ws_closes_total", {"code": label}) == 1


def test_deflate_is_negotiated_with_parameters(hello_server):
    factory = ClientPerMessageDeflateFactory(server_no_context_takeover=True, client_no_context_takeover=True,
                                             server_max_window_bits=10)
    with connect(ws_url(hello_server), extensions=[factory], compression=None) as ws:
        ext = ws.response.headers["Sec-WebSocket-Extensions"]
        assert ext == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10"
        for i in range(5):
            msg = ("abc" * 1000) + str(i)
            ws.send(msg)
            assert ws.recv(timeout=5) == msg


def test_server_compresses_large_messages(hello_server):
    ws = RawWs(hello_server, extensions="permessage-deflate")
    assert ws.response.header("sec-websocket-extensions") == "permessage-deflate"
    text = b"compress me " * 1000
    ws.send(ws_frame(1, ws_deflate(text), rsv=4))
    fin, rsv, op, payload = ws.read_frame()
    assert (fin, rsv, op) == (True, 4, 1)
    assert len(payload) < len(text) // 10
    assert zlib.decompressobj(wbits=-15).decompress(payload + b"\x00\x00\xff\xff") == text


# ---- protocol errors from raw sockets ----


def bad_utf8():
    return "κόσμε".encode() + b"\xed\xa0\x80" + b"edited"


@pytest.mark.parametrize(
    "data,code",
    [
        (ws_frame(1, b"hi", mask=False), 1002),  # unmasked client frame
        (ws_frame(3, b"x"), 1002),  # reserved opcode
        (ws_frame(0xB, b""), 1002),  # reserved control opcode
        (ws_frame(1, b"x", rsv=2), 1002),  # RSV2 set
        (ws_frame(1, b"x", rsv=4), 1002),  # RSV1 without permessage-deflate
        (ws_frame(9, b"x", fin=False), 1002),  # fragmented ping
        (ws_frame(9, b"p" * 126), 1002),  # ping over 125 bytes
        (ws_frame(0, b"x"), 1002),  # continuation without a message
        (ws_frame(1, b"a", fin=False) + ws_frame(1, b"b"), 1002),  # new message inside a fragmented one
        (ws_frame(8, b"\x03"), 1002),  # one-byte close payload
        (ws_frame(8, struct.pack(">H", 1005)), 1002),  # close code that must not be sent
        (ws_frame(8, struct.pack(">H", 2999)), 1002),  # unassigned close code
        (ws_frame(8, struct.pack(">H", 1000) + b"\xff"), 1007),  # close reason not UTF-8
        (ws_frame(1, bad_utf8()), 1007),  # invalid UTF-8 text
        (ws_frame(1, bad_utf8()[:13], fin=False), 1007),  # ...caught before the message ends
        (ws_frame(1, b"\xe2\x82", fin=False) + ws_frame(0, b""), 1007),  # truncated at the end
        (ws_frame(2, b"", length=MAX_MESSAGE + 1), 1009),  # frame over the limit, refused from its header
        (ws_frame(2, b"x" * 600000, fin=False) + ws_frame(0, b"x" * 600000), 1009),  # message over the limit
    ],
    ids=[
        "unmasked", "opcode-3", "opcode-B", "rsv2", "rsv1-no-deflate", "fragmented-ping", "long-ping",
        "orphan-continuation", "nested-message", "close-1-byte", "close-1005", "close-2999", "close-bad-reason",
        "bad-utf8", "bad-utf8-fail-fast", "truncated-utf8", "frame-too-big", "message-too-big",
    ],
)
def test_protocol_errors_close_with_code(hello_server, data, code):
    ws = RawWs(hello_server)
    ws.send(data)
    assert ws.read_close()[0] == code
    assert ws.closed_by_peer()


def test_valid_utf8_split_across_fragments(hello_server):
    ws = RawWs(hello_server)
    ws.send(ws_frame(1, b"\xe2\x82", fin=False) + ws_frame(9, b"ping") + ws_frame(0, b"\xac"))
    assert ws.read_frame() == (True, 0, 10, b"ping")  # the pong comes between the fragments
    assert ws.read_frame() == (True, 0, 1, "€".encode())


def test_message_at_the_limit_is_accepted(hello_server):
    with connect(ws_url(hello_server), compression=None, max_size=None) as ws:
        ws.send(b"y" * MAX_MESSAGE)
        assert len(ws.recv(timeout=10)) == MAX_MESSAGE


def test_decompression_bomb_is_capped(hello_server):
    ws = RawWs(hello_server, extensions="permessage-deflate")
    bomb = ws_deflate(b"\x00" * (200 * 1024 * 1024))  # 200 MiB of zeros in ~200 KiB
    assert len(bomb) < 300 * 1024
    ws.send(ws_frame(2, bomb[: 100 * 1024], rsv=4))
    assert ws.read_close()[0] == 1009
    assert ws.closed_by_peer()
    # The server is fine.
    with connect(ws_url(hello_server)) as other:
        other.send("still here")
        assert other.recv(timeout=5) == "still here"


def test_corrupt_deflate_data(hello_server):
    ws = RawWs(hello_server, extensions="permessage-deflate")
    ws.send(ws_frame(2, b"\xff\xff\xff\xff", rsv=4))
    assert ws.read_close()[0] == 1007


def test_close_handshake_from_raw_client(hello_server):
    ws = RawWs(hello_server)
    ws.send(ws_frame(1, b"before close"))
    ws.send(ws_frame(8, struct.pack(">H", 1000) + b"done"))
    assert ws.read_frame() == (True, 0, 1, b"before close")
    assert ws.read_close() == (1000, "")
    assert ws.closed_by_peer()  # the server closes the TCP connection first


def test_empty_close_is_echoed_empty(hello_server):
    ws = RawWs(hello_server)
    ws.send(ws_frame(8, b""))
    assert ws.read_frame() == (True, 0, 8, b"")


def test_unanswered_ping_payload_is_echoed(hello_server):
    ws = RawWs(hello_server)
    ws.send(ws_frame(9, b"\x00abc\xff"))
    assert ws.read_frame() == (True, 0, 10, b"\x00abc\xff")


# ---- backpressure, shutdown, metrics ----


def test_slow_reader_pauses_reading_then_catches_up(hello_server):
    """A client that sends without reading fills the server's output; the server stops reading from it
    (the client's send blocks) instead of buffering without bound, and serves other clients meanwhile."""
    ws = RawWs(hello_server)
    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    chunk = ws_frame(2, b"z" * 65536)
    ws.sock.setblocking(False)
    sent = 0
    stalled_at = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        _, writable, _ = select.select([], [ws.sock], [], 0.5)
        if not writable:
            stalled_at = sent
            break
        try:
            sent += ws.sock.send(chunk)
        except BlockingIOError:
            continue
    assert stalled_at is not None, "the server kept reading while its output could not drain"
    # Bounded: the server holds at most its output limit plus socket buffers, not everything sent.
    assert stalled_at < 64 * 1024 * 1024
    with connect(ws_url(hello_server)) as other:
        other.send("not blocked")
        assert other.recv(timeout=5) == "not blocked"
    # Reading again drains everything: every whole frame sent comes back.
    ws.sock.setblocking(True)
    ws.sock.settimeout(10)
    whole = sent // len(chunk)
    for _ in range(whole):
        assert ws.read_frame()[2] == 2


def test_shutdown_closes_with_1001(start_server):
    server = start_server("--threads", "1")
    with connect(ws_url(server)) as ws:
        ws.send("hi")
        assert ws.recv(timeout=5) == "hi"
        server.proc.send_signal(signal.SIGTERM)
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1001
    assert server.proc.wait(timeout=15) == 0


def test_metrics_count_messages(hello_server):
    with connect(ws_url(hello_server), compression=None) as ws:
        for _ in range(3):
            ws.send("abcd")
            ws.recv(timeout=5)
        assert metric(hello_server, "slipstream_ws_connections_open") == 1
    assert metric(hello_server, "slipstream_ws_upgrades_total") == 1
    assert metric(hello_server, "slipstream_ws_messages_received_total") == 3
    assert metric(hello_server, "slipstream_ws_messages_sent_total") == 3
    assert metric(hello_server, "slipstream_ws_received_bytes_total") == 12


def test_message_limit_flag_is_applied(start_server):
    server = start_server("--threads", "1", "--ws-max-message-bytes", "1k", "--no-ws-deflate")
    with connect(ws_url(server), compression=None, max_size=None) as ws:
        ws.send(b"a" * 1024)
        assert len(ws.recv(timeout=5)) == 1024
        ws.send(b"b" * 1025)
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=5)
        assert ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1009
