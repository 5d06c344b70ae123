"""Integers beyond 64 bits, as pydantic 2.14 reads them (checked against it as a black box): exact Python ints in
bodies (flat, nested, in lists, negative), in query/path/header parameters and in responses; bounds compared
exactly; integral floats beyond int64 and more than 4300 digits refused with pydantic's errors."""

from typing import Annotated, Any

import pytest
import slipstream
from pydantic import BaseModel, Field

B = 123456789012345678901234567890
BIG = 10**30
SIZE = {"type": "int_parsing_size", "msg": "Unable to parse input string as an integer, exceeded maximum size"}


class Big(BaseModel):
    n: int
    bounded: Annotated[int, Field(ge=-BIG, le=BIG)] = 0
    tens: Annotated[int, Field(multiple_of=10)] = 0
    nested: dict[str, list[int]] = {}


def _app() -> Any:
    app = slipstream.App()

    @app.post("/model")
    def model(m: Big) -> Any:
        return {"m": m, "n_type": type(m.n).__name__, "n_plus_one": m.n + 1}

    @app.post("/any")
    def anything(body: Annotated[Any, slipstream.Body()]) -> Any:
        return {"body": body, "repr": repr(body)}

    @app.get("/q")
    def q(n: int, lo: Annotated[int, slipstream.Query(lt=10**20)] = 0,
          many: Annotated[list[int], slipstream.Query()] = []) -> Any:  # noqa: B006 - FastAPI style
        return {"n": n, "lo": lo, "many": many, "exact": n == B or n == -B}

    @app.get("/p/{n}")
    def p(n: int) -> Any:
        return {"n": n, "h": n}

    @app.get("/h")
    def h(x_n: Annotated[int, slipstream.Header()]) -> Any:
        return {"x_n": x_n}

    @app.get("/out")
    def out() -> Any:
        return {"big": 10**40, "neg": -(10**40), "edges": [2**63, 2**64, -(2**63) - 1]}

    return app


@pytest.fixture(scope="module")
def client() -> Any:
    with slipstream.TestClient(_app()) as c:
        yield c


def post_raw(client: Any, url: str, body: bytes) -> Any:
    return client.post(url, content=body, headers={"content-type": "application/json"})


def test_body_int_is_exact_and_a_python_int(client: Any) -> None:
    r = client.post("/model", json={"n": B, "nested": {"a": [B, -B, 1]}, "bounded": -BIG})
    assert r.status_code == 200
    assert r.content == (b'{"m":{"n":123456789012345678901234567890,"bounded":-1000000000000000000000000000000,'
                         b'"tens":0,"nested":{"a":[123456789012345678901234567890,-123456789012345678901234567890,1]}},'
                         b'"n_type":"int","n_plus_one":123456789012345678901234567891}')


def test_body_strings_of_big_ints_parse_like_pydantic(client: Any) -> None:
    r = client.post("/model", json={"n": f" -{B}_0 "})
    assert r.status_code == 200
    assert r.json()["m"]["n"] == -B * 10


@pytest.mark.parametrize(("field", "value", "error"), [
    ("bounded", BIG + 1, {"type": "less_than_equal", "msg": f"Input should be less than or equal to {BIG}",
                          "ctx": {"le": BIG}}),
    ("bounded", -BIG - 1, {"type": "greater_than_equal", "msg": f"Input should be greater than or equal to {-BIG}",
                           "ctx": {"ge": -BIG}}),
    ("tens", BIG + 5, {"type": "multiple_of", "msg": "Input should be a multiple of 10", "ctx": {"multiple_of": 10}}),
])
def test_body_bounds_compare_exactly(client: Any, field: str, value: int, error: dict[str, Any]) -> None:
    r = client.post("/model", json={"n": 1, field: value})
    assert r.status_code == 422
    assert r.json() == {"detail": [{"type": error["type"], "loc": ["body", field], "msg": error["msg"],
                                    "input": value, **({"ctx": error["ctx"]} if "ctx" in error else {})}]}


@pytest.mark.parametrize(("text", "shown"), [
    (b"1e30", 1e30), (b"-1e30", -1e30), (b"9.3e18", 9.3e18), (b"123456789012345678901234567890.0", 1.2345678901234568e29),
])
def test_integral_floats_beyond_int64_are_int_parsing_size(client: Any, text: bytes, shown: float) -> None:
    r = post_raw(client, "/model", b'{"n": ' + text + b"}")
    assert r.status_code == 422
    assert r.json() == {"detail": [{**SIZE, "loc": ["body", "n"], "input": shown}]}


def test_integral_floats_inside_int64_are_ints(client: Any) -> None:
    r = post_raw(client, "/model", b'{"n": 1e18}')
    assert r.status_code == 200
    assert r.json()["m"]["n"] == 10**18


def test_any_body_keeps_exact_ints(client: Any) -> None:
    r = client.post("/any", json=[B, -B, {"k": 2**200}, 1.5])
    assert r.status_code == 200
    assert r.json() == {"body": [B, -B, {"k": 2**200}, 1.5], "repr": repr([B, -B, {"k": 2**200}, 1.5])}


def test_python_digit_limit(client: Any) -> None:
    ok = "7" * 4300
    r = post_raw(client, "/any", f"[-{ok}]".encode())
    assert r.status_code == 200
    assert r.content.startswith(b'{"body":[-777')
    r = post_raw(client, "/any", f"[{ok}7]".encode())  # json.loads refuses it: FastAPI's 400
    assert (r.status_code, r.json()) == (400, {"detail": "There was an error parsing the body"})
    r = client.post("/model", json={"n": ok + "7"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "int_parsing_size"


def test_query_path_header_ints_are_exact(client: Any) -> None:
    r = client.get(f"/q?n=-{B}&many={B}&many=3")
    assert r.json() == {"n": -B, "lo": 0, "many": [B, 3], "exact": True}
    assert client.get(f"/p/{B}").content == b'{"n":123456789012345678901234567890,"h":123456789012345678901234567890}'
    assert client.get("/h", headers={"x-n": str(-B)}).json() == {"x_n": -B}


def test_query_bound_and_limits(client: Any) -> None:
    r = client.get(f"/q?n=1&lo={10**20}")
    assert r.status_code == 422
    assert r.json() == {"detail": [{"type": "less_than", "loc": ["query", "lo"], "msg": f"Input should be less than {10**20}",
                                    "input": str(10**20), "ctx": {"lt": 10**20}}]}
    r = client.get(f"/q?n={'7' * 4301}")
    assert r.json()["detail"][0]["type"] == "int_parsing_size"
    r = client.get("/q?n=1e30")
    assert r.json()["detail"][0]["type"] == "int_parsing"


def test_responses_print_exact_digits(client: Any) -> None:
    r = client.get("/out")
    assert r.content == (b'{"big":10000000000000000000000000000000000000000,'
                         b'"neg":-10000000000000000000000000000000000000000,'
                         b'"edges":[9223372036854775808,18446744073709551616,-9223372036854775809]}')
