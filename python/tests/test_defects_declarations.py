"""Declarations that FastAPI serves and Slipstream used to get wrong (issue 30, items 13, 14, 18, 19, 20): the same
app runs under both frameworks, through a real server (Slipstream's TestClient) and FastAPI's TestClient, and the
answers (status, JSON body, selected headers) or the OpenAPI documents must be equal."""

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal

import pytest

fastapi = pytest.importorskip("fastapi")
import slipstream
import starlette.exceptions
from fastapi.testclient import TestClient as FastAPIClient
from pydantic import BaseModel, Field

Factory = Callable[[Any], Any]


def new_app(fw: Any) -> Any:
    return fw.FastAPI() if fw is fastapi else fw.App()


@pytest.fixture
def pair() -> Iterator[Callable[[Factory], tuple[Any, Any]]]:
    """pair(factory) -> (Slipstream client, FastAPI client) for the app `factory(framework module)`."""
    opened: list[Any] = []

    def make(factory: Factory) -> tuple[Any, Any]:
        ours = slipstream.TestClient(factory(slipstream), raise_server_exceptions=False)
        theirs = FastAPIClient(factory(fastapi), raise_server_exceptions=False)
        opened.extend((ours, theirs))
        return ours, theirs

    yield make
    for client in opened:
        client.close()


def same_answer(clients: tuple[Any, Any], method: str, url: str, **kwargs: Any) -> Any:
    """Sends one request to both; asserts the status, the JSON body and the given headers match; returns ours."""
    ours, theirs = clients
    headers = kwargs.pop("compare_headers", ())
    a = ours.request(method, url, **kwargs)
    b = theirs.request(method, url, **kwargs)
    assert (a.status_code, a.json()) == (b.status_code, b.json()), f"{method} {url} {kwargs}"
    for name in headers:
        assert a.headers.get(name) == b.headers.get(name), name
    return a


# ---- item 14: `items: list = Form()` keeps every value ----

def bare_list_form_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.post("/tags")
    def tags(items: list = fw.Form(), single: str = fw.Form("x"),  # noqa: B008 - FastAPI style
             kinds: Annotated[set | None, fw.Form()] = None) -> dict[str, Any]:
        return {"items": items, "single": single, "kinds": sorted(kinds) if kinds is not None else None}

    return app


