"""WebSocket over HTTP/2 (RFC 8441 extended CONNECT) against examples/hello's /ws/echo, over h2c and TLS:
the handshake, RFC 6455 frames in the stream's DATA, the close handshake, refusals, multiplexing, resets,
permessage-deflate, drain and flow control."""
import os
import select
import signal
import socket
import struct
import threading
import time
import zlib

import h2.events
import h2.exceptions
import h2.settings
import pytest

from tests.e2e.helpers import (
    CANCEL,
    DATA,
    END_STREAM,
    GOAWAY,
    H2Client,
    frame,
    metric,
    open_socket,
    parse_frames,
    ws_deflate,
    ws_frame,
)

TEXT, BINARY, CONT, CLOSE, PING, PONG = 1, 2, 0, 8, 9, 10




# ---- RFC 6455 frames ----


def parse_frame(buf: bytes) -> tuple[tuple[int, bool, bool, bytes], int] | None:
    """((opcode, fin, rsv1, payload), length) of the server frame at the start of `buf`, or None if partial."""
    if len(buf) < 2:
        return None
    b0, b1 = buf[0], buf[1]
    assert b1 & 0x80 == 0, "server frames are never masked"
    n, at = b1 & 0x7F, 2
    if n == 126:
        if len(buf) < 4:
            return None
        n, at = struct.unpack(">H", buf[2:4])[0], 4
    elif n == 127:
        if len(buf) < 10:
            return None
        n, at = struct.unpack(">Q", buf[2:10])[0], 10
    if len(buf) < at + n:
        return None
    return (b0 & 0x0F, bool(b0 & 0x80), bool(b0 & 0x40), buf[at : at + n]), at + n


class WsStream:
    """One WebSocket on one stream of an H2Client: an extended CONNECT, then frames as DATA."""

    def __init__(self, client: H2Client, path="/ws/echo", headers=(), version="13", protocol="websocket"):
        self.c = client
        self.inflater = zlib.decompressobj(wbits=-15)
        hdrs = [(":protocol", protocol)]
        if version is not None:
            hdrs.append(("sec-websocket-version", version))
        self.sid = client.start("CONNECT", path, [*hdrs, *headers], end=False)
        r = client.responses[self.sid]
        client.pump(lambda: ":status" in r["headers"] or r["reset"] is not None)
        self.status = int(r["headers"].get(":status", 0))
        self.headers = r["headers"]

    @property
    def state(self) -> dict:
        return self.c.responses[self.sid]

    def send(self, data: bytes):
        while data:
            n = min(len(data), self.c.conn.max_outbound_frame_size)
            if self.c.conn.local_flow_control_window(self.sid) < n:
                self.c.pump(lambda n=n: self.c.conn.local_flow_control_window(self.sid) >= n)
            self.c.conn.send_data(self.sid, data[:n])
            data = data[n:]
        self.c.flush()

    def read(self) -> tuple[int, bool, bool, bytes]:
        """The next whole server frame: (opcode, fin, rsv1, payload)."""
        got = []

        def ready():
            parsed = parse_frame(self.state["body"])
            if parsed is None:
                if self.state["ended"] or self.state["reset"] is not None:
                    raise ConnectionError("the stream ended before a whole frame")
                return False
            got.append(parsed[0])
            self.state["body"] = self.state["body"][parsed[1] :]
            return True

        self.c.pump(ready)
        return got[0]

    def message(self) -> tuple[int, bytes]:
        opcode, fin, rsv1, payload = self.read()
        if rsv1:
            payload = self.inflater.decompress(payload + b"\x00\x00\xff\xff")
        assert fin
        return opcode, payload

    def wait_ended(self):
        self.c.pump(lambda: self.state["ended"] or self.state["reset"] is not None)


def client_for(server, use_tls, pki, settings=None) -> H2Client:
    c = H2Client(open_socket(server, use_tls, pki), settings, scheme="https" if use_tls else "http")
    c.pump(lambda: c.conn.remote_settings.enable_connect_protocol == 1)
    return c


# ---- the handshake ----


