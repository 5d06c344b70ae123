"""Builtin routes, /metrics counts, the access log, request ids and trace context, over real sockets."""
import json
import re
import signal
import threading
import time

from tests.e2e.helpers import H2Client, metric_value, open_socket
from tests.e2e.http_client import RawConnection


def get(server, target, headers=b""):
    c = RawConnection(server.connect())
    c.send(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    return c.read_response()


def test_health_livez_readyz(hello_server):
    for path in (b"/health", b"/livez", b"/readyz"):
        resp = get(hello_server, path)
        assert resp.status == 200
        assert json.loads(resp.body) == {"status": "ok"}


def test_metrics_counts_equal_client_counts(hello_server):
    c = RawConnection(hello_server.connect())
    for _ in range(37):
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200
    for _ in range(5):
        c.send(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n[]")
        assert c.read_response().status == 200
    for _ in range(3):
        c.send(b"GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 404
    text = get(hello_server, b"/metrics").body.decode()
    assert metric_value(text, "slipstream_http_requests_total", {"route": "/hello", "method": "GET", "status": "200"}) == 37
    assert metric_value(text, "slipstream_http_requests_total", {"route": "/echo", "method": "POST", "status": "200"}) == 5
    assert metric_value(text, "slipstream_http_requests_total",
                        {"route": "(unmatched)", "method": "GET", "status": "404"}) == 3
    assert metric_value(text, "slipstream_http_request_body_bytes_total", {"route": "/echo", "method": "POST"}) == 10
    assert metric_value(text, "slipstream_http_request_duration_seconds_count", {"route": "/hello", "method": "GET"}) == 37
    assert 'le="5e-05"' in text or 'le="0.00005"' in text
    assert re.search(r"^slipstream_connections_open \d+", text, re.MULTILINE)
    assert re.search(r"^process_resident_memory_bytes \d+", text, re.MULTILINE)


def test_request_metrics_can_be_switched_off(start_server):
    server = start_server("--no-request-metrics")
    for _ in range(3):
        assert get(server, b"/hello").status == 200
    text = get(server, b"/metrics").body.decode()
    assert "slipstream_http_requests_total{" not in text
    assert "slipstream_http_request_duration_seconds_count{" not in text
    assert re.search(r"^slipstream_connections_accepted_total \d+", text, re.MULTILINE)


def test_parse_errors_are_counted_by_kind(hello_server):
    c = RawConnection(hello_server.connect())
    c.send(b"GET /hello HTTP/1.1\r\n\r\n")
    assert c.read_response().status == 400
    text = get(hello_server, b"/metrics").body.decode()
    assert metric_value(text, "slipstream_http_parse_errors_total", {"kind": "missing Host header"}) == 1


def test_request_id_is_echoed_or_generated(hello_server):
    resp = get(hello_server, b"/hello", b"X-Request-ID: abc-123\r\n")
    assert resp.header("x-request-id") == "abc-123"
    generated = get(hello_server, b"/hello").header("x-request-id")
    assert re.fullmatch(r"[0-9a-f]{32}", generated)
    assert get(hello_server, b"/hello").header("x-request-id") != generated
    # an unsafe id is replaced, never echoed
    resp = get(hello_server, b"/hello", b"X-Request-ID: <script>\r\n")
    assert re.fullmatch(r"[0-9a-f]{32}", resp.header("x-request-id"))


def test_every_outcome_is_counted_and_logged(serve):
    """Over every protocol: one JSON access-log line per request (answered, unmatched, deferred, refused body,
    bad path) and the request counters by route, method and status."""
    c = serve(fresh=True)
    tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    json_type = ("Content-Type", "application/json")
    cases = [
        ("GET", "/hello?x=1", [("X-Request-ID", "log-test-1"), ("traceparent", tp)], b"", 200, "/hello", "/hello"),
        ("GET", "/missing", [("X-Request-ID", "log-test-2")], b"", 404, "(unmatched)", "/missing"),
        ("GET", "/delay/5", [("X-Request-ID", "log-test-3")], b"", 200, "/delay/{ms:int}", "/delay/5"),
        ("POST", "/echo", [json_type, ("Content-Encoding", "gzip"), ("X-Request-ID", "log-test-4")], b"x", 400,
         "/echo", "/echo"),
        ("GET", "/%zz", [("X-Request-ID", "log-test-5")], b"", 400, "(unmatched)", "/%zz"),
    ]
    for method, path, headers, body, status, _, _ in cases:
        r = c.request(method, path, headers, body)
        assert (r.status, r.header("x-request-id")) == (status, dict(headers)["X-Request-ID"])
    # One request at a time on one connection: the lines come in this order (read after one flush, not five).
    for method, path, headers, body, status, route, logged_path in cases:
        rid = dict(headers)["X-Request-ID"]
        text = c.server.wait_for_line(f'"{rid}"')
        assert text is not None, rid
        line = json.loads(text)
        assert (line["method"], line["route"], line["path"], line["status"]) == (method, route, logged_path, status)
        assert line["bytes"] > (19 if rid == "log-test-1" else 0)
        assert line["peer"].startswith("127.0.0.1:")
        assert line["trace_id"] == ("4bf92f3577b34da6a3ce929d0e0e4736" if rid == "log-test-1" else "")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"])
        assert isinstance(line["duration_ms"], float)
    text = c.request("GET", "/metrics").body.decode()
    assert 'slipstream_http_requests_total{route="/delay/{ms:int}",method="GET",status="200"} 1' in text
    assert 'slipstream_http_requests_total{route="/echo",method="POST",status="400"} 1' in text


def test_sigterm_under_load_drops_no_request(start_server):
    server = start_server("--threads", "2")
    sent = [0] * 4
    answered = [0] * 4
    errors = []
    stop = threading.Event()

    def client(i):
        conn = None
        while not stop.is_set():
            try:
                if conn is None:
                    conn = RawConnection(server.connect(timeout=5))
            except OSError:
                return  # listener closed: nothing more was accepted
            try:
                conn.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            except OSError as e:
                errors.append(f"send failed on an open connection: {e}")
                return
            sent[i] += 1
            try:
                resp = conn.read_response()
            except (OSError, ConnectionError) as e:
                errors.append(f"request {sent[i]} on client {i} lost: {e}")
                return
            if resp.status == 200:
                answered[i] += 1
            if resp.header("connection") == "close":
                conn.sock.close()
                conn = None

    threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    server.proc.send_signal(signal.SIGTERM)
    for t in threads:
        t.join(timeout=20)
    stop.set()
    assert server.proc.wait(timeout=20) == 0
    assert errors == []
    assert sum(sent) > 100
    assert answered == sent


def test_request_ids_can_stay_off_responses(start_server):
    """--no-request-id-response: no X-Request-ID on answers (immediate, deferred, HTTP/2), and the ids, the
    client's or generated ones, still reach the access log."""
    server = start_server("--threads", "1", "--no-request-id-response")
    resp = get(server, b"/hello", b"X-Request-ID: kept-in-log-1\r\n")
    assert resp.status == 200 and resp.header("x-request-id") is None
    line = json.loads(server.wait_for_line('"kept-in-log-1"'))
    assert line["request_id"] == "kept-in-log-1"
    deferred = get(server, b"/delay/5")  # answered later, from its slot
    assert deferred.status == 200 and deferred.header("x-request-id") is None
    h2 = H2Client(open_socket(server, False, None), scheme="http")
    status, headers, _ = h2.request("GET", "/hello")
    assert status == 200 and "x-request-id" not in headers
    generated = json.loads(server.wait_for_line('"path":"/hello"'))
    assert re.fullmatch(r"[0-9a-f]{32}", generated["request_id"])
