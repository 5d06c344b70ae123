"""Regression tests for runtime defects of the Python front end (issue 30, items 8-11 and 15-17), each through the
public interface: a real server (TestClient, or a subprocess where a defect used to abort the process), compared
with FastAPI's answer where FastAPI is the specification."""

import dataclasses
import subprocess
import sys
import textwrap
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, PlainSerializer

fastapi = pytest.importorskip("fastapi")
import slipstream
from fastapi.testclient import TestClient as FastAPIClient


def both(build: Any) -> tuple[Any, Any]:
    """`build(fw)` made once with FastAPI and once with Slipstream: (slipstream client, FastAPI client)."""
    return slipstream.TestClient(build(slipstream), raise_server_exceptions=False), FastAPIClient(build(fastapi), raise_server_exceptions=False)


def answer(response: Any) -> tuple[int, bytes, str | None]:
    return response.status_code, response.content, response.headers.get("content-type")


def run_script(body: str) -> subprocess.CompletedProcess[str]:
    """`body` in a fresh interpreter (an abort there fails the test instead of killing pytest)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(body)], capture_output=True, text=True, timeout=60,
                          check=False)


# --- 8: a started app freed by the garbage collector on its own executor thread ---------------------------------

# The handler, on the executor thread, waits until the main thread dropped its last reference to the client (or
# the native app), then runs the collector there: the object is freed on its own executor thread.
_COLLECT_ON_EXECUTOR = """
    import asyncio, gc, http.client, json, threading, weakref
    import slipstream
    gc.disable()
    app = slipstream.App()
    dropped = threading.Event()
    seen = {}

    @app.get("/collect")
    async def collect():
        await asyncio.to_thread(dropped.wait, 30)
        gc.collect()
        return {"freed": seen["ref"]() is None, "here": seen.get("thread") == threading.get_ident()}
