"""App factories for the differential suite: each takes the framework module (fastapi or slipstream) and builds
the same app, written once against FastAPI's API. FACTORIES maps a name to its factory; a factory whose
feature slipstream does not have yet is left out (see FEATURES)."""


import dataclasses
import datetime as dt
import enum
import importlib
import importlib.util
import uuid
from collections.abc import Callable
from decimal import Decimal
from types import ModuleType
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import TypedDict

from .diff_apps_numbers import build_numbers
from .diff_apps_security import build_security, build_security_middleware, build_security_optional


def sub(fw: ModuleType, name: str) -> ModuleType:
    """fw.responses, fw.exceptions, ...: the same submodule names in both packages."""
    return importlib.import_module(f"{fw.__name__}.{name}")


def new_app(fw: ModuleType, **kwargs: Any) -> Any:
    return fw.FastAPI(**kwargs) if hasattr(fw, "FastAPI") else fw.App(**kwargs)


class Color(str, enum.Enum):
    red = "red"
    blue = "blue"


class Level(enum.IntEnum):
    low = 1
    high = 2


class Tag(BaseModel):
    label: str = Field(min_length=2)


class Item(BaseModel):
    name: str = Field(max_length=10)
    price: float = Field(gt=0)
    count: int = 1
    tags: list[Tag] = []
    color: Color = Color.red


class Everything(BaseModel):
    """One field per scalar kind pydantic converts in lax mode."""

    i: int = 0
    f: float = 0.0
    b: bool = False
    s: str = ""
    lvl: Level = Level.low
    mode: Literal["a", "b"] = "a"
    one: Literal[1, 2] = 1
    opt: int | None = None
    union: int | str = 0
    nums: list[float] = []
    scores: dict[str, int] = {}
    pair: tuple[int, str] = (0, "")
    when: dt.datetime | None = None
    day: dt.date | None = None
    uid: uuid.UUID | None = None
    amount: Decimal = Decimal(0)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


class Bounded(BaseModel):
    small: Annotated[list[int], Field(min_length=2, max_length=3)] = [0, 0]
    ratio: float = Field(default=0.5, ge=0, le=1, multiple_of=0.25)
    big: float = Field(default=200, gt=100.5, lt=1e20)
    code: str = Field(default="ab", pattern="^[a-z]+$", min_length=2, max_length=4)
    even: int = Field(default=2, multiple_of=2)


class Checked(BaseModel):
    code: str

    @field_validator("code")
    @classmethod
    def upper(cls, v: str) -> str:
        if v != v.upper():
            raise ValueError("must be upper case")
        return v + "!"


@dataclasses.dataclass
class Pair:
    a: int
    b: str = "x"


class Shape(TypedDict):
    sides: int
    name: str


class Node(BaseModel):
    name: str
    children: list["Node"] = []


class UserIn(BaseModel):
    name: str
    password: str


class UserOut(BaseModel):
    name: str


