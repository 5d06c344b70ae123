"""Depends / Security: the same app on FastAPI and on Slipstream gives the same status, body and side effects.

Covers sync, async, generator and async generator dependencies (exit code order, exceptions thrown into
them), per-request caching (use_cache), nested dependencies whose parameters join the route's validation
(invalid input is a 422 from C++), route/router/app-level `dependencies=`, classes, Annotated, Security scopes,
dependency_overrides (before and after the client starts) and injected Response/BackgroundTasks.
"""


from typing import Annotated, Any

import pytest
from pydantic import BaseModel

fastapi = pytest.importorskip("fastapi")
import slipstream
from fastapi.security import SecurityScopes as FastAPISecurityScopes
from fastapi.testclient import TestClient as FastAPIClient


class Item(BaseModel):
    name: str
    price: float


def build(fw: Any, events: list[str]) -> Any:
    """One app written against FastAPI's API, for `fw` (the fastapi or slipstream module)."""
    is_fastapi = fw is fastapi
    Depends, Query, Header, Cookie, Body = fw.Depends, fw.Query, fw.Header, fw.Cookie, fw.Body
    Security = fw.Security
    SecurityScopes = FastAPISecurityScopes if is_fastapi else fw.SecurityScopes
    HTTPException, Response, BackgroundTasks = fw.HTTPException, fw.Response, fw.BackgroundTasks

    def verify_key(x_key: Annotated[str, Header()]) -> str:
        events.append(f"key:{x_key}")
        if x_key != "secret":
            raise HTTPException(403, "bad key")
        return x_key

    app = fw.FastAPI(dependencies=[Depends(verify_key)]) if is_fastapi else fw.App(dependencies=[Depends(verify_key)])

    def common(q: str | None = None, skip: int = 0, limit: Annotated[int, Query(le=100)] = 10) -> dict[str, Any]:
        return {"q": q, "skip": skip, "limit": limit}

    async def async_common(tag: str = "t") -> str:
        return tag.upper()

    def sync_gen(name: str = "db") -> Any:
        events.append(f"open:{name}")
        try:
            yield name
        except HTTPException as exc:
            events.append(f"caught:{exc.status_code}")
            raise
        finally:
            events.append(f"close:{name}")

    async def async_gen() -> Any:
        events.append("aopen")
        yield "conn"
        events.append("aclose")

    counter = {"n": 0}

    def counted() -> int:
        counter["n"] += 1
        events.append("counted")
        return counter["n"]

    def uses_counted(a: Annotated[int, Depends(counted)]) -> int:
        return a

    class Pager:
        def __init__(self, page: int = 1, size: Annotated[int, Query(gt=0)] = 20) -> None:
            self.page, self.size = page, size

    def user_from_cookie(session: Annotated[str | None, Cookie()] = None) -> str:
        if session is None:
            raise HTTPException(401, "no session", headers={"WWW-Authenticate": "Bearer"})
        return session

    def scoped(scopes: SecurityScopes, user: Annotated[str, Depends(user_from_cookie)]) -> dict[str, Any]:
        return {"user": user, "scopes": scopes.scopes, "scope_str": scopes.scope_str}

    def body_dep(item: Item) -> str:
        return item.name

    @app.get("/common")
    def read_common(commons: Annotated[dict, Depends(common)]) -> Any:
        return commons

    @app.get("/mixed/{item_id}")
    async def mixed(item_id: int, commons: dict = Depends(common), tag: str = Depends(async_common),  # noqa: B008
                    db: str = Depends(sync_gen), conn: str = Depends(async_gen)) -> Any:
        events.append("handler")
        return {"item_id": item_id, "commons": commons, "tag": tag, "db": db, "conn": conn}

    @app.get("/fail")
    def fail(db: Annotated[str, Depends(sync_gen)]) -> Any:
        events.append("handler")
        raise HTTPException(409, "conflict")

    @app.get("/cache")
    def cache(a: Annotated[int, Depends(counted)], b: Annotated[int, Depends(uses_counted)],
              c: Annotated[int, Depends(counted, use_cache=False)]) -> Any:
        return {"a": a, "b": b, "c": c}

    @app.get("/class")
    def klass(pager: Annotated[Pager, Depends()]) -> Any:
        return {"page": pager.page, "size": pager.size}

    @app.get("/me")
    def me(info: Annotated[dict, Security(scoped, scopes=["items:read"])]) -> Any:
        return info

    @app.post("/body")
    def with_body(name: Annotated[str, Depends(body_dep)], note: Annotated[str, Body()] = "") -> Any:
        return {"name": name, "note": note}

    def set_header(response: Response) -> None:
        response.headers["X-Dep"] = "yes"
        response.status_code = 202

    @app.get("/response", dependencies=[Depends(set_header)])
    def with_response(response: Response) -> Any:
        response.set_cookie("seen", "1")
        return {"ok": True}

    def log_task(message: str) -> None:
        events.append(f"task:{message}")

    def queue(background_tasks: BackgroundTasks, q: str = "dep") -> str:
        background_tasks.add_task(log_task, q)
        return q

    @app.get("/background")
    def background(tasks: BackgroundTasks, q: Annotated[str, Depends(queue)],
                   db: Annotated[str, Depends(sync_gen)]) -> Any:
        tasks.add_task(log_task, "handler")
        events.append("handler")
        return {"q": q}

    router_kw = {"prefix": "/r", "dependencies": [Depends(counted)]}
    router = fw.APIRouter(**router_kw)

    @router.get("/x")
    def in_router(a: Annotated[int, Depends(counted)]) -> Any:
        return {"a": a}

    app.include_router(router, dependencies=[Depends(async_common)])
    app.counter = counter  # type: ignore[attr-defined]
    return app


