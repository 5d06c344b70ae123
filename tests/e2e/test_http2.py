"""HTTP/2 end to end: h2c prior knowledge and h2 over TLS: multiplexing, settings, flow control, limits, flood
defences (GOAWAY ENHANCE_YOUR_CALM), and h2spec conformance. The request path HTTP/2 shares with HTTP/1.1 is
tested over every protocol in test_request_path.py."""
import json
import os
import pathlib
import shutil
import signal
import struct
import subprocess

import h2.settings
import pytest

from tests.e2e.helpers import (
    ACK,
    DATA,
    END_HEADERS,
    END_STREAM,
    ENHANCE_YOUR_CALM,
    HEADERS,
    PING,
    PREFACE,
    PROTOCOL_ERROR,
    RST_STREAM,
    SETTINGS,
    H2Client,
    curl,
    flood_continuation,
    flood_empty_data,
    flood_ping,
    flood_rapid_reset,
    flood_settings,
    frame,
    get_block,
    goaway_code,
    hpack_bomb,
    literal,
    open_socket,
    raw_exchange,
    read_frames_until,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ---- curl ----

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


# ---- streams, settings, flow control ----

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


def test_client_reset_cancels_the_handler_stream(any_server, pki):
    server, use_tls = any_server()
    c = H2Client(open_socket(server, use_tls, pki))
    sid = c.start("GET", "/delay/2000")
    c.conn.reset_stream(sid)
    c.flush()
    assert c.request("GET", "/hello")[0] == 200


# ---- raw frames: limits and floods ----

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