def build_params(fw: ModuleType) -> Any:
    app = new_app(fw)
    Query, Path, Header, Cookie = fw.Query, fw.Path, fw.Header, fw.Cookie

    @app.get("/path/{item_id}")
    def path_int(item_id: Annotated[int, Path(ge=1, le=1000)]):
        return {"item_id": item_id}

    @app.get("/path-float/{x}")
    def path_float(x: float):
        return {"x": x}

    @app.get("/path-uuid/{u}")
    def path_uuid(u: uuid.UUID):
        return {"u": u}

    @app.get("/path-enum/{c}")
    def path_enum(c: Color):
        return {"c": c}

    @app.get("/path-bool/{flag}")
    def path_bool(flag: bool):
        return {"flag": flag}

    @app.get("/path-str/{name}")
    def path_str(name: Annotated[str, Path(min_length=3)]):
        return {"name": name}

    @app.get("/query")
    def query(
        n: Annotated[int, Query(gt=0, lt=100)] = 1,
        f: Annotated[float, Query(ge=0.0, le=1.5)] = 0.5,
        ratio: Annotated[float, Query(gt=0)] = 1.0,
        s: Annotated[str, Query(min_length=2, max_length=5, pattern="^[a-z]+$")] = "ab",
        flag: bool = False,
        c: Color = Color.red,
        lvl: Level = Level.low,
        mode: Literal["and", "or"] = "and",
        opt: int | None = None,
        day: dt.date | None = None,
        when: dt.datetime | None = None,
        amount: Decimal | None = None,
    ):
        return {"n": n, "f": f, "ratio": ratio, "s": s, "flag": flag, "c": c, "lvl": lvl, "mode": mode,
                "opt": opt, "day": day, "when": when, "amount": amount}

    @app.get("/required")
    def required(q: str, n: int):
        return {"q": q, "n": n}

    @app.get("/lists")
    def lists(
        ids: Annotated[list[int], Query(max_length=3)] = [],  # noqa: B006 - FastAPI style
        tags: Annotated[list[str] | None, Query()] = None,
        floats: Annotated[list[float], Query(min_length=2)] = [0.0, 0.0],  # noqa: B006
    ):
        return {"ids": ids, "tags": tags, "floats": floats}

    @app.get("/alias")
    def alias(item_query: Annotated[str, Query(alias="item-query")] = "none"):
        return {"item_query": item_query}

    @app.get("/headers")
    def headers(
        x_token: Annotated[int, Header()],
        user_agent: Annotated[str | None, Header()] = None,
        x_tags: Annotated[list[str], Header()] = [],  # noqa: B006
        strange_header: Annotated[str, Header(convert_underscores=False)] = "none",
        x_limit: Annotated[int, Header(gt=0)] = 1,
    ):
        return {"x_token": x_token, "x_tags": x_tags, "strange_header": strange_header, "x_limit": x_limit}

    @app.get("/cookies")
    def cookies(session: Annotated[str, Cookie(min_length=3)] = "abc", visits: Annotated[int, Cookie()] = 0):
        return {"session": session, "visits": visits}

    @app.get("/all/{pid}")
    def everything(pid: int, q: int, x_n: Annotated[int, Header()], c: Annotated[int, Cookie()]):
        return {"pid": pid, "q": q, "x_n": x_n, "c": c}

    return app


def build_body(fw: ModuleType) -> Any:
    app = new_app(fw)
    Body = fw.Body

    @app.post("/items", status_code=201)
    def create(item: Item):
        return item

    @app.post("/everything")
    def everything(e: Everything):
        return e

    @app.post("/strict")
    def strict(s: Strict):
        return s

    @app.post("/bounded")
    def bounded(b: Bounded):
        return b

    @app.put("/items/{item_id}")
    def update(item_id: int, item: Item, note: Annotated[str, Body(max_length=5)]):
        return {"item_id": item_id, "item": item, "note": note}

    @app.post("/embed")
    def embed(item: Annotated[Item, Body(embed=True)]):
        return item

    @app.post("/scalar")
    def scalar(n: Annotated[int, Body()], f: Annotated[float, Body()] = 1.0):
        return {"n": n, "f": f}

    @app.post("/optional")
    def optional(item: Item | None = None):
        return {"item": item}

    @app.post("/list")
    def items_list(items: list[Item]):
        return items

    @app.post("/dict")
    def mapping(values: dict[str, float]):
        return values

    @app.post("/intkeys")
    def intkeys(values: dict[int, str]):
        return values

    @app.post("/pair")
    def pair(p: Pair):
        return p

    @app.post("/shape")
    def shape(s: Shape, pairs: list[Pair] = Body(default_factory=list)):  # noqa: B008 - FastAPI style
        return {"shape": s, "pairs": pairs}

    @app.post("/checked")
    def checked(c: Checked):
        return c

    @app.post("/tree")
    def tree(node: Node):
        return node

    return app