GOOD = {"x-key": "secret"}
CASES = [
    ("/common", {}),
    ("/common?q=a&skip=2&limit=5", {}),
    ("/common?limit=500", {}),
    ("/common?skip=x&limit=y", {}),
    ("/mixed/3?tag=ab&name=main", {}),
    ("/mixed/x?skip=z", {}),
    ("/fail", {}),
    ("/cache", {}),
    ("/class?page=2&size=3", {}),
    ("/class?size=0", {}),
    ("/me", {"cookies": {"session": "alice"}}),
    ("/me", {}),
    ("/response", {}),
    ("/background?q=v", {}),
    ("/r/x?tag=z", {}),
]


def _headers(kwargs: dict[str, Any], key: str | None) -> dict[str, Any]:
    out = dict(kwargs)
    cookies = out.pop("cookies", None)
    headers = {"x-key": key} if key is not None else {}
    if cookies:
        headers["cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    out["headers"] = headers
    return out


@pytest.fixture(scope="module")
def pair() -> Any:
    ours_events: list[str] = []
    theirs_events: list[str] = []
    ours = slipstream.TestClient(build(slipstream, ours_events))
    theirs = FastAPIClient(build(fastapi, theirs_events))
    yield ours, theirs, ours_events, theirs_events
    ours.close()


def _compare(pair: Any, method: str, url: str, *, events: bool = True, **kwargs: Any) -> Any:
    ours, theirs, ours_events, theirs_events = pair
    for client, log in ((ours, ours_events), (theirs, theirs_events)):
        log.clear()
        client.app.counter["n"] = 0
    expected = theirs.request(method, url, **kwargs)
    got = ours.request(method, url, **kwargs)
    if got.status_code == 422 and expected.status_code in (401, 403):
        pytest.xfail("known difference: FastAPI calls the dependencies before an invalid parameter's, and one "
                     "that raises wins over the 422; here every parameter is validated (in C++) first")
    if got.status_code == expected.status_code == 422 and got.json() != expected.json():
        key = repr
        assert sorted(got.json()["detail"], key=key) == sorted(expected.json()["detail"], key=key)
        pytest.xfail("known difference: FastAPI lists a dependency's errors before its dependant's; the C++ "
                     "validator lists path, query, header, cookie, body errors of the whole tree in that order")
    assert (got.status_code, got.json()) == (expected.status_code, expected.json())
    # Known difference: for a 422, FastAPI has still called the dependencies whose own parameters were valid.
    if events and expected.status_code != 422:
        assert ours_events == theirs_events
    return got, expected


@pytest.mark.parametrize(("url", "kwargs"), CASES)
@pytest.mark.parametrize("key", ["secret", "wrong", None])
def test_same_as_fastapi(pair: Any, url: str, kwargs: dict[str, Any], key: str | None) -> None:
    _compare(pair, "GET", url, **_headers(kwargs, key))


@pytest.mark.parametrize("body", [{"name": "a", "price": 1}, {"item": {"name": "a", "price": 1}, "note": "n"},
                                  {"item": {"name": "a"}}, [1]])
def test_body_parameter_of_a_dependency(pair: Any, body: Any) -> None:
    _compare(pair, "POST", "/body", json=body, headers=GOOD)


def test_injected_response_sets_status_header_and_cookie(pair: Any) -> None:
    got, expected = _compare(pair, "GET", "/response", headers=GOOD)
    assert got.status_code == 202
    assert got.headers["x-dep"] == expected.headers["x-dep"] == "yes"
    assert got.headers["set-cookie"] == expected.headers["set-cookie"]


def test_cleanup_order_and_background_tasks(pair: Any) -> None:
    _, _, ours_events, _ = pair
    _compare(pair, "GET", "/background?q=v", headers=GOOD)
    assert ours_events == ["key:secret", "open:db", "handler", "task:v", "task:handler", "close:db"]
    _compare(pair, "GET", "/fail", headers=GOOD)
    assert ours_events == ["key:secret", "open:db", "handler", "caught:409", "close:db"]


def test_invalid_input_runs_the_valid_dependencies_first(pair: Any) -> None:
    ours, theirs, ours_events, theirs_events = pair
    for client, log in ((ours, ours_events), (theirs, theirs_events)):
        log.clear()
        response = client.get("/common?limit=500", headers=GOOD)
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == ["query", "limit"]
    # As FastAPI: the app-level dependency, whose own parameters are valid, ran before the 422.
    assert ours_events == theirs_events == ["key:secret"]


def _override_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()

    def get_user(token: str = "t") -> dict[str, str]:
        return {"user": "real", "token": token}

    @app.get("/user")
    def user(u: Annotated[dict, fw.Depends(get_user)]) -> Any:
        return u

    app.get_user = get_user  # type: ignore[attr-defined]
    return app


@pytest.mark.parametrize("when", ["before", "after"])
def test_dependency_overrides(when: str) -> None:
    def fake_user(name: str = "anon", limit: int = 1) -> dict[str, Any]:
        return {"user": name, "limit": limit}

    apps = {fw: _override_app(fw) for fw in (fastapi, slipstream)}
    clients = {}
    for fw, app in apps.items():
        if when == "before":
            app.dependency_overrides[app.get_user] = fake_user
        clients[fw] = FastAPIClient(app) if fw is fastapi else slipstream.TestClient(app)
        if when == "after":
            app.dependency_overrides[app.get_user] = fake_user
    try:
        for url in ["/user", "/user?name=bob&limit=3", "/user?limit=x", "/user?token=z"]:
            expected = clients[fastapi].get(url)
            got = clients[slipstream].get(url)
            assert (got.status_code, got.json()) == (expected.status_code, expected.json()), url
        for fw, app in apps.items():
            app.dependency_overrides.clear()
        assert clients[slipstream].get("/user?token=z").json() == {"user": "real", "token": "z"}
    finally:
        clients[slipstream].close()


def test_request_scope_generator_cannot_depend_on_function_scope() -> None:
    def inner() -> Any:
        yield 1

    def outer(x: Annotated[int, slipstream.Depends(inner, scope="function")]) -> Any:
        yield x

    app = slipstream.App()
    with pytest.raises(TypeError, match='has a scope of "request"'):
        @app.get("/x")
        def handler(y: Annotated[int, slipstream.Depends(outer)]) -> Any:
            return y


def test_function_scope_exits_before_the_response() -> None:
    events: list[str] = []

    def dep() -> Any:
        events.append("enter")
        yield "v"
        events.append("exit")

    app = slipstream.App()

    @app.get("/f")
    def handler(v: Annotated[str, slipstream.Depends(dep, scope="function")],
                tasks: slipstream.BackgroundTasks) -> Any:
        tasks.add_task(events.append, "task")
        return {"v": v}

    with slipstream.TestClient(app) as client:
        assert client.get("/f").json() == {"v": "v"}
    assert events == ["enter", "exit", "task"]


def test_async_dependency_that_really_awaits() -> None:
    import asyncio

    async def slow(n: int = 1) -> int:
        await asyncio.sleep(0.001)
        return n * 2

    async def slow_gen() -> Any:
        await asyncio.sleep(0.001)
        yield "g"
        await asyncio.sleep(0.001)

    app = slipstream.App()

    @app.get("/slow")
    def handler(a: Annotated[int, slipstream.Depends(slow)], g: Annotated[str, slipstream.Depends(slow_gen)]) -> Any:
        return {"a": a, "g": g}

    with slipstream.TestClient(app) as client:
        assert [client.get(f"/slow?n={i}").json() for i in range(3)] == [{"a": 2 * i, "g": "g"} for i in range(3)]
