"""Parameters whose type the C++ validator does not model are validated by pydantic (slipstream/_fallback.py):
same answers as FastAPI for the constructs of issue 30 item 12 (sets are modelled in C++, the others fall back), the route table says which routes fall back and
why, and their errors join the C++ validator's in one 422 in FastAPI's order."""

import datetime as dt
import enum
import json
import logging
from decimal import Decimal
from typing import Annotated, Any, Literal

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, condecimal, field_validator


class Tags(BaseModel):
    tags: set[str]


class Level(enum.IntEnum):
    low = 1
    high = 2


class Span(BaseModel):
    d: dt.timedelta


class Blob(BaseModel):
    model_config = ConfigDict(val_json_bytes="base64")
    b: bytes


class Price(BaseModel):
    x: condecimal(gt=0)  # type: ignore[valid-type]


class Checked(BaseModel):
    name: str
    n: int

    @field_validator("name")
    @classmethod
    def no_spaces(cls, value: str) -> str:
        if " " in value:
            raise ValueError("no spaces")
        return value


class Plain(BaseModel):
    name: str = Field(max_length=5)
    n: int = 0


def _even(value: int) -> int:
    if value % 2:
        raise ValueError("odd")
    return value


def build(fw: Any) -> Any:
    app = fw.FastAPI() if hasattr(fw, "FastAPI") else fw.App()

    @app.post("/set")
    def set_route(m: Tags) -> Any:
        return {"tags": sorted(m.tags)}

    @app.post("/timedelta")
    def timedelta_route(m: Span) -> Any:
        return {"seconds": m.d.total_seconds()}

    @app.post("/finite")
    def finite_route(x: float = fw.Body(allow_inf_nan=False, embed=True)) -> Any:
        return {"x": x}

    @app.get("/finite-query")
    def finite_query_route(x: Annotated[float, fw.Query(allow_inf_nan=False, lt=10)],
                           y: float | None = None) -> Any:
        return {"x": x, "y": str(y)}

    @app.post("/base64")
    def base64_route(m: Blob) -> Any:
        return {"b": m.b.decode("latin-1")}

    @app.post("/decimal")
    def decimal_route(m: Price) -> Any:
        return {"x": str(m.x)}

    @app.post("/checked")
    def checked_route(m: Checked, limit: int = 10) -> Any:
        return {"name": m.name, "limit": limit}

    @app.post("/two")
    def two_route(a: Span, b: Price, p: Plain) -> Any:
        return {"a": a.d.total_seconds(), "b": str(b.x), "p": p.name}

    @app.get("/even")
    def even_route(q: Annotated[int, AfterValidator(_even)], n: int = 0,
                   qs: Annotated[list[int], AfterValidator(sorted), fw.Query()] = []) -> Any:  # noqa: B006
        return {"q": q, "n": n, "qs": qs}

    @app.post("/plain")
    def plain_route(p: Plain) -> Any:
        return {"name": p.name}

    @app.get("/lists")
    def lists_route(levels: Annotated[list[Level], fw.Query()] = [],  # noqa: B006 - FastAPI style
                    pos: Annotated[list[Annotated[int, Field(gt=0)]], fw.Query()] = [],  # noqa: B006
                    lit: Literal[1, 2] = 1) -> Any:
        return {"levels": levels, "pos": pos, "lit": lit}

    return app


@pytest.fixture(scope="module")
def clients() -> Any:
    ours = slipstream.TestClient(build(slipstream), raise_server_exceptions=False)
    theirs = FastAPIClient(build(fastapi), raise_server_exceptions=False)
    yield ours, theirs
    ours.close()
    theirs.close()