def build_responses(fw: ModuleType) -> Any:
    app = new_app(fw)
    responses = sub(fw, "responses")

    @app.get("/created", status_code=201)
    def created():
        return {"ok": True}

    @app.get("/nothing")
    def nothing():
        return None

    @app.delete("/gone", status_code=204)
    def gone():
        return None

    @app.post("/users", response_model=UserOut)
    def user(u: UserIn):
        return u

    @app.get("/users", response_model=list[UserOut])
    def users():
        return [{"name": "a", "password": "x"}, UserIn(name="b", password="y")]

    @app.get("/declared")
    def declared() -> UserOut:
        return UserIn(name="c", password="z")  # type: ignore[return-value]

    @app.get("/bad-response", response_model=UserOut)
    def bad_response():
        return {"nom": 1}

    @app.get("/json")
    def json_response():
        return responses.JSONResponse({"a": [1, 2]}, status_code=202, headers={"x-extra": "1"})

    @app.get("/text")
    def text():
        return responses.PlainTextResponse("hello")

    @app.get("/html")
    def html():
        return responses.HTMLResponse("<b>hi</b>")

    @app.get("/redirect")
    def redirect():
        return responses.RedirectResponse("/text")

    @app.get("/redirect-301")
    def redirect_301():
        return responses.RedirectResponse("https://example.com/x?y=1", status_code=301)

    @app.get("/raw")
    def raw():
        return responses.Response(content=b"raw bytes", media_type="application/octet-stream")

    @app.get("/cookie")
    def cookie():
        r = responses.JSONResponse({"ok": True})
        r.set_cookie("session", "abc", max_age=60, httponly=True)
        return r

    @app.get("/values/{kind}")
    def values(kind: str):
        table = {
            "scalars": {"s": "é\n\"", "i": 2**70, "f": 1e16, "g": 0.1, "b": True, "n": None, "neg": -0.0},
            "special": [uuid.UUID(int=1), dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
                        dt.date(2024, 1, 2), dt.time(1, 2), dt.timedelta(seconds=90), Decimal("1.10"),
                        Color.blue, Level.high, frozenset({"x"})],
            "models": [Item(name="a", price=1.0), Pair(1), Node(name="r", children=[Node(name="c")])],
            "text": "plain",
            "tuple": (1, "a", None),
        }
        return table[kind]

    @app.get("/http-error/{code}")
    def http_error(code: int):
        raise fw.HTTPException(status_code=code, detail={"code": code})

    @app.get("/http-error-headers")
    def http_error_headers():
        raise fw.HTTPException(status_code=401, detail="no", headers={"WWW-Authenticate": "Bearer"})

    @app.get("/http-error-default")
    def http_error_default():
        raise fw.HTTPException(status_code=403)

    @app.get("/crash")
    def crash():
        raise ValueError("boom")

    return app


