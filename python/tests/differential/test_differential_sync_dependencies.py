"""FastAPI vs Slipstream on where `def` dependencies run: in the thread pool, off the event loop, each in a copy
of the request's contextvars (FastAPI: Starlette's run_in_threadpool). Plain `def` dependencies, class
dependencies, `yield` dependencies (entry and exit), `def` handlers behind dependencies or HTTP middleware, and
`Depends(max_concurrency=...)`; each answer says what the code saw (a running loop, the loop's thread, the
contextvars), so the rows compare the semantics, not only the values.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import asyncio
import contextvars
import importlib
import threading
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import httpx
import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient

from .diff_support import Outcome, client_pairs, compare, exchange, record

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")
SET_BY_DEP: contextvars.ContextVar[str] = contextvars.ContextVar("set_by_dep", default="unset")


def _where(loop_thread: int | None) -> dict[str, Any]:
    """What a call sees of where it runs: a running loop, and whether it is on the loop's thread."""
    try:
        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        running = False
    return {"loop": running, "loop_thread": threading.get_ident() == loop_thread, "request_id": REQUEST_ID.get()}


def sync_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    log: list[Any] = []
    state: dict[str, Any] = {"loop_thread": None}

    @app.middleware("http")
    async def mark(request: Any, call_next: Any) -> Any:
        state["loop_thread"] = threading.get_ident()
        token = REQUEST_ID.set(request.headers.get("x-id", "none"))
        try:
            return await call_next(request)
        finally:
            REQUEST_ID.reset(token)

    def plain(q: int = 0) -> dict[str, Any]:
        return {**_where(state["loop_thread"]), "q": q}

    class Pager:
        def __init__(self, limit: int = 10) -> None:
            self.limit = limit
            self.where = _where(state["loop_thread"])

    def sets_var() -> str:
        SET_BY_DEP.set("from the dependency")
        return SET_BY_DEP.get()

    def session(name: str = "db") -> Iterator[str]:
        log.append(("enter", _where(state["loop_thread"])))
        try:
            yield name
        except ValueError as exc:
            log.append(("error", str(exc)))
            raise fw.HTTPException(status_code=409, detail=f"rolled back: {exc}") from exc
        finally:
            log.append(("exit", _where(state["loop_thread"])))

    def checker(token: Annotated[str, fw.Header()] = "") -> str:
        if token != "secret":
            raise fw.HTTPException(status_code=401, detail="bad token")
        return token

    @app.get("/plain")
    async def read_plain(dep: Annotated[dict[str, Any], fw.Depends(plain)]) -> Any:
        return {"dep": dep, "handler": _where(state["loop_thread"])}

    @app.get("/class")
    async def read_class(pager: Annotated[Pager, fw.Depends()]) -> Any:
        return {"limit": pager.limit, "where": pager.where}

    @app.get("/var")
    async def read_var(value: Annotated[str, fw.Depends(sets_var)]) -> Any:
        return {"dependency saw": value, "handler sees": SET_BY_DEP.get()}

    @app.get("/var-def")
    def read_var_def(
        value: Annotated[str, fw.Depends(sets_var)], where: Annotated[dict[str, Any], fw.Depends(plain)]
    ) -> Any:
        return {"dependency saw": value, "handler sees": SET_BY_DEP.get(), "where": where}

    @app.get("/def-handler")
    def def_handler(dep: Annotated[dict[str, Any], fw.Depends(plain)]) -> Any:
        return {"dep": dep, "handler": _where(state["loop_thread"])}

    @app.get("/def-handler-only")
    def def_handler_only() -> Any:
        return _where(state["loop_thread"])

    @app.get("/session")
    async def use_session(db: Annotated[str, fw.Depends(session)], fail: str = "") -> Any:
        if fail:
            raise ValueError(fail)
        return {"db": db}

    @app.get("/session-function")
    def use_session_function(db: Annotated[str, fw.Depends(session, scope="function")], fail: str = "") -> Any:
        if fail:
            raise ValueError(fail)
        return {"db": db}

    @app.get("/log")
    async def read_log() -> Any:
        out = list(log)
        log.clear()
        return out

    @app.get("/guarded", dependencies=[fw.Depends(checker)])
    def guarded() -> Any:
        return {"ok": True}

    return app


def limited_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    active = {"now": 0, "peak": 0}
    lock = threading.Lock()
    gate = threading.Event()

    def scarce() -> int:
        with lock:
            active["now"] += 1
            active["peak"] = max(active["peak"], active["now"])
        gate.wait(0.05)
        with lock:
            active["now"] -= 1
        return active["peak"]

    @app.get("/scarce")
    async def use_scarce(peak: Annotated[int, fw.Depends(scarce, max_concurrency=1)]) -> Any:
        return {"peak at most one": peak <= 1}

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"sync": sync_app})


def row(app: str, method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    headers = kwargs.get("headers", {})
    detail = " ".join(f"{k}={v}" for k, v in headers.items())
    return pytest.param(app, method, url, gap, kwargs, id=f"{app} {method} {url} {detail}".strip(), marks=marks)


ROWS = [
    row("sync", "GET", "/plain?q=3", headers={"x-id": "r1"}),
    row("sync", "GET", "/plain?q=x"),
    row("sync", "GET", "/class?limit=4", headers={"x-id": "r2"}),
    row("sync", "GET", "/var"),
    row("sync", "GET", "/var-def", headers={"x-id": "r8"}),
    row("sync", "GET", "/def-handler", headers={"x-id": "r3"}),
    row("sync", "GET", "/def-handler-only", headers={"x-id": "r4"}),
    row("sync", "GET", "/session", headers={"x-id": "r5"}),
    row("sync", "GET", "/log"),
    row("sync", "GET", "/session?fail=boom", headers={"x-id": "r6"}),
    row("sync", "GET", "/log"),
    row("sync", "GET", "/session-function", headers={"x-id": "r7"}),
    row("sync", "GET", "/log"),
    row("sync", "GET", "/session-function?fail=boom"),
    row("sync", "GET", "/log"),
    row("sync", "GET", "/guarded"),
    row("sync", "GET", "/guarded", headers={"token": "secret"}),
]


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_answer(
    pair: Any, request: pytest.FixtureRequest, app: str, method: str, url: str, gap: str | None, kwargs: dict[str, Any]
) -> None:
    got, expected = exchange(pair, app, method, url, kwargs)
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("fw_name", ["slipstream", "fastapi"])
def test_max_concurrency_same_answer(fw_name: str) -> None:
    """Depends(max_concurrency=1): concurrent requests never run the dependency twice at once, in either (FastAPI's
    TestClient inside `with`: one event loop for all requests, as a server has)."""
    fw = importlib.import_module(fw_name)
    app = limited_app(fw)
    with slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app) as client:
        # Slipstream's TestClient is one connection: concurrent requests go over their own, to its server.
        port = getattr(client, "port", None)
        get = client.get if port is None else lambda path: httpx.get(f"http://127.0.0.1:{port}{path}", timeout=60)
        results: list[Any] = []

        def call() -> None:
            try:
                results.append(get("/scarce").json())
            except Exception as exc:  # noqa: BLE001 - shown by the assertion
                results.append(repr(exc))

        threads = [threading.Thread(target=call) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert results == [{"peak at most one": True}] * 6