CASES = [
    # Item 12: valid input pydantic accepts.
    ("post", "/set", {"tags": ["a", "a", "b"]}, 200),
    ("post", "/set", {"tags": ["a", 1]}, 422),
    ("post", "/set", {"tags": "a"}, 422),
    ("post", "/set", {"tags": None}, 422),
    ("post", "/timedelta", {"d": 90.5}, 200),
    ("post", "/timedelta", {"d": 3}, 200),
    ("post", "/timedelta", {"d": "PT1M"}, 200),
    ("post", "/timedelta", {"d": "soon"}, 422),
    # Item 12: invalid input pydantic refuses.
    ("post", "/finite", {"x": "inf"}, 422),
    ("post", "/finite", {"x": "-Infinity"}, 422),
    ("post", "/finite", {"x": "nan"}, 422),
    ("post", "/finite", {"x": 1.5}, 200),
    ("get", "/finite-query?x=inf", None, 422),
    ("get", "/finite-query?x=-Infinity&y=nan", None, 422),
    ("get", "/finite-query?x=2.5&y=inf", None, 200),
    ("post", "/base64", {"b": "aGVsbG8="}, 200),
    ("post", "/base64", {"b": "!!"}, 422),
    ("post", "/decimal", {"x": -1.0}, 422),
    ("post", "/decimal", {"x": "-1"}, 422),
    ("post", "/decimal", {"x": 0}, 422),
    ("post", "/decimal", {"x": "2.50"}, 200),
    # Validators: the C++ validator's errors and pydantic's in one 422.
    ("post", "/checked", {"name": "a b", "n": "x"}, 422),
    ("post", "/checked", {"name": "ab", "n": "x"}, 422),
    ("post", "/checked?limit=z", {"name": "a b", "n": 1}, 422),
    ("post", "/checked?limit=z", {"name": "ab", "n": 1}, 422),
    ("post", "/checked?limit=3", {"name": "ab", "n": "2"}, 200),
    ("post", "/two", {"a": {"d": "x"}, "b": {"x": -1}, "p": {"name": "toolong"}}, 422),
    ("post", "/two", {"a": {"d": 1}, "b": {"x": -1}, "p": {"name": "ok"}}, 422),
    ("post", "/two", {"a": {"d": 1}, "b": {"x": 1}, "p": {"name": "ok"}}, 200),
    ("get", "/even?q=3&n=x", None, 422),
    ("get", "/even?q=3&n=1", None, 422),
    ("get", "/even?q=4&n=1&qs=3&qs=1", None, 200),
    ("get", "/even?q=4&qs=3&qs=y", None, 422),
    ("get", "/even?n=1", None, 422),
    ("post", "/plain", {"name": "toolong"}, 422),
    # Parameters: every item of a list is validated; a Literal of ints does not read "1".
    ("get", "/lists?levels=low&levels=3&levels=1", None, 422),
    ("get", "/lists?pos=0&pos=1.5&pos=2", None, 422),
    ("get", "/lists?pos=1&pos=2&levels=2", None, 200),
    ("get", "/lists?lit=1", None, 422),
    ("get", "/lists?lit=x", None, 422),
]


@pytest.mark.parametrize(("method", "url", "body", "status"), CASES, ids=[f"{c[1]} {c[2]}" for c in CASES])
def test_same_answer_as_fastapi(clients: Any, method: str, url: str, body: Any, status: int) -> None:
    ours, theirs = clients
    kwargs = {} if body is None else {"content": json.dumps(body), "headers": {"content-type": "application/json"}}
    expected = theirs.request(method, url, **kwargs)
    got = ours.request(method, url, **kwargs)
    assert expected.status_code == status
    assert (got.status_code, got.json()) == (expected.status_code, expected.json())


def test_item12_answers_exactly() -> None:
    """The five divergences of issue 30 item 12, spelled out."""
    with slipstream.TestClient(build(slipstream)) as client:
        assert client.post("/set", json={"tags": ["a", "a", "b"]}).json() == {"tags": ["a", "b"]}
        assert client.post("/timedelta", json={"d": 90.5}).json() == {"seconds": 90.5}
        assert client.post("/finite", json={"x": "inf"}).json() == {"detail": [
            {"type": "finite_number", "loc": ["body", "x"], "msg": "Input should be a finite number", "input": "inf"}]}
        assert client.post("/base64", json={"b": "aGVsbG8="}).json() == {"b": "hello"}
        assert client.post("/decimal", json={"x": -1.0}).json() == {"detail": [
            {"type": "greater_than", "loc": ["body", "x"], "msg": "Input should be greater than 0", "input": -1.0,
             "ctx": {"gt": 0}}]}


def test_route_table_names_what_falls_back() -> None:
    app = build(slipstream)
    table = {(r.path, *r.methods): r.validation_fallback for r in app.routes}
    assert table == {
        ("/set", "POST"): (),  # the C++ validator models sets: de-duplicated by pydantic, named set_type
        ("/timedelta", "POST"): (("body m", "timedelta"),),
        ("/finite", "POST"): (),  # x-slipstream-finite: the C++ validator refuses "inf" and "nan" itself
        ("/finite-query", "GET"): (),
        ("/base64", "POST"): (("body m", "config val_json_bytes='base64'"),),
        ("/decimal", "POST"): (("body m", "Decimal gt"),),
        ("/checked", "POST"): (("body m", "function-after"),),
        ("/two", "POST"): (("body a", "timedelta"), ("body b", "Decimal gt")),
        ("/even", "GET"): (("query q", "function-after"), ("query qs", "function-after")),
        ("/plain", "POST"): (),
        ("/lists", "GET"): (("query lit", "Literal of non-str values"),),
    }


def test_startup_log_lists_the_routes_that_fall_back(caplog: Any) -> None:
    app = build(slipstream)
    with caplog.at_level(logging.INFO, logger="slipstream"):
        app.log_validation_fallback()
    lines = [r.getMessage() for r in caplog.records if r.name == "slipstream"]
    assert "POST /two: validated by pydantic in Python: body a (timedelta); body b (Decimal gt)" in lines
    assert "GET /lists: validated by pydantic in Python: query lit (Literal of non-str values)" in lines
    assert not any(line.startswith(("POST /plain:", "POST /set:")) for line in lines)
    assert len(lines) == 7