class Teapot(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def build_handlers(fw: ModuleType) -> Any:
    """Custom exception handlers, including one for RequestValidationError (FastAPI's documented pattern)."""
    app = new_app(fw)
    responses = sub(fw, "responses")
    exceptions = sub(fw, "exceptions")

    @app.exception_handler(Teapot)
    def teapot(request, exc: Teapot):
        return responses.JSONResponse({"teapot": exc.name}, status_code=418)

    @app.exception_handler(exceptions.RequestValidationError)
    def invalid(request, exc):
        return responses.JSONResponse({"invalid": [e["loc"] for e in exc.errors()]}, status_code=400)

    @app.get("/teapot/{name}")
    def raise_teapot(name: str):
        raise Teapot(name)

    @app.get("/validated")
    def validated(n: int):
        return {"n": n}

    @app.post("/validated-body")
    def validated_body(item: Item):
        return item

    @app.post("/python-validated")
    def python_validated(c: Checked):
        return c

    return app


def build_rve(fw: ModuleType) -> Any:
    """A RequestValidationError handler that shows everything FastAPI hands it: errors() and body."""
    app = new_app(fw)
    responses = sub(fw, "responses")
    exceptions = sub(fw, "exceptions")
    Body = fw.Body

    @app.exception_handler(exceptions.RequestValidationError)
    async def full(request, exc):
        errors = [{**e, "loc": list(e["loc"])} for e in exc.errors()]
        return responses.JSONResponse({"errors": errors, "body": exc.body, "tuple": type(exc.errors()[0]["loc"])
                                       is tuple}, status_code=422)

    @app.get("/q/{pid}")
    def q(pid: uuid.UUID, n: int, when: dt.datetime | None = None):
        return {"pid": pid, "n": n, "when": when}

    @app.post("/item")
    def item(item: Item, q: int = 0):
        return item

    @app.post("/union")
    def union(x: Annotated[int | list[int] | Item | None, Body(embed=True)]):
        return {"x": x}

    return app


def build_http_handler(fw: ModuleType) -> Any:
    """An app that overrides the HTTPException handler."""
    app = new_app(fw)
    responses = sub(fw, "responses")

    @app.exception_handler(fw.HTTPException)
    def http_handler(request, exc):
        return responses.PlainTextResponse(f"custom {exc.status_code}: {exc.detail}", status_code=exc.status_code)

    @app.get("/fail")
    def fail():
        raise fw.HTTPException(status_code=409, detail="conflict")

    return app


def build_routing(fw: ModuleType) -> Any:
    app = new_app(fw)
    router = fw.APIRouter(prefix="/v1", tags=["v1"])

    @router.get("/things/{tid}")
    def thing(tid: int):
        return {"tid": tid}

    @router.post("/things")
    def make_thing(item: Item):
        return item

    app.include_router(router)
    app.include_router(router, prefix="/api")

    @app.get("/items")
    def items():
        return ["a"]

    @app.api_route("/multi", methods=["GET", "POST"])
    def multi():
        return {"multi": True}

    return app


def build_dependencies(fw: ModuleType) -> Any:
    app = new_app(fw)
    Depends, Header, Query = fw.Depends, fw.Header, fw.Query
    events: list[str] = []

    def pagination(skip: int = 0, limit: Annotated[int, Query(le=50)] = 10):
        return {"skip": skip, "limit": limit}

    def token(x_token: Annotated[str, Header()]):
        if x_token != "secret":
            raise fw.HTTPException(status_code=401, detail="bad token")
        return x_token

    def user(t: Annotated[str, Depends(token)]):
        return {"user": "alice", "token": t}

    def resource():
        events.append("open")
        try:
            yield "r"
        finally:
            events.append("close")

    @app.get("/page")
    def page(p: Annotated[dict, Depends(pagination)]):
        return p

    @app.get("/me")
    def me(u: Annotated[dict, Depends(user)]):
        return u

    @app.get("/resource")
    def use_resource(r: Annotated[str, Depends(resource)]):
        events.append("handler")
        return {"r": r}

    @app.get("/events")
    def get_events():
        return list(events)

    @app.get("/secure")
    def secure(q: int, u: Annotated[dict, Depends(user)]):
        return {"q": q, **u}

    def audited(tag: Annotated[str, Query(max_length=3)] = "a"):
        return tag

    async def key_guard(x_key: Annotated[int, Header()]):
        if x_key != 7:
            raise fw.HTTPException(status_code=403, detail="bad key")
        return x_key

    def checked_user(u: Annotated[dict, Depends(user)], k: Annotated[int, Depends(key_guard)]):
        return {**u, "k": k}

    @app.get("/ordered")
    def ordered(n: int, a: Annotated[str, Depends(audited)], c: Annotated[dict, Depends(checked_user)]):
        return {"n": n, "a": a, **c}

    @app.get("/guarded", dependencies=[Depends(token)])
    def guarded():
        return {"ok": True}

    def real_value():
        return "real"

    def fake_value():
        return "fake"

    @app.get("/override")
    def override(v: Annotated[str, Depends(real_value)]):
        return {"v": v}

    app.dependency_overrides[real_value] = fake_value
    return app


def build_forms(fw: ModuleType) -> Any:
    app = new_app(fw)
    Form, File, UploadFile = fw.Form, fw.File, fw.UploadFile

    @app.post("/login")
    def login(username: Annotated[str, Form()], password: Annotated[str, Form(min_length=3)], n: Annotated[int, Form()] = 1):
        return {"username": username, "n": n}

    @app.post("/upload")
    def upload(file: Annotated[bytes, File()]):
        return {"size": len(file)}

    @app.post("/uploadfile")
    async def uploadfile(file: UploadFile, note: Annotated[str, Form()] = ""):
        data = await file.read()
        return {"filename": file.filename, "size": len(data), "type": file.content_type, "note": note}

    return app


def build_streaming(fw: ModuleType) -> Any:
    app = new_app(fw)
    responses = sub(fw, "responses")

    @app.get("/stream")
    def stream():
        def gen():
            for i in range(3):
                yield f"line {i}\n"

        return responses.StreamingResponse(gen(), media_type="text/plain")

    @app.get("/astream")
    async def astream():
        async def gen():
            for i in range(3):
                yield f"chunk {i};".encode()

        return responses.StreamingResponse(gen(), media_type="application/octet-stream")

    return app


def build_middleware(fw: ModuleType) -> Any:
    app = new_app(fw)

    @app.middleware("http")
    async def add_header(request, call_next):
        response = await call_next(request)
        response.headers["x-process"] = "done"
        return response

    @app.get("/mw")
    def mw():
        return {"ok": True}

    @app.get("/mw-validated")
    def mw_validated(n: int, day: dt.date | None = None):
        return {"n": n, "day": day}

    @app.post("/mw-item")
    def mw_item(item: Item):
        return item

    return app


def build_openapi(fw: ModuleType) -> Any:
    app = new_app(fw, title="Diff", version="1.2.3")
    Query, Path = fw.Query, fw.Path

    @app.get("/items/{item_id}", tags=["items"], summary="Read an item")
    def read_item(item_id: Annotated[int, Path(ge=1)], q: Annotated[str | None, Query(max_length=5)] = None):
        """Reads one item."""
        return {"item_id": item_id, "q": q}

    @app.post("/items", response_model=UserOut, status_code=201)
    def create_item(item: Item):
        return {"name": item.name}

    @app.put("/tree")
    def put_tree(node: Node, e: Everything):
        return node

    return app


FACTORIES: dict[str, Callable[[ModuleType], Any]] = {
    "params": build_params,
    "body": build_body,
    "responses": build_responses,
    "handlers": build_handlers,
    "rve": build_rve,
    "http_handler": build_http_handler,
    "routing": build_routing,
    "dependencies": build_dependencies,
    "forms": build_forms,
    "streaming": build_streaming,
    "middleware": build_middleware,
    "openapi": build_openapi,
    "numbers": build_numbers,
    "security": build_security,
    "security_optional": build_security_optional,
    "security_middleware": build_security_middleware,
}


def _available() -> dict[str, bool]:
    import slipstream

    app = slipstream.App()
    return {
        "dependencies": hasattr(slipstream, "Depends") and hasattr(app, "dependency_overrides"),
        # FastAPI's forms need python-multipart (the reference side of the comparison).
        "forms": all(hasattr(slipstream, n) for n in ("Form", "File", "UploadFile"))
        and importlib.util.find_spec("python_multipart") is not None,
        "streaming": hasattr(sub(slipstream, "responses"), "StreamingResponse"),
        "middleware": hasattr(app, "middleware"),
        "openapi": hasattr(app, "openapi"),
    }


# Which optional features slipstream has in this tree; their rows are collected only when present.
FEATURES = _available()