"""


def test_testclient_collected_on_its_executor_thread_does_not_abort() -> None:
    result = run_script(_COLLECT_ON_EXECUTOR + """
    class Client(slipstream.TestClient):
        def __del__(self):
            seen["thread"] = threading.get_ident()
            super().__del__()

    client = Client(app)
    client.cycle = client
    seen["ref"] = weakref.ref(client)
    conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
    conn.request("GET", "/collect")
    del client
    dropped.set()
    response = conn.getresponse()
    print(response.status, json.loads(response.read()))
    """)
    assert (result.returncode, result.stdout) == (0, "200 {'freed': True, 'here': True}\n"), result.stderr


def test_native_app_freed_on_its_executor_thread_does_not_abort() -> None:
    result = run_script(_COLLECT_ON_EXECUTOR + """
    native, runtime = app.build_native(access_log=False, threads=1)
    native.listen("127.0.0.1", 0)
    native.start()
    port = native.port
    done = threading.Event()
    weakref.finalize(runtime, done.set)  # the runtime goes with the app's last parts, after its executor stopped
    seen["ref"] = weakref.ref(runtime)
    seen["thread"] = None
    box = [native, runtime]
    box.append(box)
    del native, runtime, box
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/collect")
    dropped.set()
    response = conn.getresponse()
    print(response.status, json.loads(response.read())["freed"], done.wait(30))
    """)
    assert (result.returncode, result.stdout) == (0, "200 False True\n"), result.stderr


def test_twenty_cyclic_clients_with_an_eager_collector_do_not_abort() -> None:
    """The issue's reproduction: the collector runs wherever objects are allocated, the executor threads
    included, while started clients in reference cycles are garbage."""
    result = run_script("""
    import asyncio, gc
    import slipstream
    app = slipstream.App()
    tasks = set()

    async def churn():
        for _ in range(2000):
            [dict() for _ in range(50)]
            await asyncio.sleep(0)

    @app.get("/")
    async def root():
        tasks.add(asyncio.get_running_loop().create_task(churn()))
        return {"a": 1}

    gc.set_threshold(1)
    statuses = []
    for _ in range(20):
        client = slipstream.TestClient(app)
        client.cycle = client
        statuses.append(client.get("/").status_code)
        del client
    print(statuses == [200] * 20)
    """)
    assert (result.returncode, result.stdout) == (0, "True\n"), result.stderr


def test_wait_on_the_executor_thread_raises_instead_of_joining_itself() -> None:
    app = slipstream.App()
    holder: dict[str, Any] = {}

    @app.get("/wait")
    def wait_here() -> dict[str, str]:
        try:
            holder["client"]._native.wait()
        except RuntimeError as exc:
            return {"error": str(exc)}
        return {"error": ""}

    with slipstream.TestClient(app) as client:
        holder["client"] = client
        response = client.get("/wait")
    assert response.json() == {"error": "the server cannot be waited for on its own executor thread (in a handler, "
                                        "or code it runs): call stop() there and wait() on another thread"}


# --- 9: a handler with a dependency (or a suspended coroutine) that returns None ---------------------------------

def _none_app(fw: Any) -> Any:
    import asyncio

    app = fw.FastAPI() if fw is fastapi else fw.App()

    def dep() -> int:
        return 1

    @app.get("/dep")
    def with_dep(d: int = fw.Depends(dep)) -> None:
        return None

    @app.get("/dep204", status_code=204)
    def with_dep_204(d: int = fw.Depends(dep)) -> None:
        return None

    @app.get("/async-dep")
    async def async_with_dep(d: int = fw.Depends(dep)) -> None:
        return None

    @app.get("/suspended")
    async def suspended() -> None:
        await asyncio.sleep(0.001)

    @app.get("/suspended204", status_code=204)
    async def suspended_204() -> None:
        await asyncio.sleep(0.001)

    return app


@pytest.mark.parametrize("url", ["/dep", "/dep204", "/async-dep", "/suspended", "/suspended204"])
def test_handler_returning_none_answers_as_fastapi(url: str) -> None:
    ours, theirs = both(_none_app)
    with ours, theirs:
        expected = (204, b"") if url.endswith("204") else (200, b"null")
        theirs_answer = answer(theirs.get(url))
        assert theirs_answer[:2] == expected
        assert answer(ours.get(url)) == theirs_answer


# --- 10: functools.partial of an object whose __call__ is a coroutine (or an async generator) -------------------

def _partial_app(fw: Any) -> Any:
    import functools

    app = fw.FastAPI() if fw is fastapi else fw.App()

    class Doubler:
        async def __call__(self, x: int = 3) -> int:
            return x * 2

    class Opened:
        async def __call__(self, name: str = "a") -> Any:
            yield f"open {name}"

    class Plain:
        def __call__(self, x: int = 3) -> int:
            return x + 1

    @app.get("/async-call")
    def async_call(v: int = fw.Depends(functools.partial(Doubler(), x=5))) -> dict[str, int]:
        return {"v": v}

    @app.get("/async-gen-call")
    def async_gen_call(v: str = fw.Depends(functools.partial(Opened(), name="b"))) -> dict[str, str]:
        return {"v": v}

    @app.get("/plain-call")
    def plain_call(v: int = fw.Depends(functools.partial(Plain(), x=5))) -> dict[str, int]:
        return {"v": v}

    return app


@pytest.mark.parametrize(("url", "body"), [("/async-call", {"v": 10}), ("/async-gen-call", {"v": "open b"}),
                                           ("/plain-call", {"v": 6}), ("/async-call?x=7", {"v": 14})])
def test_partial_of_async_callable_object_is_awaited(url: str, body: dict[str, Any]) -> None:
    ours, theirs = both(_partial_app)
    with ours, theirs:
        assert (theirs.get(url).status_code, theirs.get(url).json()) == (200, body)
        assert answer(ours.get(url)) == answer(theirs.get(url))


# --- 11: response_model validates the returned object itself (from_attributes, @property, PlainSerializer) -------

class _Row:
    def __init__(self) -> None:
        self.first, self.last = "Ada", "Lovelace"

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


class _UserModel(BaseModel):
    first: str
    last: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


@dataclasses.dataclass
class _UserData:
    first: str
    last: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


class _NameOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    first: str
    full: str


class _Money(BaseModel):
    cents: Annotated[int, PlainSerializer(lambda v: f"{v / 100:.2f}", return_type=str)]


def _response_model_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()

    @app.get("/object", response_model=_NameOut)
    def plain_object() -> Any:
        return _Row()

    @app.get("/model-property", response_model=_NameOut)
    def model_property() -> Any:
        return _UserModel(first="Grace", last="Hopper")

    @app.get("/dataclass-property", response_model=_NameOut)
    def dataclass_property() -> Any:
        return _UserData(first="Alan", last="Turing")

    @app.get("/nested-property", response_model=dict[str, list[_NameOut]])
    def nested_property() -> Any:
        return {"users": [_UserModel(first="Grace", last="Hopper")]}

    @app.get("/serializer", response_model=_Money)
    def serializer() -> Any:
        return _Money(cents=1234)

    @app.get("/serializer-list", response_model=list[_Money])
    def serializer_list() -> Any:
        return [_Money(cents=5), _Money(cents=250)]

    @app.get("/annotation")
    def annotation() -> _Money:
        return _Money(cents=99)

    return app


@pytest.mark.parametrize(("url", "body"), [
    ("/object", {"first": "Ada", "full": "Ada Lovelace"}),
    ("/model-property", {"first": "Grace", "full": "Grace Hopper"}),
    ("/dataclass-property", {"first": "Alan", "full": "Alan Turing"}),
    ("/nested-property", {"users": [{"first": "Grace", "full": "Grace Hopper"}]}),
    ("/serializer", {"cents": "12.34"}),
    ("/serializer-list", [{"cents": "0.05"}, {"cents": "2.50"}]),
    ("/annotation", {"cents": "0.99"}),
])
def test_response_model_validates_the_returned_object(url: str, body: Any) -> None:
    ours, theirs = both(_response_model_app)
    with ours, theirs:
        assert (theirs.get(url).status_code, theirs.get(url).json()) == (200, body)
        assert answer(ours.get(url)) == answer(theirs.get(url))


# --- 15: the status and headers a dependency sets on the injected Response reach streamed (generator) routes -----

def _stream_status_app(fw: Any, middleware: bool) -> Any:
    from collections.abc import AsyncIterator, Iterator

    app = fw.FastAPI() if fw is fastapi else fw.App()
    events = fastapi.sse.EventSourceResponse if fw is fastapi else slipstream.EventSourceResponse
    if middleware:
        @app.middleware("http")
        async def passthrough(request: Any, call_next: Any) -> Any:
            return await call_next(request)

    def mark(response: fw.Response) -> None:
        response.status_code = 202
        response.headers["x-dep"] = "set"

    @app.get("/jsonl", dependencies=[fw.Depends(mark)])
    async def jsonl() -> AsyncIterator[int]:
        yield 1
        yield 2

    @app.get("/jsonl-sync", dependencies=[fw.Depends(mark)], status_code=201)
    def jsonl_sync() -> Iterator[dict[str, int]]:
        yield {"a": 1}

    @app.get("/sse", response_class=events, dependencies=[fw.Depends(mark)])
    async def sse() -> AsyncIterator[str]:
        yield "x"

    @app.get("/raw", response_class=fw.responses.StreamingResponse, dependencies=[fw.Depends(mark)])
    async def raw() -> Any:
        yield b"raw"

    def header_only(response: fw.Response) -> None:
        response.headers["x-dep"] = "only"

    @app.get("/unset", status_code=201, dependencies=[fw.Depends(header_only)])
    async def unset() -> AsyncIterator[int]:
        yield 3

    return app


@pytest.mark.parametrize("middleware", [False, True], ids=["plain", "middleware"])
@pytest.mark.parametrize(("url", "status", "body"), [
    ("/jsonl", 202, b"1\n2\n"), ("/jsonl-sync", 202, b'{"a":1}\n'), ("/sse", 202, b'data: "x"\n\n'),
    ("/raw", 202, b"raw"), ("/unset", 201, b"3\n"),
])
def test_dependency_status_reaches_streamed_routes(middleware: bool, url: str, status: int, body: bytes) -> None:
    ours = slipstream.TestClient(_stream_status_app(slipstream, middleware), raise_server_exceptions=False)
    theirs = FastAPIClient(_stream_status_app(fastapi, middleware), raise_server_exceptions=False)
    with ours, theirs:
        expected = theirs.get(url)
        assert (expected.status_code, expected.content) == (status, body)
        got = ours.get(url)
        assert answer(got) == answer(expected)
        assert got.headers.get("x-dep") == expected.headers.get("x-dep") == ("only" if url == "/unset" else "set")


# --- 16: lifespans and startup/shutdown handlers of routers nested in routers ------------------------------------

def _nested_lifespan_app(fw: Any, events: list[str], app_lifespan: bool) -> Any:
    import contextlib

    def span(name: str, state: dict[str, int]) -> Any:
        @contextlib.asynccontextmanager
        async def lifespan(app: Any) -> Any:
            events.append(f"{name} start")
            yield state
            events.append(f"{name} stop")

        return lifespan

    make_app = fw.FastAPI if fw is fastapi else fw.App
    app = make_app(lifespan=span("app", {"app": 1})) if app_lifespan else make_app()
    router = fw.APIRouter(lifespan=span("router", {"router": 2}))
    sub = fw.APIRouter(lifespan=span("sub", {"sub": 3, "router": 0}))
    leaf = fw.APIRouter(on_startup=[lambda: events.append("leaf startup")],
                        on_shutdown=[lambda: events.append("leaf shutdown")])

    @leaf.get("/state")
    def state(request: fw.Request) -> dict[str, Any]:
        return {k: getattr(request.state, k, None) for k in ("app", "router", "sub")}

    sub.include_router(leaf)
    router.include_router(sub, prefix="/s")
    app.include_router(router, prefix="/r")
    return app


@pytest.mark.parametrize("app_lifespan", [True, False], ids=["app-lifespan", "app-default"])
def test_nested_router_lifespans_run(app_lifespan: bool) -> None:
    runs: dict[str, tuple[Any, list[str]]] = {}
    for fw, client_class in ((fastapi, FastAPIClient), (slipstream, slipstream.TestClient)):
        events: list[str] = []
        with client_class(_nested_lifespan_app(fw, events, app_lifespan)) as client:
            body = client.get("/r/s/state").json()
        runs[fw.__name__] = (body, events)
    starts = ["router start", "sub start", "leaf startup"]
    stops = ["leaf shutdown", "sub stop", "router stop"]
    if app_lifespan:
        expected = ({"app": 1, "router": 2, "sub": 3}, ["app start", *starts, *stops, "app stop"])
    else:  # the app's default lifespan runs the handlers it took from the routers, then theirs run too
        expected = ({"app": None, "router": 2, "sub": 3},
                    ["leaf startup", *starts, *stops, "leaf shutdown"])
    assert runs["fastapi"] == expected
    assert runs["slipstream"] == expected


# --- 17: dependency_overrides changed, and routes added, after the TestClient started ----------------------------

def _late_app(fw: Any, middleware: bool) -> tuple[Any, Any, Any]:
    from pydantic import BaseModel

    class Item(BaseModel):
        name: str

    app = fw.FastAPI() if fw is fastapi else fw.App()
    if middleware:
        @app.middleware("http")
        async def passthrough(request: Any, call_next: Any) -> Any:
            return await call_next(request)

    def get_user(authorization: str = fw.Header(), tenant: int = fw.Query()) -> str:
        return f"{authorization}@{tenant}"

    def get_item(item: Item) -> str:
        return item.name

    @app.get("/me")
    def me(user: str = fw.Depends(get_user)) -> dict[str, str]:
        return {"user": user}

    @app.post("/items")
    async def items(name: str = fw.Depends(get_item)) -> dict[str, str]:
        return {"name": name}

    return app, get_user, get_item


def _late_steps(fw: Any, client: Any, app: Any, get_user: Any, get_item: Any) -> list[Any]:
    seen: list[Any] = []

    def record(response: Any) -> None:
        seen.append((response.status_code, response.json()))

    record(client.get("/me", params={"tenant": "1"}, headers={"authorization": "a"}))
    record(client.get("/me"))
    app.dependency_overrides[get_user] = lambda: "fake"  # an override without the original's parameters
    record(client.get("/me"))
    record(client.get("/me", params={"tenant": "x"}))
    app.dependency_overrides = {}  # the usual reset between tests
    record(client.get("/me"))
    app.dependency_overrides[get_item] = lambda: "fake item"  # set again after the reset
    record(client.post("/items"))
    record(client.post("/items", content=b"{not json", headers={"content-type": "application/json"}))
    app.dependency_overrides.clear()
    record(client.post("/items", json={"name": "real"}))

    @app.get("/added/{n}")
    def added(n: int, q: str = "d", user: str = fw.Depends(get_user)) -> dict[str, Any]:
        return {"n": n, "q": q, "user": user}

    @app.post("/added-body", status_code=201)
    def added_body(item: Annotated[Any, fw.Body()]) -> Any:
        return item

    record(client.get("/added/3", params={"q": "z", "tenant": "2"}, headers={"authorization": "b"}))
    record(client.get("/added/x"))
    app.dependency_overrides[get_user] = lambda: "late fake"
    record(client.get("/added/4"))
    record(client.post("/added-body", json={"a": [1]}))
    record(client.put("/added-body", json={}))
    record(client.get("/nowhere"))
    return seen


@pytest.mark.parametrize("middleware", [False, True], ids=["plain", "middleware"])
def test_changes_after_the_client_started_apply(middleware: bool) -> None:
    runs = {}
    for fw, client_class in ((fastapi, FastAPIClient), (slipstream, slipstream.TestClient)):
        app, get_user, get_item = _late_app(fw, middleware)
        with client_class(app) as client:
            runs[fw.__name__] = _late_steps(fw, client, app, get_user, get_item)
    assert runs["slipstream"] == runs["fastapi"]
    assert [status for status, _ in runs["fastapi"]] == [200, 422, 200, 200, 422, 200, 422, 200, 200, 422, 200,
                                                         201, 405, 404]
