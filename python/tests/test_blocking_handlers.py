"""A `def` handler that blocks does not stall the other requests: another thread drives the loop and the queue
meanwhile (python/bindings/executor.h). Each blocking handler here waits on an event that the test sets only once
other requests were answered, so a stall would show as a missing answer, never as a slow one."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import httpx
from slipstream import App, TestClient
from slipstream.concurrency import run_in_threadpool


def _get(port: int, path: str, results: dict[str, Any]) -> threading.Thread:
    """GET `path` on another thread; its JSON body lands in results[path]."""
    def run() -> None:
        try:
            results[path] = httpx.get(f"http://127.0.0.1:{port}{path}", timeout=60).json()
        except Exception as exc:  # noqa: BLE001 - reported by the assertion on results
            results[path] = repr(exc)

    t = threading.Thread(target=run)
    t.start()
    return t


def blocking_app() -> tuple[App, dict[str, threading.Event]]:
    app = App()
    events = {name: threading.Event() for name in ("a", "b")}
    entered = {name: threading.Event() for name in ("a", "b")}

    @app.get("/block/{name}")
    def block(name: str) -> Any:
        entered[name].set()
        return {"released": events[name].wait(60), "name": name}

    @app.get("/fast-async")
    async def fast_async() -> Any:
        return "async"

    @app.get("/fast-def")
    def fast_def(x: int = 1) -> Any:
        return {"x": x}

    events.update({f"entered-{k}": v for k, v in entered.items()})
    return app, events


def test_a_blocked_def_handler_does_not_stall_async_and_def_requests() -> None:
    app, events = blocking_app()
    with TestClient(app) as client:
        results: dict[str, Any] = {}
        t = _get(client.port, "/block/a", results)
        assert events["entered-a"].wait(60)
        # The handler waits until these were answered: without a hand-off they could not be.
        assert client.get("/fast-async").json() == "async"
        assert [client.get(f"/fast-def?x={n}").json() for n in range(5)] == [{"x": n} for n in range(5)]
        events["a"].set()
        t.join(60)
        assert results == {"/block/a": {"released": True, "name": "a"}}
        # Serving goes on as before.
        assert client.get("/fast-async").json() == "async"
        events["a"].clear()
        t = _get(client.port, "/block/a", results)
        assert events["entered-a"].wait(60)
        assert client.get("/fast-def?x=7").json() == {"x": 7}
        events["a"].set()
        t.join(60)
        assert results == {"/block/a": {"released": True, "name": "a"}}


def test_two_blocked_handlers_and_release_in_either_order() -> None:
    app, events = blocking_app()
    with TestClient(app) as client:
        for first, second in (("a", "b"), ("b", "a")):
            results: dict[str, Any] = {}
            for name in ("a", "b"):
                events[name].clear()
                events[f"entered-{name}"].clear()
            ta = _get(client.port, "/block/a", results)
            assert events["entered-a"].wait(60)
            tb = _get(client.port, "/block/b", results)
            assert events["entered-b"].wait(60)  # entered while /block/a still blocks
            assert client.get("/fast-async").json() == "async"
            events[first].set()
            (ta if first == "a" else tb).join(60)
            assert results[f"/block/{first}"] == {"released": True, "name": first}
            assert client.get("/fast-def?x=3").json() == {"x": 3}
            events[second].set()
            (tb if first == "a" else ta).join(60)
            assert results[f"/block/{second}"] == {"released": True, "name": second}


def test_suspended_async_handlers_go_on_while_a_def_handler_blocks() -> None:
    app = App()
    release_def = threading.Event()
    entered = threading.Event()
    state: dict[str, Any] = {}

    @app.get("/block")
    def block() -> Any:
        entered.set()
        return release_def.wait(60)

    @app.get("/wait")
    async def wait() -> Any:
        state["event"] = asyncio.Event()
        state["parked"].set()
        await state["event"].wait()
        with anyio.fail_after(30):
            await anyio.lowlevel.checkpoint()
        return "woken"

    @app.get("/wake")
    async def wake() -> Any:
        state["event"].set()
        return "ok"

    state["parked"] = threading.Event()
    with TestClient(app) as client:
        results: dict[str, Any] = {}
        tw = _get(client.port, "/wait", results)
        assert state["parked"].wait(60)
        tb = _get(client.port, "/block", results)
        assert entered.wait(60)
        assert client.get("/wake").json() == "ok"
        tw.join(60)
        assert results == {"/wait": "woken"}
        release_def.set()
        tb.join(60)
        assert results == {"/wait": "woken", "/block": True}


def test_stopping_while_a_def_handler_blocks() -> None:
    app, events = blocking_app()
    results: dict[str, Any] = {}
    with TestClient(app) as client:
        t = _get(client.port, "/block/a", results)
        assert events["entered-a"].wait(60)
        assert client.get("/fast-async").json() == "async"
        # Released while the client shuts the server down (before or after the stop begins: both must end).
        threading.Thread(target=events["a"].set).start()
    t.join(60)
    assert results == {"/block/a": {"released": True, "name": "a"}}


def test_run_in_threadpool_and_anyio_to_thread() -> None:
    app = App()

    def work(x: int) -> int:
        return x * 2

    @app.get("/pool/{x}")
    async def pool(x: int) -> Any:
        return [await run_in_threadpool(work, x), await anyio.to_thread.run_sync(work, x + 1)]

    with TestClient(app) as client:
        assert client.get("/pool/5").json() == [10, 12]