def test_plain_routes_do_not_go_through_python_on_errors() -> None:
    """No fallback, no forwarding: the C++ validator answers invalid input itself."""
    from slipstream.app import ExceptionHandlers, NativeRoute

    app = build(slipstream)
    by_path = {r.path: r for r in app.routes}
    plain = NativeRoute(by_path["/plain"], ExceptionHandlers())
    assert (plain.fallback, plain.forward_errors) == (None, False)
    checked = NativeRoute(by_path["/checked"], ExceptionHandlers())
    assert checked.forward_errors is True
    assert checked.fallback.describe() == "body m: function-after"


def test_fallback_is_decided_per_construct() -> None:
    from slipstream import _fallback

    assert _fallback.reason(int) is None
    assert _fallback.reason(Plain) is None
    assert _fallback.reason(list[Plain]) is None
    assert _fallback.reason(dict[str, list[int]]) is None
    assert _fallback.reason(Decimal) is None
    assert _fallback.reason(Annotated[str, Field(pattern="^a")]) is None
    assert _fallback.reason(float, {"allow_inf_nan": False}) is None
    assert _fallback.reason(Decimal, {"allow_inf_nan": False}) == "Decimal allow_inf_nan"
    assert _fallback.reason(Annotated[int, Field(strict=True)]) == "strict"
    assert _fallback.reason(dict[int, str]) == "dict with non-str keys"
    assert _fallback.reason(tuple[int, str]) == "tuple of fixed length"
    assert _fallback.reason(tuple[int, ...]) is None
    assert _fallback.reason(frozenset[int]) is None
    assert _fallback.reason(Annotated[set[int], Field(min_length=1)]) == "set min_length"
    assert _fallback.reason(Decimal, {"max_digits": 3}) == "Decimal max_digits"


def build_handled(fw: Any, *, handler: bool = False, middleware: bool = False) -> Any:
    """A route with a dependency and one whose only invalid parameter is pydantic's, in an app with a
    RequestValidationError handler or HTTP middleware: pydantic's 422 goes through them, as in FastAPI."""
    app = fw.FastAPI() if hasattr(fw, "FastAPI") else fw.App()
    if handler:
        exceptions = __import__(f"{fw.__name__}.exceptions", fromlist=["RequestValidationError"])
        responses = __import__(f"{fw.__name__}.responses", fromlist=["JSONResponse"])

        @app.exception_handler(exceptions.RequestValidationError)
        async def on_invalid(request: Any, exc: Any) -> Any:
            return responses.JSONResponse({"mine": exc.errors(), "body": exc.body}, status_code=418)

    if middleware:
        @app.middleware("http")
        async def mark(request: Any, call_next: Any) -> Any:
            response = await call_next(request)
            response.headers["x-mw"] = "1"
            return response

    def limit_dep(limit: int = 1) -> int:
        if limit == 99:
            raise fw.HTTPException(401, "no")
        return limit

    @app.post("/dep")
    def dep_route(s: Span, limit: int = fw.Depends(limit_dep)) -> Any:
        return {"s": s.d.total_seconds(), "limit": limit}

    @app.post("/two")
    def two_route(a: Span, q: int = 0) -> Any:
        return {"a": a.d.total_seconds(), "q": q}

    return app


HANDLED = [("/dep", {"d": "x"}), ("/dep?limit=z", {"d": "x"}), ("/dep?limit=z", {"d": 1}), ("/dep?limit=99", {"d": "x"}),
           ("/dep?limit=2", {"d": 1}), ("/two?q=z", {"d": "x"}), ("/two", {"d": "x"}), ("/two", None), ("/two", "{bad")]


@pytest.mark.parametrize("setup", [{}, {"handler": True}, {"middleware": True}], ids=["plain", "handler", "middleware"])
def test_pydantic_errors_take_fastapis_path(setup: dict[str, bool]) -> None:
    ours = slipstream.TestClient(build_handled(slipstream, **setup), raise_server_exceptions=False)
    theirs = FastAPIClient(build_handled(fastapi, **setup), raise_server_exceptions=False)
    try:
        for url, body in HANDLED:
            content = b"" if body is None else body if isinstance(body, str) else json.dumps(body)
            headers = {"content-type": "application/json"}
            expected = theirs.post(url, content=content, headers=headers)
            got = ours.post(url, content=content, headers=headers)
            assert (got.status_code, got.json(), got.headers.get("x-mw")) == (
                expected.status_code, expected.json(), expected.headers.get("x-mw")), (url, body)
    finally:
        ours.close()
        theirs.close()
