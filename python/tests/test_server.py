"""The real server over real sockets: the `slipstream run` CLI in a subprocess, keep-alive, concurrency,
coroutines parked on the executor's loop while other requests are served, and a clean SIGTERM drain."""

import asyncio
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from slipstream import App, TestClient

TESTS = Path(__file__).resolve().parent


def listening_port(proc: subprocess.Popen) -> int:
    """The port the server logged once it listens ("slipstream: serving ... on http://host:port")."""
    for raw in proc.stderr:
        line = raw.decode()
        if "serving" in line and "http://" in line:
            return int(line.rsplit(":", 1)[1])
    raise AssertionError(f"server exited with {proc.wait()} before listening")


@pytest.fixture
def served():
    env = {**os.environ, "SLIPSTREAM_PORT": "0", "SLIPSTREAM_THREADS": "2",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "slipstream", "run", "apps.basic:app", "--host", "127.0.0.1"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield listening_port(proc), proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_cli_serves_and_drains_on_sigterm(served) -> None:
    port, proc = served
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(3):  # one keep-alive connection
        conn.request("GET", "/hello")
        r = conn.getresponse()
        assert (r.status, r.read()) == (200, b'{"message":"hello"}')
    conn.request("POST", "/items", body=b'{"name":"a","price":"x"}', headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    assert r.status == 422
    assert json.loads(r.read())["detail"][0]["loc"] == ["body", "price"]
    conn.request("GET", "/sleep/5")
    assert json.loads(conn.getresponse().read()) == {"slept": 5}
    conn.close()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def test_parked_coroutine_does_not_block_others() -> None:
    """One request waits on an asyncio.Event that a second request sets: both must complete."""
    app = App()
    event_holder: dict = {}

    @app.get("/wait")
    async def wait():
        event_holder.setdefault("event", asyncio.Event())
        await event_holder["event"].wait()
        return "released"

    @app.get("/release")
    async def release():
        event_holder.setdefault("event", asyncio.Event()).set()
        return "ok"

    @app.get("/plain")
    def plain():
        return "plain"

    with TestClient(app, threads=2) as client:
        results: dict = {}

        def waiter() -> None:
            c = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
            c.request("GET", "/wait")
            results["wait"] = c.getresponse().read()
            c.close()

        t = threading.Thread(target=waiter)
        t.start()
        # Until /wait has parked, /release may run first; either order must finish.
        while "event" not in event_holder and t.is_alive():
            assert client.get("/plain").json() == "plain"
        assert client.get("/release").json() == "ok"
        t.join(timeout=30)
        assert results["wait"] == b'"released"'


def test_many_concurrent_connections() -> None:
    app = App()

    @app.get("/n/{n}")
    def echo(n: int, x: int = 0):
        return {"n": n, "x": x}

    with TestClient(app, threads=2) as client:
        errors: list = []

        def worker(k: int) -> None:
            c = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
            try:
                for i in range(50):
                    c.request("GET", f"/n/{k}?x={i}")
                    body = json.loads(c.getresponse().read())
                    if body != {"n": k, "x": i}:
                        errors.append(body)
            finally:
                c.close()

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert errors == []


def test_pipelined_requests_answered_in_order() -> None:
    app = App()

    @app.get("/p/{n}")
    async def p(n: int):
        if n % 2:
            await asyncio.sleep(0.002)  # odd ones finish later; order must still hold
        return n

    with TestClient(app) as client:
        s = socket.create_connection(("127.0.0.1", client.port), timeout=10)
        s.sendall(b"".join(f"GET /p/{n} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for n in range(6)))
        data = b""
        while data.count(b"HTTP/1.1 200") < 6 or not data.endswith(b"5"):
            chunk = s.recv(65536)
            assert chunk, "connection closed early"
            data += chunk
        s.close()
        bodies = [part.rsplit(b"\r\n\r\n", 1)[1][:1] for part in data.split(b"HTTP/1.1 ")[1:]]
        assert bodies == [b"0", b"1", b"2", b"3", b"4", b"5"]


@pytest.mark.parametrize(("options", "sent"), [({}, True), ({"request_id_response": False}, False)])
def test_request_id_response_option(options: dict[str, bool], sent: bool) -> None:
    app = App()

    @app.get("/id")
    def read_id() -> dict[str, str]:
        return {"ok": "yes"}

    with TestClient(app, **options) as client:
        response = client.get("/id", headers={"x-request-id": "client-id-7"})
    assert response.status_code == 200
    assert response.headers.get("x-request-id") == ("client-id-7" if sent else None)
