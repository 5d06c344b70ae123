"""`def` dependencies (plain, class, `yield` entry and exit) and `def` handlers behind dependencies or HTTP middleware
run in the app's thread pool: one that blocks does not stall the other requests. Each blocking call waits on an
event that the test sets only once other requests were answered, so a stall shows as a missing answer, never as a
slow one. Where FastAPI runs them is compared in differential/test_differential_sync_dependencies.py."""

# No `from __future__ import annotations`: the handlers' annotations name local dependencies.

import socket
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any

import httpx
import pytest
from slipstream import App, Depends, Request, TestClient, WebSocket


def _fetch_port(port: int, path: str) -> Any:
    """GET over a connection of its own: the JSON body, or the error's repr."""
    try:
        return httpx.get(f"http://127.0.0.1:{port}{path}", timeout=60).json()
    except Exception as exc:  # noqa: BLE001 - reported by the assertion on the results
        return repr(exc)


def _get(port: int, path: str, results: dict[str, Any]) -> threading.Thread:
    """_fetch_port on another thread; the answer lands in results[path]."""
    t = threading.Thread(target=lambda: results.__setitem__(path, _fetch_port(port, path)))
    t.start()
    return t


def _fetch(client: TestClient, path: str) -> Any:
    """GET over a connection of its own (the TestClient's own requests wait for the work of earlier ones to end,
    as Starlette's do)."""
    return _fetch_port(client.port, path)


