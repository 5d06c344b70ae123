"""StreamingResponse, handlers that `yield` (JSON Lines, Server-Sent Events): chunks go out as they are produced,
and a client that disconnects stops the producer. Compared with FastAPI where it is installed."""


import asyncio
import importlib.util
import threading
import time
from collections.abc import AsyncIterable, Iterator
from typing import Any

import httpx
import pytest
import slipstream
from pydantic import BaseModel
from slipstream import App, StreamingResponse, TestClient
from slipstream.sse import EventSourceResponse, ServerSentEvent, format_sse_event

HAVE_FASTAPI = importlib.util.find_spec("fastapi") is not None


class Item(BaseModel):
    name: str
    price: float = 1.0


def build(fw: Any) -> Any:
    """The same routes on FastAPI and on Slipstream."""
    fastapi = fw.__name__ == "fastapi"
    app = fw.FastAPI() if fastapi else fw.App()
    if fastapi:
        from fastapi.responses import StreamingResponse as Streaming
        from fastapi.sse import EventSourceResponse as Events
        from fastapi.sse import ServerSentEvent as Event
    else:
        Streaming, Events, Event = StreamingResponse, EventSourceResponse, ServerSentEvent

    @app.get("/sync")
    def sync_stream() -> Any:
        def numbers() -> Iterator[str]:
            for i in range(3):
                yield f"{i},"
        return Streaming(numbers(), media_type="text/csv", headers={"x-kind": "sync"})

    @app.get("/async")
    async def async_stream() -> Any:
        async def numbers() -> Any:
            for i in range(3):
                await asyncio.sleep(0)
                yield f"n{i}\n".encode()
        return Streaming(numbers(), media_type="text/plain")

    @app.get("/jsonl")
    async def jsonl() -> Any:
        yield {"a": 1, "text": "é"}
        yield [1, 2.5, None]

    @app.get("/jsonl-sync")
    def jsonl_sync() -> Any:
        yield {"n": 1}
        yield "two"

    @app.get("/jsonl-typed")
    async def jsonl_typed() -> AsyncIterable[Item]:
        yield Item(name="a")
        yield {"name": "b", "price": 2}

    @app.get("/events", response_class=Events)
    async def events() -> Any:
        yield Event(data={"x": 1}, event="update", id="1", retry=500)
        yield Event(raw_data="line one\nline two", comment="a\r\nb")
        yield {"plain": True}
        yield "text"

    @app.post("/events-post", response_class=Events)
    def events_post() -> Any:
        yield Event(data="hi")

    return app


@pytest.fixture(scope="module")
def client() -> Any:
    with TestClient(build(slipstream), compression=False) as c:
        yield c


@pytest.fixture(scope="module")
def fastapi_client() -> Any:
    if not HAVE_FASTAPI:
        pytest.skip("fastapi is not installed")
    import fastapi
    from fastapi.testclient import TestClient as FastAPIClient

    return FastAPIClient(build(fastapi))


@pytest.mark.parametrize("path", ["/sync", "/async", "/jsonl", "/jsonl-sync", "/jsonl-typed", "/events"])
def test_same_as_fastapi(client: TestClient, fastapi_client: Any, path: str) -> None:
    ours, theirs = client.get(path), fastapi_client.get(path)
    assert ours.status_code == theirs.status_code == 200
    assert ours.content == theirs.content
    for header in ("content-type", "cache-control", "x-accel-buffering", "x-kind"):
        assert ours.headers.get(header) == theirs.headers.get(header), header


def test_bodies_and_headers(client: TestClient) -> None:
    r = client.get("/sync")
    assert (r.content, r.headers["content-type"], r.headers["transfer-encoding"]) == \
        (b"0,1,2,", "text/csv; charset=utf-8", "chunked")
    assert client.get("/async").content == b"n0\nn1\nn2\n"
    r = client.get("/jsonl")
    assert (r.headers["content-type"], r.content) == \
        ("application/jsonl", b'{"a": 1, "text": "\\u00e9"}\n[1, 2.5, null]\n')
    assert client.get("/jsonl-typed").content == b'{"name":"a","price":1.0}\n{"name":"b","price":2.0}\n'
    r = client.get("/events")
    assert r.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert (r.headers["cache-control"], r.headers["x-accel-buffering"]) == ("no-cache", "no")
    assert r.content == (b'event: update\ndata: {"x": 1}\nid: 1\nretry: 500\n\n'
                         b": a\n: b\ndata: line one\ndata: line two\n\n"
                         b'data: {"plain": true}\n\n'
                         b'data: "text"\n\n')
    assert client.post("/events-post").content == b'data: "hi"\n\n'


