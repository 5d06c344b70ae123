"""`slipstream bench URL` against a real server on a real socket: closed and open loop counts, statuses, a POST
with a body and headers, transport errors, refused arguments, and open-loop latency charged from each request's
scheduled time when the server stalls (a lower bound the stall guarantees, not a speed)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from pydantic import BaseModel
from slipstream import App, TestClient


class Item(BaseModel):
    name: str


def make_app(release: threading.Event, entered: threading.Event | None = None) -> App:
    app = App()
    seen = {"stall": 0}

    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    @app.post("/items")
    def create(item: Item) -> Item:
        return item

    @app.get("/stall")
    def stall() -> dict[str, int]:
        seen["stall"] += 1
        if seen["stall"] == 1:
            if entered is not None:
                entered.set()
            release.wait(30)  # the first request holds the only connection until the test releases it
        return {"n": seen["stall"]}

    return app


def bench(*args: str) -> tuple[int, dict[str, Any], str]:
    done = subprocess.run(
        [sys.executable, "-m", "slipstream", "bench", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else {}), done.stderr


def test_closed_and_open_loop_count_every_answer() -> None:
    with TestClient(make_app(threading.Event()), threads=1) as client:
        url = f"http://127.0.0.1:{client.port}"
        code, closed, err = bench(f"{url}/hello", "-c", "3", "-d", "0.5", "--warmup", "0.1")
        assert code == 0, err
        assert closed["mode"] == "closed" and closed["errors"] == {} and closed["responses"] > 0
        assert closed["statuses"] == {"200": closed["responses"]}
        assert set(closed["latency_ms"]) == {"mean", "p50", "p90", "p99", "p99.9", "max"}

        # Open loop: exactly rate x duration requests are scheduled and measured (the warm-up's are not).
        code, opened, err = bench(f"{url}/hello", "-r", "200", "-d", "0.5", "--warmup", "0.25")
        assert code == 0, err
        assert (opened["mode"], opened["responses"], opened["statuses"]) == ("open", 100, {"200": 100})

        # A POST with a body and a header: every answer counted by its status, a 422 as much as a 200.
        post = ("-m", "POST", "-H", "content-type: application/json", "-r", "40", "-d", "0.5", "--warmup", "0")
        for body, status in ((json.dumps({"name": "tea"}), "200"), ("{}", "422")):
            code, posted, err = bench(f"{url}/items", "--body", body, *post)
            assert code == 0 and posted["statuses"] == {status: 20}, err


def test_open_loop_latency_counts_from_the_scheduled_time() -> None:
    """One connection, 50 requests/s for 1 s; the first request is held for 0.5 s after it reaches the handler.
    Measured from its scheduled time it took at least those 0.5 s, and so did, less 20 ms per place, each request
    due meanwhile (they wait for the one connection): a lower bound the stall sets, whatever the machine's speed."""
    release, entered = threading.Event(), threading.Event()
    with TestClient(make_app(release, entered), threads=1) as client:
        argv = (f"http://127.0.0.1:{client.port}/stall", "-c", "1", "-r", "50", "-d", "1", "--warmup", "0")
        result: dict[str, Any] = {}
        runner = threading.Thread(
            target=lambda: result.update(zip(("code", "summary", "err"), bench(*argv), strict=True))
        )
        runner.start()
        assert entered.wait(60)
        time.sleep(0.5)  # the stall itself (what is measured), not a wait for something to happen
        release.set()
        runner.join(120)
    summary = result["summary"]
    assert result["code"] == 0, result["err"]
    assert summary["responses"] == 50 and summary["statuses"] == {"200": 50}
    assert summary["latency_ms"]["max"] >= 500 and summary["latency_ms"]["p90"] >= 300


def test_refused_connections_are_errors() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    code, summary, _ = bench(f"http://127.0.0.1:{port}/", "-c", "2", "-d", "0.3", "--warmup", "0")
    assert code == 1 and summary["responses"] == 0
    assert set(summary["errors"]) == {"ConnectionRefusedError"} and summary["errors"]["ConnectionRefusedError"] > 0


def test_bad_arguments_are_refused() -> None:
    for args, message in (
        (["https://example.test/"], "only http:// URLs"),
        (["http://127.0.0.1:1/", "-c", "0"], "--connections must be 1 to 10000"),
        (["http://127.0.0.1:1/", "-H", "no-colon"], "a header is NAME:VALUE"),
        (["http://127.0.0.1:1/", "-r", "1000000", "-d", "3600"], "rate x (duration + warm-up)"),
        (["http://127.0.0.1:1/", "-m", "get"], "upper-case token"),
    ):
        code, _, err = bench(*args)
        assert code == 2 and message in err, (args, err)