class Gate:
    """A blocking call's entry (`entered`) and its release (`release`)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def block(self) -> bool:
        self.entered.set()
        return self.release.wait(60)


def gated_app(middleware: bool = False) -> tuple[App, dict[str, Gate]]:
    app = App()
    gates = {name: Gate() for name in ("plain", "enter", "exit", "handler", "class")}

    if middleware:

        @app.middleware("http")
        async def passthrough(request: Request, call_next: Any) -> Any:
            return await call_next(request)

    def plain() -> bool:
        return gates["plain"].block()

    def session() -> Iterator[str]:
        gates["enter"].block()
        yield "db"

    def closing() -> Iterator[str]:
        yield "db"
        gates["exit"].block()

    class Blocker:
        def __init__(self) -> None:
            self.released = gates["class"].block()

    @app.get("/plain")
    async def use_plain(released: Annotated[bool, Depends(plain)]) -> Any:
        return {"released": released}

    @app.get("/enter")
    async def use_enter(db: Annotated[str, Depends(session)]) -> Any:
        return {"db": db}

    @app.get("/exit")
    async def use_exit(db: Annotated[str, Depends(closing)]) -> Any:
        return {"db": db}

    @app.get("/class")
    async def use_class(blocker: Annotated[Blocker, Depends()]) -> Any:
        return {"released": blocker.released}

    def noop() -> int:
        return 1

    @app.get("/handler")
    def def_handler(one: Annotated[int, Depends(noop)]) -> Any:
        return {"released": gates["handler"].block(), "one": one}

    @app.get("/fast")
    async def fast() -> Any:
        return "fast"

    @app.get("/fast-dep")
    async def fast_dep(one: Annotated[int, Depends(noop)]) -> Any:
        return {"one": one}

    return app, gates


@pytest.mark.parametrize("middleware", [False, True], ids=["plain-app", "with-http-middleware"])
@pytest.mark.parametrize(
    ("path", "gate", "answer"),
    [
        ("/plain", "plain", {"released": True}),
        ("/enter", "enter", {"db": "db"}),
        ("/class", "class", {"released": True}),
        ("/handler", "handler", {"released": True, "one": 1}),
    ],
)
def test_a_blocking_def_call_does_not_stall_other_requests(middleware: bool, path: str, gate: str, answer: Any) -> None:
    app, gates = gated_app(middleware)
    with TestClient(app) as client:
        results: dict[str, Any] = {}
        t = _get(client.port, path, results)
        assert gates[gate].entered.wait(60)
        # The call waits until these were answered: on the event loop it would have stalled them.
        assert _fetch(client, "/fast") == "fast"
        assert [_fetch(client, "/fast-dep") for _ in range(3)] == [{"one": 1}] * 3
        gates[gate].release.set()
        t.join(60)
        assert results == {path: answer}


def test_a_blocking_yield_exit_does_not_stall_other_requests() -> None:
    app, gates = gated_app()
    with TestClient(app) as client:
        assert _fetch(client, "/exit") == {"db": "db"}  # answered before the exit code runs
        assert gates["exit"].entered.wait(60)
        assert _fetch(client, "/fast") == "fast"
        assert _fetch(client, "/fast-dep") == {"one": 1}
        gates["exit"].release.set()


def test_websocket_def_dependency_runs_off_the_loop() -> None:
    app = App()
    gate = Gate()
    loop_thread: dict[str, int] = {}

    def blocking() -> bool:
        return gate.block()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket, released: Annotated[bool, Depends(blocking)]) -> None:
        loop_thread["id"] = threading.get_ident()
        await websocket.accept()
        await websocket.send_json({"released": released})
        await websocket.close()

    @app.get("/fast")
    async def fast() -> Any:
        return "fast"

    with TestClient(app) as client:
        answers: list[Any] = []

        def talk() -> None:
            with client.websocket_connect("/ws") as session:
                answers.append(session.receive_json())

        t = threading.Thread(target=talk)
        t.start()
        assert gate.entered.wait(60)
        assert _fetch(client, "/fast") == "fast"
        gate.release.set()
        t.join(60)
        assert answers == [{"released": True}]


def test_thread_pool_size_bounds_the_threads() -> None:
    """App(thread_pool_size=2): two blocking dependencies hold both threads; a third waits for one of them, while
    requests without `def` calls go on."""
    app = App(thread_pool_size=2)
    started = threading.Semaphore(0)
    release = threading.Event()
    names: list[str] = []

    def hold() -> str:
        names.append(threading.current_thread().name)
        started.release()
        release.wait(60)
        return threading.current_thread().name

    @app.get("/hold/{n}")
    async def use_hold(n: int, name: Annotated[str, Depends(hold)]) -> Any:
        return {"n": n, "thread": name}

    @app.get("/fast")
    async def fast() -> Any:
        return "fast"

    with TestClient(app) as client:
        results: dict[str, Any] = {}
        threads = [_get(client.port, f"/hold/{n}", results) for n in range(3)]
        assert started.acquire(timeout=60) and started.acquire(timeout=60)
        assert _fetch(client, "/fast") == "fast"
        assert len(names) == 2  # the third call waits for a thread
        release.set()
        for t in threads:
            t.join(60)
        assert sorted(r["n"] for r in results.values()) == [0, 1, 2]
        assert {r["thread"] for r in results.values()} <= set(names)
        assert all(name.startswith("slipstream-sync") for name in names)


@pytest.mark.parametrize("size", [0, -1, 5000, "8", 1.5, True])
def test_thread_pool_size_is_checked(size: Any) -> None:
    with pytest.raises(ValueError, match="thread_pool_size must be an integer from 1 to 4096"):
        App(thread_pool_size=size)


def test_thread_pool_size_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLIPSTREAM_THREAD_POOL_SIZE", "3")
    assert App().thread_pool_size == 3
    assert App(thread_pool_size=5).thread_pool_size == 5
    monkeypatch.setenv("SLIPSTREAM_THREAD_POOL_SIZE", "many")
    with pytest.raises(ValueError):
        App()


@pytest.mark.parametrize("value", [0, -2, "2", 1.0])
def test_max_concurrency_is_checked(value: Any) -> None:
    with pytest.raises(ValueError, match="max_concurrency must be a positive integer or None"):
        Depends(lambda: 1, max_concurrency=value)


def test_a_cancelled_request_waits_for_its_def_dependency_to_end() -> None:
    """App(cancel_on_disconnect=True): the client leaves while a `def` dependency runs; the handler's task is
    cancelled only once that call ended (as anyio's run_sync), so nothing of the request runs on after it."""
    app = App(cancel_on_disconnect=True)
    gate = Gate()
    ended = threading.Event()
    seen: dict[str, Any] = {}
    cancelled = threading.Event()

    def slow() -> int:
        gate.block()
        ended.set()
        return 1

    async def watch() -> AsyncIterator[None]:
        try:
            yield
        finally:
            seen["call ended before the cancellation"] = ended.is_set()
            cancelled.set()

    @app.get("/slow", dependencies=[Depends(watch)])
    async def use_slow(value: Annotated[int, Depends(slow)]) -> Any:
        return value

    with TestClient(app) as client:
        sock = socket.create_connection(("127.0.0.1", client.port), timeout=30)
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        assert gate.entered.wait(60)
        sock.close()  # seen while the call blocks: the cancellation waits for the call
        gate.release.set()
        assert cancelled.wait(60)
    assert seen == {"call ended before the cancellation": True}