def test_bare_list_form_field_keeps_every_value(pair: Any) -> None:
    clients = pair(bare_list_form_app)
    r = same_answer(clients, "POST", "/tags", content=b"items=a&items=b&single=s1&single=s2&kinds=k&kinds=j",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.json() == {"items": ["a", "b"], "single": "s2", "kinds": ["j", "k"]}
    r = same_answer(clients, "POST", "/tags", content=b"items=only",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.json() == {"items": ["only"], "single": "x", "kinds": None}
    r = same_answer(clients, "POST", "/tags", content=b"single=s",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422


# ---- item 20: Starlette's HTTPException and slipstream's are one hierarchy ----

def http_exception_app(fw: Any) -> Any:
    app = new_app(fw)
    seen: list[str] = []

    @app.get("/starlette")
    def raises_starlette() -> None:
        raise starlette.exceptions.HTTPException(404, "no such thing", headers={"x-why": "gone"})

    @app.get("/starlette-default")
    def raises_starlette_default() -> None:
        raise starlette.exceptions.HTTPException(418)

    @app.get("/own")
    def raises_own() -> None:
        raise fw.HTTPException(409, "conflict")

    return app, seen


def test_starlette_http_exception_is_answered_with_its_status(pair: Any) -> None:
    clients = pair(lambda fw: http_exception_app(fw)[0])
    r = same_answer(clients, "GET", "/starlette", compare_headers=("x-why",))
    assert (r.status_code, r.json(), r.headers["x-why"]) == (404, {"detail": "no such thing"}, "gone")
    r = same_answer(clients, "GET", "/starlette-default")
    assert (r.status_code, r.json()) == (418, {"detail": "I'm a Teapot"})
    assert issubclass(slipstream.HTTPException, starlette.exceptions.HTTPException)


def test_handler_for_starlette_http_exception_catches_slipstreams(pair: Any) -> None:
    def factory(fw: Any) -> Any:
        app, _ = http_exception_app(fw)

        @app.exception_handler(starlette.exceptions.HTTPException)
        def handler(request: Any, exc: Any) -> Any:
            return fw.responses.JSONResponse({"module": type(exc).__module__.split(".")[0], "status": exc.status_code,
                                              "detail": exc.detail}, status_code=299)

        return app

    clients = pair(factory)
    ours, _ = clients
    r = same_answer(clients, "GET", "/starlette")
    assert (r.status_code, r.json()) == (299, {"module": "starlette", "status": 404, "detail": "no such thing"})
    r = ours.get("/own")  # FastAPI's class is fastapi.exceptions.HTTPException: only the module differs
    assert (r.status_code, r.json()) == (299, {"module": "slipstream", "status": 409, "detail": "conflict"})
    assert clients[1].get("/own").json() == {"module": "fastapi", "status": 409, "detail": "conflict"}


def test_http_exception_without_starlette_installed() -> None:
    """Starlette is optional: with it unimportable, slipstream's HTTPException is still answered as before."""
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "starlette" or name.startswith("starlette."):
                    raise ImportError("starlette blocked")
                return None
        sys.meta_path.insert(0, Block())
        import slipstream
        assert slipstream.HTTPException.__mro__[1] is Exception, slipstream.HTTPException.__mro__
        app = slipstream.App()

        @app.get("/x")
        def x():
            raise slipstream.HTTPException(409, "conflict", headers={"x-a": "1"})

        @app.exception_handler(418)
        def teapot(request, exc):
            return slipstream.JSONResponse({"handled": exc.detail}, status_code=200)

        @app.get("/t")
        def t():
            raise slipstream.HTTPException(418)

        with slipstream.TestClient(app) as client:
            r = client.get("/x")
            print(r.status_code, r.json(), r.headers["x-a"])
            r = client.get("/t")
            print(r.status_code, r.json())
        print("starlette" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["409 {'detail': 'conflict'} 1", "200 {'handled': \"I'm a Teapot\"}", "False"]


# ---- item 13: query, header and cookie parameter models ----

class FilterParams(BaseModel):
    model_config = {"extra": "forbid"}
    limit: int = Field(100, gt=0, le=100, description="Page size")
    offset: int = Field(0, ge=0)
    order_by: Literal["created_at", "updated_at"] = "created_at"
    tags: list[str] = []
    q: str | None = Field(None, alias="search")


class CommonHeaders(BaseModel):
    save_data: bool
    if_modified_since: str | None = None
    x_tag: list[str] = []


class StrictHeaders(BaseModel):
    model_config = {"extra": "forbid"}
    x_token: str


class Cookies(BaseModel):
    session_id: str
    tracker: str | None = None


class Paging(BaseModel):
    page: int = 1


def parameter_model_app(fw: Any) -> Any:
    app = fw.FastAPI(title="models") if fw is fastapi else fw.App(title="models")

    def paging(p: Annotated[Paging, fw.Query()]) -> int:
        return p.page * 10

    @app.get("/items/{item_id}")
    def items(item_id: int, filters: Annotated[FilterParams, fw.Query()],
              headers: Annotated[CommonHeaders | None, fw.Header()] = None, other: int = 1) -> dict[str, Any]:
        assert isinstance(filters, FilterParams)
        return {"item_id": item_id, "filters": filters.model_dump(), "headers": headers, "other": other}

    @app.get("/headers")
    async def headers(h: Annotated[CommonHeaders, fw.Header(convert_underscores=False)]) -> CommonHeaders:
        return h

    @app.get("/strict")
    def strict(h: Annotated[StrictHeaders, fw.Header()]) -> StrictHeaders:
        return h

    @app.get("/cookies")
    def cookies(c: Annotated[Cookies, fw.Cookie()], offset: Annotated[int, fw.Depends(paging)]) -> dict[str, Any]:
        return {"cookies": c.model_dump(), "offset": offset}

    return app


MODEL_REQUESTS = [
    ("/items/3", {}),
    ("/items/3?limit=5&tags=a&tags=b&search=x&other=4", {"save-data": "yes", "x-tag": "1"}),
    ("/items/3?limit=0&offset=-1&order_by=name&tool=x&tool=y", {}),
    ("/items/x?limit=0&tool=x&other=z", {"x-tag": "1"}),  # C++ errors (path, query) merged with the models'
    ("/items/3?limit=a", {"save-data": "maybe"}),
    ("/headers", {"save_data": "yes", "x_tag": "a"}),
    ("/headers", {"save-data": "yes"}),
    ("/cookies?page=2", {"cookie": "session_id=s1; other=o"}),
    ("/cookies?page=x", {"cookie": "tracker=t"}),
]


@pytest.mark.parametrize(("url", "headers"), MODEL_REQUESTS)
def test_parameter_models_answer_as_fastapi(pair: Any, url: str, headers: dict[str, str]) -> None:
    same_answer(pair(parameter_model_app), "GET", url, headers=headers)


def test_parameter_models_exact_values(pair: Any) -> None:
    clients = pair(parameter_model_app)
    r = same_answer(clients, "GET", "/items/3?limit=5&tags=a&tags=b&search=x", headers={"save-data": "on"})
    assert r.json() == {"item_id": 3, "other": 1,
                        "filters": {"limit": 5, "offset": 0, "order_by": "created_at", "tags": ["a", "b"], "q": "x"},
                        "headers": {"save_data": True, "if_modified_since": None, "x_tag": []}}
    r = same_answer(clients, "GET", "/items/3?limit=0&tool=x")
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {"type": "greater_than", "loc": ["query", "limit"], "msg": "Input should be greater than 0", "input": "0",
         "ctx": {"gt": 0}},
        {"type": "extra_forbidden", "loc": ["query", "tool"], "msg": "Extra inputs are not permitted", "input": "x"}]
    r = same_answer(clients, "GET", "/cookies?page=3", headers={"cookie": "session_id=s9"})
    assert r.json() == {"cookies": {"session_id": "s9", "tracker": None}, "offset": 30}


def test_header_model_forbidding_extras_refuses_the_clients_other_headers(pair: Any) -> None:
    """As in FastAPI: every header the model does not declare is an extra (the two clients send their own
    headers in different orders, so the errors are compared as a set)."""
    ours, theirs = pair(parameter_model_app)
    a, b = ours.get("/strict", headers={"x-token": "t"}), theirs.get("/strict", headers={"x-token": "t"})
    assert a.status_code == b.status_code == 422
    key = lambda error: (error["loc"][1], error["type"], error["input"])
    assert sorted(map(key, a.json()["detail"])) == sorted(map(key, b.json()["detail"]))
    assert ["header", "host"] in [e["loc"] for e in a.json()["detail"]]
    assert ["header", "x-token"] not in [e["loc"] for e in a.json()["detail"]]


def dependency_order_app(fw: Any) -> Any:
    app = new_app(fw)

    def auth(x_key: Annotated[str | None, fw.Header()] = None) -> str:
        if x_key != "k":
            raise fw.HTTPException(401, "no key")
        return x_key

    @app.get("/guarded")
    def guarded(p: Annotated[Paging, fw.Query()], key: Annotated[str, fw.Depends(auth)], n: int = 0) -> dict[str, Any]:
        return {"page": p.page, "key": key, "n": n}

    return app


@pytest.mark.parametrize(("url", "headers", "status"), [
    ("/guarded?page=2", {"x-key": "k"}, 200),
    ("/guarded?page=x", {}, 401),  # the dependency runs before the model's 422, as in FastAPI
    ("/guarded?page=x", {"x-key": "k"}, 422),
    ("/guarded?page=x&n=y", {}, 401),
    ("/guarded?page=x&n=y", {"x-key": "k"}, 422),
])
def test_dependencies_run_before_a_parameter_model_422(pair: Any, url: str, headers: dict[str, str],
                                                       status: int) -> None:
    assert same_answer(pair(dependency_order_app), "GET", url, headers=headers).status_code == status


def test_parameter_models_through_http_middleware(pair: Any) -> None:
    def factory(fw: Any) -> Any:
        app = parameter_model_app(fw)

        @app.middleware("http")
        async def tag(request: Any, call_next: Any) -> Any:
            response = await call_next(request)
            response.headers["x-seen"] = str(response.status_code)
            return response

        return app

    clients = pair(factory)
    for url, headers in MODEL_REQUESTS:
        same_answer(clients, "GET", url, headers=headers, compare_headers=("x-seen",))


def test_parameter_models_in_openapi_match_fastapi(pair: Any) -> None:
    ours, theirs = pair(parameter_model_app)
    document = ours.get("/openapi.json").json()
    assert document == theirs.get("/openapi.json").json()
    names = [(p["in"], p["name"], p["required"]) for p in document["paths"]["/items/{item_id}"]["get"]["parameters"]]
    assert names == [("path", "item_id", True), ("query", "limit", False), ("query", "offset", False),
                     ("query", "order_by", False), ("query", "tags", False), ("query", "search", False),
                     ("query", "other", False), ("header", "save-data", False),
                     ("header", "if-modified-since", False), ("header", "x-tag", False)]


@pytest.mark.parametrize(("annotation", "message"), [
    (Annotated[Paging, slipstream.Path()], "path parameter 'value': Paging is not supported in a path"),
    (Annotated[list[int], slipstream.Path()], "path parameter 'value': list[int] is not supported in a path"),
    (Annotated[dict, slipstream.Query()], "query parameter 'value': dict is not supported in the query string"),
    (Annotated[list[Paging], slipstream.Query()],
     "query parameter 'value': list[test_defects_declarations.Paging] is not supported in the query string"),
    (Annotated[list[str], slipstream.Cookie()], "cookie parameter 'value': a list is not supported for this source"),
])
def test_unsupported_parameter_declarations_raise_when_declared(annotation: Any, message: str) -> None:
    app = slipstream.App()

    def handler(value: annotation) -> None:  # type: ignore[valid-type]
        return None

    with pytest.raises(TypeError) as raised:
        app.get("/things/{value}")(handler)
    assert str(raised.value).startswith(message)


# ---- item 19: Form() and File() parameters in /openapi.json ----

class Login(BaseModel):
    username: str
    password: str = Field(min_length=3)


def form_openapi_app(fw: Any) -> Any:
    app = fw.FastAPI(title="forms") if fw is fastapi else fw.App(title="forms")

    @app.post("/login")
    def login(username: Annotated[str, fw.Form()], password: Annotated[str, fw.Form(min_length=3)],
              remember: bool = fw.Form(False)) -> str:
        return username

    @app.post("/upload")
    async def upload(file: fw.UploadFile, note: Annotated[str | None, fw.Form(alias="Note")] = None,
                     raw: Annotated[bytes | None, fw.File(description="raw bytes")] = None,
                     many: list[fw.UploadFile] = fw.File(default=[])) -> str:  # noqa: B008 - FastAPI style
        return file.filename or ""

    @app.post("/model")
    def model(data: Annotated[Login, fw.Form()]) -> Login:
        return data

    def token(token: Annotated[str, fw.Form()]) -> str:
        return token

    @app.post("/dependency")
    def dependency(t: Annotated[str, fw.Depends(token)], q: int = 0) -> str:
        return t

    @app.post("/bytes")
    def only_bytes(data: Annotated[bytes, fw.File()]) -> int:
        return len(data)

    return app


def test_form_and_file_parameters_in_openapi_match_fastapi(pair: Any) -> None:
    ours, theirs = pair(form_openapi_app)
    document = ours.get("/openapi.json").json()
    assert document == theirs.get("/openapi.json").json()
    paths = document["paths"]
    assert paths["/login"]["post"]["requestBody"] == {
        "content": {"application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/Body_login_login_post"}}},
        "required": True}
    assert list(paths["/upload"]["post"]["requestBody"]["content"]) == ["multipart/form-data"]
    assert list(paths["/model"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]) \
        == ["$ref"]
    for path in ("/login", "/upload", "/model", "/dependency", "/bytes"):
        assert "422" in paths[path]["post"]["responses"], path
    assert document["components"]["schemas"]["Body_login_login_post"]["required"] == ["username", "password"]


# ---- item 18: HTTP middleware runs for /openapi.json and the docs pages ----

def middleware_docs_app(fw: Any) -> Any:
    app = fw.FastAPI(title="mw") if fw is fastapi else fw.App(title="mw")

    @app.get("/ping")
    def ping() -> str:
        return "pong"

    @app.middleware("http")
    async def stamp(request: Any, call_next: Any) -> Any:
        if request.url.path == "/redoc" and request.headers.get("x-block"):
            return fw.responses.JSONResponse({"blocked": request.url.path}, status_code=403)
        response = await call_next(request)
        response.headers["x-middleware"] = request.url.path
        return response

    return app


@pytest.mark.parametrize("url", ["/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect", "/ping"])
def test_http_middleware_runs_for_the_document_and_docs_pages(pair: Any, url: str) -> None:
    ours, theirs = pair(middleware_docs_app)
    a, b = ours.get(url), theirs.get(url)
    assert (a.status_code, a.headers.get("x-middleware"), a.headers["content-type"]) == \
        (b.status_code, b.headers.get("x-middleware"), b.headers["content-type"])
    assert (a.status_code, a.headers.get("x-middleware")) == (200, url)
    if url == "/openapi.json":
        assert a.json() == b.json()


def test_http_middleware_may_answer_for_a_docs_page(pair: Any) -> None:
    clients = pair(middleware_docs_app)
    r = same_answer(clients, "GET", "/redoc", headers={"x-block": "1"})
    assert (r.status_code, r.json()) == (403, {"blocked": "/redoc"})
