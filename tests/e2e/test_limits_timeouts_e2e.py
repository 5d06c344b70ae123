"""Slow, hostile and unlucky clients: every timeout and connection limit, over real sockets."""
import json
import resource
import socket
import time

from tests.conftest import Server, example_binary
from tests.e2e.helpers import metric, wait_for_stderr
from tests.e2e.http_client import RawConnection


def leave(c: RawConnection):
    """Closes a kept-alive connection and returns once the server closed its end too, which it does in the same
    step that frees the connection's slot (a plain close() leaves the client guessing when that happened)."""
    c.sock.shutdown(socket.SHUT_WR)
    assert c.closed_by_peer()
    c.sock.close()


def test_slowloris_head_gets_408(start_server):
    server = start_server("--threads", "1", "--header-timeout", "500ms")
    c = RawConnection(server.connect())
    c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    for _ in range(3):  # trickling bytes does not extend the whole-head deadline
        time.sleep(0.2)  # on purpose: the slow trickle is the attack, spread past the 500 ms deadline
        try:
            c.send(b"X-A: b\r\n")
        except OSError:
            break
    resp = c.read_response()
    assert resp.status == 408
    assert resp.header("connection") == "close"
    assert c.closed_by_peer()
    assert time.monotonic() - start < 3
    assert metric(server, "slipstream_timeouts_total", {"kind": "header"}) == 1


def test_slow_post_body_gets_408(start_server):
    server = start_server("--threads", "1", "--body-timeout", "500ms")
    c = RawConnection(server.connect())
    c.send(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[1,")
    resp = c.read_response()
    assert resp.status == 408
    assert c.closed_by_peer()
    assert metric(server, "slipstream_timeouts_total", {"kind": "body"}) == 1


def test_idle_keepalive_connection_is_closed(start_server):
    server = start_server("--threads", "1", "--keepalive-timeout", "300ms")
    c = RawConnection(server.connect())
    c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert c.read_response().status == 200
    start = time.monotonic()
    assert c.closed_by_peer(timeout=5)
    assert 0.2 < time.monotonic() - start < 3


def test_client_that_stops_reading_is_cut(start_server):
    server = start_server("--threads", "1", "--write-timeout", "500ms", "--max-output-buffer", "64k",
                          "--max-pipelined", "65536", "--max-requests-per-connection", "100000000")
    s = server.connect()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    request = b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
    s.setblocking(False)
    sent = 0
    deadline = time.monotonic() + 10
    closed = False
    while time.monotonic() < deadline:
        try:
            sent += s.send(request * 256)
        except BlockingIOError:
            time.sleep(0.05)  # the server stopped reading: its output is full
        except OSError:
            closed = True
            break
        if sent > 10_000_000:
            break
        if metric(server, "slipstream_timeouts_total", {"kind": "write"}) >= 1:
            closed = True
            break
    assert closed
    assert metric(server, "slipstream_timeouts_total", {"kind": "write"}) == 1
    # still serving others
    c = RawConnection(server.connect())
    c.send(request)
    assert c.read_response().status == 200


def test_handler_timeout_answers_504_and_drops_late_answer(start_server):
    server = start_server("--threads", "1", "--handler-timeout", "200ms")
    c = RawConnection(server.connect())
    c.send(b"GET /delay/1000 HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    resp = c.read_response()
    assert resp.status == 504
    assert json.loads(resp.body)["status"] == 504
    assert c.read_response().body == b'{"message":"hello"}'
    # On purpose: past the handler's 1000 ms, so the late answer is produced (and must be dropped) before the next
    # request; nothing the server exposes marks the drop.
    time.sleep(1.2)
    c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert c.read_response().body == b'{"message":"hello"}'


def test_async_responses_keep_pipeline_order(hello_server):
    c = RawConnection(hello_server.connect())
    c.send(b"GET /delay/300 HTTP/1.1\r\nHost: x\r\n\r\nGET /delay/10 HTTP/1.1\r\nHost: x\r\n\r\n"
           b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert json.loads(c.read_response().body) == {"delayed_ms": 300}
    assert json.loads(c.read_response().body) == {"delayed_ms": 10}
    assert c.read_response().body == b'{"message":"hello"}'


def test_connections_past_the_cap_get_fast_503(start_server):
    server = start_server("--threads", "1", "--max-connections", "4")
    held = [RawConnection(server.connect()) for _ in range(4)]
    for c in held:
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200
    extra = RawConnection(server.connect())
    resp = extra.read_response()
    assert resp.status == 503
    assert extra.closed_by_peer()
    leave(held[0])
    again = RawConnection(server.connect())
    again.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert again.read_response().status == 200
    for c in held[1:] + [again]:
        leave(c)  # the metrics request below needs a slot
    assert metric(server, "slipstream_connections_shed_total", {}) == 1


def test_max_requests_per_connection(start_server):
    server = start_server("--threads", "1", "--max-requests-per-connection", "3")
    c = RawConnection(server.connect())
    for i in range(3):
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        resp = c.read_response()
        assert resp.status == 200
    assert resp.header("connection") == "close"
    assert c.closed_by_peer()


def test_out_of_file_descriptors_keeps_serving():
    import subprocess
    argv = [example_binary("hello"), "--host", "127.0.0.1", "--port", "0", "--threads", "1", "--no-access-log"]
    proc_server = Server.__new__(Server)
    proc_server.argv = argv
    proc_server.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc_server.host, proc_server.port = proc_server._read_address()
    # Lowered once it listens (it applies to every later accept); no preexec_fn in a threaded test runner.
    resource.prlimit(proc_server.proc.pid, resource.RLIMIT_NOFILE, (48, 48))
    try:
        socks = []
        for _ in range(80):  # far more than the server's fd limit
            try:
                socks.append(socket.create_connection((proc_server.host, proc_server.port), timeout=2))
            except OSError:
                break
        # The server ran out of fds (it pauses accepting for 100 ms at a time) before the clients go.
        assert wait_for_stderr(proc_server, "pausing accepts") is not None
        for s in socks:
            s.close()
        # Queued behind the closed ones; served once a back-off ends and the server has closed their fds.
        c = RawConnection(proc_server.connect())
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200
        assert proc_server.proc.poll() is None
    finally:
        proc_server.stop()