def test_head_sends_no_body(client: TestClient) -> None:
    app = App()

    @app.api_route("/s", methods=["GET", "HEAD"])
    def s() -> StreamingResponse:
        return StreamingResponse(iter([b"abc"]))

    with TestClient(app, compression=False) as c:
        r = c.head("/s")
        assert (r.status_code, r.content) == (200, b"")


def test_format_sse_event_matches_fastapi() -> None:
    cases: list[dict[str, Any]] = [{"data_str": "a\r\nb\rc\nd"}, {"event": "e", "id": "7", "retry": 0},
                                   {"comment": "c", "data_str": ""}, {}]
    expected = [b"data: a\ndata: b\ndata: c\ndata: d\n\n", b"event: e\nid: 7\nretry: 0\n\n", b": c\ndata: \n\n", b"\n"]
    assert [format_sse_event(**c) for c in cases] == expected  # type: ignore[arg-type]
    if HAVE_FASTAPI:
        from fastapi.sse import format_sse_event as theirs

        assert [theirs(**c) for c in cases] == expected  # type: ignore[arg-type]


class Server:
    """The app on a real socket (127.0.0.1, port 0)."""

    def __init__(self, app: App) -> None:
        self.native = app.build(access_log=False, threads=1, compression=False)
        self.native.listen("127.0.0.1", 0)
        self.native.start()
        self.url = f"http://127.0.0.1:{self.native.port}"

    def __enter__(self) -> "Server":  # noqa: PYI034 - a plain context manager
        return self

    def __exit__(self, *exc: object) -> None:
        self.native.stop()
        self.native.wait()


def wait_for(event: threading.Event, what: str) -> None:
    assert event.wait(10), f"timed out waiting for {what}"


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_chunks_are_sent_as_produced(kind: str) -> None:
    app = App()
    release = threading.Event()

    if kind == "async":
        async def produce() -> Any:
            yield b"first"
            await asyncio.to_thread(release.wait, 10)
            yield b"second"
    else:
        def produce() -> Any:  # type: ignore[misc]
            yield b"first"
            release.wait(10)
            yield b"second"

    @app.get("/s")
    def s() -> StreamingResponse:
        return StreamingResponse(produce())

    with Server(app) as server, httpx.stream("GET", server.url + "/s") as r:
        chunks = r.iter_raw()
        assert next(chunks) == b"first"  # arrives while the producer still waits
        release.set()
        assert b"".join(chunks) == b"second"


@pytest.mark.parametrize("kind", ["async", "sync", "yield"])
def test_client_disconnect_stops_the_producer(kind: str) -> None:
    app = App()
    started, closed = threading.Event(), threading.Event()
    produced = []

    async def agen() -> Any:
        try:
            started.set()
            while True:
                produced.append(1)
                yield b"tick\n"
                await asyncio.sleep(0.01)
        finally:
            closed.set()

    def gen() -> Any:
        try:
            started.set()
            while True:
                produced.append(1)
                yield b"tick\n"
                time.sleep(0.01)
        finally:
            closed.set()

    if kind == "yield":
        @app.get("/s")
        async def s() -> Any:
            try:
                started.set()
                while True:
                    yield {"tick": 1}
                    await asyncio.sleep(0.01)
            finally:
                closed.set()
    else:
        @app.get("/s")
        def s() -> StreamingResponse:  # type: ignore[misc]
            return StreamingResponse(agen() if kind == "async" else gen())

    with Server(app) as server:
        with httpx.stream("GET", server.url + "/s") as r:
            assert next(r.iter_raw()).startswith(b"tick" if kind != "yield" else b'{"tick"')
        wait_for(started, "the producer")
        wait_for(closed, "the generator to be closed after the disconnect")
        # The server still serves.
        assert httpx.get(server.url + "/missing").status_code == 404


def test_error_mid_stream_cuts_the_connection() -> None:
    app = App()

    async def broken() -> Any:
        yield b"partial"
        raise RuntimeError("boom")

    @app.get("/s")
    def s() -> StreamingResponse:
        return StreamingResponse(broken())

    with Server(app) as server, pytest.raises(httpx.RemoteProtocolError):
        httpx.get(server.url + "/s")


def test_error_before_the_stream_answers_500() -> None:
    app = App()

    @app.get("/f")
    def f() -> Any:
        return slipstream.FileResponse("/nonexistent/file.txt")

    with TestClient(app, compression=False, raise_server_exceptions=False) as c:
        r = c.get("/f")
        assert (r.status_code, r.text) == (500, "Internal Server Error")
    with TestClient(app, compression=False) as c, pytest.raises(RuntimeError, match="does not exist"):
        c.get("/f")  # as Starlette's TestClient raises it