def test_settings_advertise_extended_connect(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    assert c.conn.remote_settings.enable_connect_protocol == 1


def test_echo_text_and_binary(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    ws = WsStream(c)
    assert ws.status == 200
    assert "sec-websocket-accept" not in ws.headers
    assert "sec-websocket-protocol" not in ws.headers
    assert not ws.state["ended"]
    ws.send(ws_frame(TEXT, "héllo".encode()))
    assert ws.message() == (TEXT, "héllo".encode())
    big = os.urandom(100_000)  # several DATA frames, a 64-bit length
    ws.send(ws_frame(BINARY, big))
    assert ws.message() == (BINARY, big)


def test_fragmented_message_and_ping(any_server, pki):
    server, use_tls = any_server()
    ws = WsStream(client_for(server, use_tls, pki))
    ws.send(ws_frame(TEXT, b"frag", fin=False) + ws_frame(PING, b"p1") + ws_frame(CONT, b"men", fin=False))
    assert ws.message() == (PONG, b"p1")  # a control frame between fragments is answered at once
    ws.send(ws_frame(CONT, b"ted"))
    assert ws.message() == (TEXT, b"fragmented")


def test_close_handshake_ends_the_stream(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    before = metric(c, "slipstream_ws_closes_total", {"code": "1000"})
    ws = WsStream(c)
    ws.send(ws_frame(CLOSE, struct.pack(">H", 1000) + b"bye"))
    opcode, _, _, payload = ws.read()
    assert (opcode, payload) == (CLOSE, struct.pack(">H", 1000))  # the code echoed
    ws.wait_ended()
    assert ws.state["ended"]
    assert metric(c, "slipstream_ws_closes_total", {"code": "1000"}) == before + 1
    assert c.request("GET", "/hello")[0] == 200  # the connection goes on


def test_invalid_utf8_closes_with_1007(any_server, pki):
    server, use_tls = any_server()
    ws = WsStream(client_for(server, use_tls, pki))
    ws.send(ws_frame(TEXT, b"\xff\xfe"))
    opcode, _, _, payload = ws.read()
    assert opcode == CLOSE and struct.unpack(">H", payload[:2])[0] == 1007
    ws.wait_ended()


def test_offered_subprotocol_is_not_chosen_by_a_route_without_any(any_server, pki):
    server, use_tls = any_server()
    ws = WsStream(client_for(server, use_tls, pki), headers=[("sec-websocket-protocol", "chat, superchat")])
    assert ws.status == 200
    assert "sec-websocket-protocol" not in ws.headers


def test_permessage_deflate(any_server, pki):
    server, use_tls = any_server()
    ws = WsStream(client_for(server, use_tls, pki), headers=[("sec-websocket-extensions", "permessage-deflate")])
    assert ws.status == 200
    assert ws.headers["sec-websocket-extensions"].startswith("permessage-deflate")
    text = b"compress me " * 100
    ws.send(ws_frame(TEXT, ws_deflate(text), rsv=4))
    opcode, fin, rsv1, payload = ws.read()
    assert (opcode, fin, rsv1) == (TEXT, True, True)  # large enough to be compressed on the way back
    assert ws.inflater.decompress(payload + b"\x00\x00\xff\xff") == text


def test_deflate_off_leaves_the_offer_unanswered(any_server, pki):
    server, use_tls = any_server("--no-ws-deflate")
    ws = WsStream(client_for(server, use_tls, pki), headers=[("sec-websocket-extensions", "permessage-deflate")])
    assert ws.status == 200
    assert "sec-websocket-extensions" not in ws.headers


@pytest.mark.parametrize(
    "version,protocol,path,status",
    [
        ("8", "websocket", "/ws/echo", 400),  # a version other than 13
        (None, "websocket", "/ws/echo", 400),  # no version
        ("13", "webtransport", "/ws/echo", 501),  # a protocol other than websocket
        ("13", "websocket", "/hello", 405),  # not a WebSocket route: as routing says
        ("13", "websocket", "/no/such/route", 404),
    ],
)
def test_refused_handshakes(any_server, pki, version, protocol, path, status):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    ws = WsStream(c, path=path, version=version, protocol=protocol)
    assert ws.status == status
    assert ws.headers["content-type"] == "application/problem+json"
    if status == 400:
        assert ws.headers["sec-websocket-version"] == "13"
    if status == 405:
        assert "CONNECT" not in ws.headers["allow"] and "GET" in ws.headers["allow"]
    ws.wait_ended()
    assert c.request("GET", "/hello")[0] == 200


def test_plain_get_to_a_websocket_route_is_refused(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    status, _, body = c.request("GET", "/ws/echo")
    assert status == 400
    assert b"extended CONNECT" in body


# ---- streams ----


def test_two_websockets_and_a_get_share_a_connection(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    a, b = WsStream(c), WsStream(c)
    assert (a.status, b.status) == (200, 200)
    a.send(ws_frame(TEXT, b"to a"))
    b.send(ws_frame(TEXT, b"to b"))
    assert c.request("GET", "/hello")[0] == 200
    assert b.message() == (TEXT, b"to b")
    assert a.message() == (TEXT, b"to a")
    assert metric(c, "slipstream_ws_connections_open") == 2


def test_websocket_streams_count_against_max_concurrent_streams(any_server, pki):
    server, use_tls = any_server("--h2-max-concurrent-streams", "2")
    c = client_for(server, use_tls, pki)
    c.pump(lambda: c.conn.remote_settings.max_concurrent_streams == 2)
    a, b = WsStream(c), WsStream(c)
    with pytest.raises(h2.exceptions.TooManyStreamsError):
        c.start("GET", "/hello")
    a.send(ws_frame(CLOSE, struct.pack(">H", 1000)))
    a.wait_ended()
    c.pump(lambda: c.conn.open_outbound_streams < 2)  # the server's RST_STREAM(NO_ERROR) closed it fully
    assert c.request("GET", "/hello")[0] == 200
    b.send(ws_frame(TEXT, b"still here"))
    assert b.message() == (TEXT, b"still here")


def test_client_reset_reports_1006_and_the_connection_goes_on(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    before = metric(c, "slipstream_ws_closes_total", {"code": "1006"})
    ws = WsStream(c)
    ws.send(ws_frame(TEXT, b"x"))
    assert ws.message() == (TEXT, b"x")
    assert metric(c, "slipstream_ws_connections_open") == 1
    c.conn.reset_stream(ws.sid, CANCEL)
    c.flush()
    assert metric(c, "slipstream_ws_closes_total", {"code": "1006"}) == before + 1
    assert metric(c, "slipstream_ws_connections_open") == 0
    other = WsStream(c)
    other.send(ws_frame(TEXT, b"again"))
    assert other.message() == (TEXT, b"again")


def test_client_end_stream_without_close_reports_1006(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    before = metric(c, "slipstream_ws_closes_total", {"code": "1006"})
    ws = WsStream(c)
    c.conn.end_stream(ws.sid)  # like a TCP FIN without a close frame
    c.flush()
    ws.wait_ended()
    assert ws.state["ended"]
    assert metric(c, "slipstream_ws_closes_total", {"code": "1006"}) == before + 1


def test_drain_closes_with_1001(any_server, pki):
    server, use_tls = any_server()
    c = client_for(server, use_tls, pki)
    ws = WsStream(c)
    ws.send(ws_frame(TEXT, b"hi"))
    assert ws.message() == (TEXT, b"hi")
    server.proc.send_signal(signal.SIGTERM)
    # The GOAWAY may come before the close frame, and the h2 package accepts no DATA after a GOAWAY: read the
    # frames raw from here on.
    received, data, goaway = b"", b"", False
    while parse_frame(data) is None:
        pending = getattr(c.sock, "pending", lambda: 0)()  # TLS may hold decrypted bytes already
        ready = pending or select.select([c.sock], [], [], 10)[0]
        assert ready, "no close frame"
        chunk = c.sock.recv(65536)
        assert chunk, "the server closed the connection before the close frame"
        received += chunk
        frames = parse_frames(received)
        goaway = goaway or any(f[0] == GOAWAY for f in frames)
        data = b"".join(f[3] for f in frames if f[0] == DATA and f[2] == ws.sid)
    (opcode, fin, _, payload), _ = parse_frame(data)
    assert (opcode, fin, struct.unpack(">H", payload[:2])[0]) == (CLOSE, True, 1001)
    assert goaway
    c.sock.sendall(frame(DATA, END_STREAM, ws.sid, ws_frame(CLOSE, payload[:2])))  # the client's close
    assert server.proc.wait(timeout=15) == 0


class QuietClient(H2Client):
    """Does not give the server's DATA back to its window until told to: a peer that stops reading."""

    reading = False

    def on_event(self, ev):
        if isinstance(ev, h2.events.DataReceived) and not self.reading:
            self.responses[ev.stream_id]["body"] += ev.data
            self.unacked.append((ev.flow_controlled_length, ev.stream_id))
            return
        super().on_event(ev)

    def resume(self):
        self.reading = True
        for n, sid in self.unacked:
            self.conn.acknowledge_received_data(n, sid)
        self.unacked.clear()
        self.flush()


def test_a_peer_that_does_not_read_is_held_back(any_server, pki):
    """Echoes that cannot leave (the client's window is shut) stop the server from opening its own receive
    window: the client's sending stalls instead of the server buffering without bound."""
    server, use_tls = any_server()
    c = QuietClient(open_socket(server, use_tls, pki), {h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 65535},
                    scheme="https" if use_tls else "http")
    c.unacked = []
    c.pump(lambda: c.conn.remote_settings.enable_connect_protocol == 1)
    ws = WsStream(c)
    chunk = ws_frame(BINARY, b"q" * 60000)
    sent = 0
    stalled = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if c.conn.local_flow_control_window(ws.sid) >= len(chunk):
            ws.send(chunk)
            sent += 1
            continue
        ready, _, _ = select.select([c.sock], [], [], 1.0)  # a window update within a second, or stalled
        if not ready:
            stalled = True
            break
        data = c.sock.recv(65536)
        assert data
        c.feed(data)
    assert stalled, "the server kept opening its window while its echoes could not leave"
    assert sent * len(chunk) < 64 * 1024 * 1024
    c.resume()
    for _ in range(sent):
        assert ws.message() == (BINARY, b"q" * 60000)


# ---- the Python API over HTTP/2: manual accept, subprotocols, refusal, 1006 to the handler ----


@pytest.fixture
def py_client():
    """A Python app (manual accept through `websocket.accept`) served in this process; yields (H2Client, closes)
    where `closes` collects the codes the handlers saw, with an event set at each."""
    slipstream = pytest.importorskip("slipstream")
    app = slipstream.App()
    closes: dict = {"codes": [], "event": threading.Event()}

    @app.websocket("/chat")
    async def chat(websocket: slipstream.WebSocket) -> None:
        offered = websocket.scope["subprotocols"]
        chosen = "chat.v2" if "chat.v2" in offered else None
        await websocket.accept(subprotocol=chosen, headers=[(b"x-room", b"blue")])
        try:
            while True:
                text = await websocket.receive_text()
                await websocket.send_text(f"{websocket.subprotocol}:{text}")
        except slipstream.WebSocketDisconnect as e:
            closes["codes"].append(e.code)
            closes["event"].set()

    @app.websocket("/deny")
    async def deny(websocket: slipstream.WebSocket) -> None:
        await websocket.close(code=1008, reason="no token")

    client = slipstream.TestClient(app)
    try:
        sock = client_socket(client.port)
        c = H2Client(sock, scheme="http")
        c.pump(lambda: c.conn.remote_settings.enable_connect_protocol == 1)
        yield c, closes
        sock.close()  # the connection ends first: the server's drain has nothing left to wait for
    finally:
        client.close()


def client_socket(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def test_python_manual_accept_chooses_the_subprotocol_and_headers(py_client):
    c, _ = py_client
    ws = WsStream(c, path="/chat", headers=[("sec-websocket-protocol", "chat.v1, chat.v2")])
    assert ws.status == 200
    assert ws.headers["sec-websocket-protocol"] == "chat.v2"
    assert ws.headers["x-room"] == "blue"
    ws.send(ws_frame(TEXT, b"hi"))
    assert ws.message() == (TEXT, b"chat.v2:hi")
    plain = WsStream(c, path="/chat")  # no offer: no subprotocol
    assert "sec-websocket-protocol" not in plain.headers
    plain.send(ws_frame(TEXT, b"hi"))
    assert plain.message() == (TEXT, b"None:hi")


def test_python_close_before_accept_is_the_streams_403(py_client):
    c, _ = py_client
    ws = WsStream(c, path="/deny")
    assert ws.status == 403
    ws.wait_ended()
    assert c.request("GET", "/missing")[0] == 404  # the connection goes on


def test_python_handler_sees_1006_when_the_client_resets(py_client):
    c, closes = py_client
    ws = WsStream(c, path="/chat")
    ws.send(ws_frame(TEXT, b"x"))
    assert ws.message() == (TEXT, b"None:x")
    c.conn.reset_stream(ws.sid, CANCEL)
    c.flush()
    assert closes["event"].wait(10)
    assert closes["codes"] == [1006]
