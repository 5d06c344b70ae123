"""FastAPI vs Slipstream on one corpus: status, relevant headers and body bytes must be identical.

Each row is one request against one app of diff_apps.py; adding a case is adding a row. A row with `gap=`
names a known difference: it is a strict xfail (it fails the suite once the difference is gone, so that the
gap can be struck off). The session summary prints the match rate and every difference.
"""

from __future__ import annotations

from typing import Any

import pytest

from . import diff_apps
from .diff_support import Outcome, build_request, compare, record

JSON = {"content-type": "application/json"}

# Known gaps (each names the module that would close it): none in this file today; test_differential_parity.py
# lists the deliberate ones.


def row(app: str, method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    """One request. kwargs: json=, content=, headers=, cookies= (sent as a Cookie header), form=, files=."""
    detail = ""
    for key in ("json", "content", "form", "files", "headers", "cookies"):
        if key in kwargs:
            text = repr(kwargs[key])
            detail += f" {key}={text[:60]}"
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(app, method.upper(), url, gap, kwargs, id=f"{app} {method.upper()} {url}{detail}", marks=marks)


Item = {"name": "w", "price": 2.5}

CORE = [
    # path parameters
    row("params", "get", "/path/5"),
    row("params", "get", "/path/0"),
    row("params", "get", "/path/1001"),
    row("params", "get", "/path/abc"),
    row("params", "get", "/path/1.5"),
    row("params", "get", "/path/%20%207%20"),
    row("params", "get", "/path-float/2.5"),
    row("params", "get", "/path-float/inf"),
    row("params", "get", "/path-float/x"),
    row("params", "get", "/path-uuid/12345678-1234-5678-1234-567812345678"),
    row("params", "get", "/path-uuid/12345678123456781234567812345678"),
    row("params", "get", "/path-uuid/nope"),
    row("params", "get", "/path-enum/blue"),
    row("params", "get", "/path-enum/green"),
    row("params", "get", "/path-bool/yes"),
    row("params", "get", "/path-bool/maybe"),
    row("params", "get", "/path-str/ab"),
    row("params", "get", "/path-str/%C3%A9t%C3%A9"),
    # query parameters
    row("params", "get", "/query"),
    row("params", "get", "/query?n=5&f=1.25&s=abc&flag=on&c=blue&lvl=2&mode=or&opt=3&day=2024-01-02"),
    row("params", "get", "/query?n=0"),
    row("params", "get", "/query?n=100"),
    row("params", "get", "/query?n=abc"),
    row("params", "get", "/query?n=1.0"),
    row("params", "get", "/query?n=99999999999999999999999"),  # exact Python int, then lt=100
    row("params", "get", "/query?f=-0.5"),
    row("params", "get", "/query?f=2"),
    row("params", "get", "/query?ratio=0"),
    row("params", "get", "/query?ratio=-1e-7"),
    row("params", "get", "/query?s=a"),
    row("params", "get", "/query?s=abcdef"),
    row("params", "get", "/query?s=AB"),
    row("params", "get", "/query?flag=maybe"),
    row("params", "get", "/query?c=green"),
    row("params", "get", "/query?lvl=3"),
    row("params", "get", "/query?lvl=x"),
    row("params", "get", "/query?mode=xor"),
    row("params", "get", "/query?opt=x"),
    row("params", "get", "/query?day=2024-13-01"),
    row("params", "get", "/query?when=2024-01-02T03:04:05Z"),
    row("params", "get", "/query?when=yesterday"),
    row("params", "get", "/query?amount=1.50"),
    row("params", "get", "/query?amount=abc"),
    row("params", "get", "/query?n=0&f=9&s=A&flag=x&c=z&mode=q"),
    row("params", "get", "/required"),
    row("params", "get", "/required?q=x"),
    row("params", "get", "/required?q=x&n=2&n=3"),
    row("params", "get", "/required?q=&n=1"),
    row("params", "get", "/required?q=x&n="),
    row("params", "get", "/query?flag=&s="),
    row("params", "get", "/query?n=%2B5&f=1_0.5&opt=-0"),
    row("params", "get", "/required?q=a+b%20c&n=1"),
    row("params", "get", "/lists"),
    row("params", "get", "/lists?ids=1&ids=2&tags=a&tags=b&floats=1&floats=2.5"),
    row("params", "get", "/lists?ids=1&ids=x"),
    row("params", "get", "/lists?ids=1&ids=2&ids=3&ids=4"),
    row("params", "get", "/lists?ids=x&ids=2&ids=3&ids=4"),
    row("params", "get", "/lists?floats=1"),
    row("params", "get", "/lists?floats=x"),
    row("params", "get", "/alias?item-query=yes"),
    row("params", "get", "/alias?item_query=no"),
    # headers
    row("params", "get", "/headers"),
    row("params", "get", "/headers", headers={"X-Token": "12"}),
    row("params", "get", "/headers", headers={"x-token": "zz"}),
    row("params", "get", "/headers", headers={"x_token": "12"}),
    row("params", "get", "/headers", headers={"x-token": "1", "strange_header": "s", "x-tags": "a"}),
    row("params", "get", "/headers", headers={"x-token": "1", "x-limit": "0"}),
    # cookies
    row("params", "get", "/cookies"),
    row("params", "get", "/cookies", cookies={"session": "abcd", "visits": "3"}),
    row("params", "get", "/cookies", cookies={"session": "a", "visits": "x"}),
    row("params", "get", "/cookies", cookies={"session": '"quoted value"'}),
    # every source at once, in FastAPI's error order
    row("params", "get", "/all/x?q=y", headers={"x-n": "z"}, cookies={"c": "w"}),
    row("params", "get", "/all/1?q=2", headers={"x-n": "3"}, cookies={"c": "4"}),
    # JSON bodies
    row("body", "post", "/items", json=Item),
    row("body", "post", "/items", json={"name": "w", "price": 2, "tags": [{"label": "ab"}], "color": "blue"}),
    row("body", "post", "/items", json={}),
    row("body", "post", "/items", json={"name": "way too long name", "price": -1, "tags": [{"label": "a"}, {}]}),
    row("body", "post", "/items", json={"name": 5, "price": [1], "count": 1.5, "color": "pink"}),
    row("body", "post", "/items", json={"name": "w", "price": "2.5", "count": "3"}),
    row("body", "post", "/items", json={"name": "w", "price": "0"}),
    row("body", "post", "/items", json={"name": "w", "price": "abc", "count": "x"}),
    row("body", "post", "/items", json={"name": "w", "price": True, "count": False}),
    row("body", "post", "/items", json={"name": "w", "price": 1, "count": 2.0}),
    row("body", "post", "/items", json=[1, 2]),
    row("body", "post", "/items", json="text"),
    row("body", "post", "/items", json=None),
    row("body", "post", "/items", content=b"", headers=JSON),
    row("body", "post", "/items", content=b'{"name": "w",', headers=JSON),
    row("body", "post", "/items", content=b"[1, 2,]", headers=JSON),
    row("body", "post", "/items", content=b'{"a":1}garbage', headers=JSON),
    row("body", "post", "/items", content=b"  ", headers=JSON),
    row("body", "post", "/items", content=b'{"name":"w","price":1,"name":"z"}', headers=JSON),
    row("body", "post", "/items", content=b'\xef\xbb\xbf{"name":"w","price":1}', headers=JSON),
    row("body", "post", "/items", content=b'{"name": "\xff", "price": 1}', headers=JSON),
    row("body", "post", "/items", content=b"[" * 100 + b"]" * 100, headers=JSON),
    row("body", "post", "/items", content=b'{"name": "w", "price": 1}', headers={"content-type": "text/plain"}),
    row("body", "post", "/items", content=b'{"name": "w", "price": 1}'),
    row("body", "post", "/items", content=b'{"name": "w", "price": 1}',
        headers={"content-type": "application/vnd.api+json; charset=utf-8"}),
    row("body", "post", "/everything", json={}),
    row("body", "post", "/everything", json={"i": "7", "f": "1e3", "b": "yes", "lvl": "2", "opt": "4",
                                             "nums": ["1", 2, True], "scores": {"a": "1"}, "pair": ["1", "x"],
                                             "amount": "1.5", "union": "5", "day": "2024-01-02"}),
    row("body", "post", "/everything", json={"i": " 1_000 ", "f": " -2.5 ", "b": 1, "one": 2, "mode": "b"}),
    row("body", "post", "/everything", json={"one": 1.0}),
    row("body", "post", "/everything", json={"i": "1e3", "f": "x", "b": 2, "s": 1, "lvl": 3, "mode": "c"}),
    row("body", "post", "/everything", json={"b": 0.5, "opt": "x", "nums": ["a"], "scores": {"a": "b"}}),
    row("body", "post", "/everything", json={"nums": "x", "scores": [1], "pair": "ab"}),
    row("body", "post", "/everything", json={"i": [1], "s": None, "b": None, "f": {"a": 1}}),
    row("body", "post", "/everything", json={"amount": "abc", "lvl": "x", "opt": None}),
    row("body", "post", "/everything", json={"one": "1"}),
    row("body", "post", "/everything", json={"one": 3}),
    row("body", "post", "/everything", json={"b": "on", "i": False, "f": True}),
    row("body", "post", "/everything", json={"uid": "12345678-1234-5678-1234-567812345678", "when": "2024-01-02T03:04:05"}),
    row("body", "post", "/everything", json={"uid": "nope", "when": "soon", "day": "2024-02-30"}),
    row("body", "post", "/everything", json={"when": 1700000000}),
    row("body", "post", "/everything", json={"i": 2**70}),  # exact as a double
    row("body", "post", "/everything", json={"i": 10**25 + 1}),  # beyond 64 bits: exact
    row("body", "post", "/everything", json={"union": [1]}),
    row("body", "post", "/everything", json={"pair": [1, "a", 3]}),
    row("body", "post", "/strict", json={"a": 1}),
    row("body", "post", "/strict", json={"a": 1, "b": 2, "c": 3}),
    row("body", "post", "/strict", json={"a": "1", "b": 2}),
    row("body", "post", "/bounded", json={}),
    row("body", "post", "/bounded", json={"small": [1]}),
    row("body", "post", "/bounded", json={"small": [1, "x"]}),
    row("body", "post", "/bounded", json={"small": [1, 2, 3, 4]}),
    row("body", "post", "/bounded", json={"small": ["x", "y", 3, 4]}),
    row("body", "post", "/bounded", json={"ratio": 0.3}),
    row("body", "post", "/bounded", json={"ratio": 2}),
    row("body", "post", "/bounded", json={"ratio": "-1"}),
    row("body", "post", "/bounded", json={"big": 100.5}),
    row("body", "post", "/bounded", json={"big": 1e21}),
    row("body", "post", "/bounded", json={"code": "A"}),
    row("body", "post", "/bounded", json={"code": "abcde"}),
    row("body", "post", "/bounded", json={"even": 3}),
    row("body", "post", "/bounded", json={"even": "3"}),
    row("body", "put", "/items/3", json={"item": {"name": "w", "price": 1}, "note": "hi"}),
    row("body", "put", "/items/3", json={"item": {"name": "w"}, "note": "too long"}),
    row("body", "put", "/items/x", json={"name": "w", "price": 1}),
    row("body", "put", "/items/3", json=[]),
    row("body", "post", "/embed", json={"item": {"name": "w", "price": 1}}),
    row("body", "post", "/embed", json={"name": "w", "price": 1}),
    row("body", "post", "/scalar", json={"n": 1}),
    row("body", "post", "/scalar", json={"n": "2", "f": "3"}),
    row("body", "post", "/scalar", json={"n": "x"}),
    row("body", "post", "/scalar", json=5),
    row("body", "post", "/optional"),
    row("body", "post", "/optional", json=None),
    row("body", "post", "/optional", json=Item),
    row("body", "post", "/optional", json={"name": "w"}),
    row("body", "post", "/list", json=[Item, {"name": "v", "price": "3"}]),
    row("body", "post", "/list", json=[Item, {"price": 0}]),
    row("body", "post", "/list", json={"name": "w"}),
    row("body", "post", "/dict", json={"a": 1, "b": "2.5"}),
    row("body", "post", "/dict", json={"a": "x"}),
    row("body", "post", "/dict", json=[]),
    row("body", "post", "/intkeys", json={"1": "a"}),
    row("body", "post", "/intkeys", json={"x": "a"}),
    row("body", "post", "/pair", json={"a": 1}),
    row("body", "post", "/pair", json={"a": "2", "b": "y"}),
    row("body", "post", "/pair", json={"a": "x", "b": 2}),
    row("body", "post", "/pair", json=[1]),
    row("body", "post", "/shape", json={"s": 5}),
    row("body", "post", "/shape", json={"s": {"sides": 3, "name": "tri"}, "pairs": [{"a": 1, "b": "y"}]}),
    row("body", "post", "/shape", json={"s": {"sides": "4"}}),
    row("body", "post", "/checked", json={"code": "ABC"}),
    row("body", "post", "/checked", json={"code": "abc"}),
    row("body", "post", "/checked", json={"code": 1}),
    row("body", "post", "/tree", json={"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}),
    row("body", "post", "/tree", json={"name": "a", "children": [{"name": "b", "children": [{"nom": "c"}]}]}),
    # responses
    row("responses", "get", "/created"),
    row("responses", "get", "/nothing"),
    row("responses", "delete", "/gone"),
    row("responses", "post", "/users", json={"name": "a", "password": "p"}),
    row("responses", "get", "/users"),
    row("responses", "get", "/declared"),
    row("responses", "get", "/bad-response"),
    row("responses", "get", "/json"),
    row("responses", "get", "/text"),
    row("responses", "get", "/html"),
    row("responses", "get", "/redirect"),
    row("responses", "get", "/redirect-301"),
    row("responses", "get", "/raw"),
    row("responses", "get", "/cookie"),
    row("responses", "get", "/values/scalars"),
    row("responses", "get", "/values/special"),
    row("responses", "get", "/values/models"),
    row("responses", "get", "/values/text"),
    row("responses", "get", "/values/tuple"),
    row("responses", "get", "/http-error/404"),
    row("responses", "get", "/http-error/418"),
    row("responses", "get", "/http-error/304"),
    row("responses", "get", "/http-error/500"),
    row("responses", "get", "/http-error-headers"),
    row("responses", "get", "/http-error-default"),
    row("responses", "get", "/crash"),
    # exception handlers
    row("handlers", "get", "/teapot/earl"),
    row("handlers", "get", "/validated?n=1"),
    row("handlers", "get", "/validated?n=x"),
    row("handlers", "post", "/validated-body", json={"name": "w"}),
    row("handlers", "post", "/python-validated", json={"code": "abc"}),
    row("http_handler", "get", "/fail"),
    # C++ validation failures handed to a RequestValidationError handler: errors() and body as FastAPI's
    row("rve", "get", "/q/12345678-1234-5678-1234-567812345678?n=1&when=2024-01-02"),
    row("rve", "get", "/q/nope?n=x&when=soon"),
    row("rve", "get", "/q/1234?when=1700000000"),
    row("rve", "post", "/item", json={"name": 5}),
    row("rve", "post", "/item?q=x", json=[1]),
    row("rve", "post", "/item?q=x", content=b'{"name":', headers=JSON),
    row("rve", "post", "/item", content=b'{"name": "\xff"}', headers=JSON),
    row("rve", "post", "/item?q=x"),
    row("rve", "post", "/union", json={"x": 1.5}),
    row("rve", "post", "/union", json={"x": ["a"]}),
    row("rve", "post", "/union", json={"x": {"name": 1}}),
    row("rve", "post", "/union", json={"x": None}),
    # parsed scalar types (UUID, datetime, date, time, Decimal) validated in C++ with pydantic's errors
    row("params", "get", "/query?day=2024-02-30&when=2024-13-01T00:00:00&amount=x"),
    row("params", "get", "/query?day=1700000000&when=1700000000.5&amount=%201_000.5%20"),
    row("params", "get", "/query?day=2024-01-02T00:00:00Z&when=2024-01-02%2003:04&amount=NaN"),
    row("params", "get", "/query?day=2024-01-02T03:04:05&when=2024-01-02T25:00:00&amount=1e3"),
    row("params", "get", "/query?when=0000-01-01T00:00:00"),
    row("params", "get", "/query?day=x&when=253402300800000"),
    row("params", "get", "/path-uuid/%7B12345678-1234-5678-1234-567812345678%7D"),
    row("params", "get", "/path-uuid/urn:uuid:12345678-1234-5678-1234-56781234567"),
    row("params", "get", "/path-uuid/1234-5678"),
    row("body", "post", "/everything", json={"uid": 5, "when": True, "day": 1.5, "amount": [1]}),
    row("body", "post", "/everything", json={"uid": "{12345678123456781234567812345678}", "when": "2024-01-02T03:04:05+24:00",
                                             "day": "2024-01-02x", "amount": "-Infinity"}),
    row("body", "post", "/everything", json={"when": -1e16, "day": 86400, "amount": 1.25, "uid": "a-\u00e9"}),
    row("body", "post", "/everything", json={"union": 1.5}),
    row("body", "post", "/everything", json={"union": None}),
    # routing
    row("routing", "get", "/v1/things/3"),
    row("routing", "get", "/api/v1/things/3"),
    row("routing", "post", "/v1/things", json=Item),
    row("routing", "get", "/multi"),
    row("routing", "post", "/multi"),
    row("routing", "head", "/items"),
    row("routing", "get", "/missing"),
    row("routing", "head", "/missing"),
    row("routing", "delete", "/items"),
    row("routing", "put", "/multi"),
    row("routing", "options", "/items"),
    row("routing", "get", "/items/"),
]

DEPENDENCIES = [
    row("dependencies", "get", "/page"),
    row("dependencies", "get", "/page?skip=5&limit=20"),
    row("dependencies", "get", "/page?limit=51"),
    row("dependencies", "get", "/page?skip=x"),
    row("dependencies", "get", "/me"),
    row("dependencies", "get", "/me", headers={"x-token": "nope"}),
    row("dependencies", "get", "/me", headers={"x-token": "secret"}),
    row("dependencies", "get", "/secure?q=1", headers={"x-token": "secret"}),
    row("dependencies", "get", "/secure?q=x", headers={"x-token": "secret"}),
    row("dependencies", "get", "/secure?q=x", headers={"x-token": "nope"}),
    row("dependencies", "get", "/ordered?n=1", headers={"x-token": "secret", "x-key": "7"}),
    row("dependencies", "get", "/ordered?n=x&tag=abcd", headers={"x-token": "nope", "x-key": "7"}),
    row("dependencies", "get", "/ordered?n=x", headers={"x-token": "secret", "x-key": "1"}),
    row("dependencies", "get", "/ordered?n=x&tag=abcd", headers={"x-token": "secret", "x-key": "1"}),
    row("dependencies", "get", "/ordered?n=x", headers={"x-token": "secret", "x-key": "7"}),
    row("dependencies", "get", "/guarded"),
    row("dependencies", "get", "/guarded", headers={"x-token": "secret"}),
    row("dependencies", "get", "/resource"),
    row("dependencies", "get", "/events"),
    row("dependencies", "get", "/override"),
]

FORMS = [
    row("forms", "post", "/login", form={"username": "u", "password": "secret"}),
    row("forms", "post", "/login", form={"username": "u", "password": "pw", "n": "x"}),
    row("forms", "post", "/login", form={"password": "secret"}),
    row("forms", "post", "/login", json={"username": "u", "password": "secret"}),
    row("forms", "post", "/upload", files={"file": ("a.txt", b"hello", "text/plain")}),
    row("forms", "post", "/upload", form={"other": "x"}, files={"nope": ("a.txt", b"hello", "text/plain")}),
    row("forms", "post", "/uploadfile", form={"note": "n"}, files={"file": ("b.bin", b"\x00\x01", "application/x")}),
    row("forms", "post", "/uploadfile", form={"note": "n"}),
]

STREAMING = [
    row("streaming", "get", "/stream"),
    row("streaming", "get", "/astream"),
]

MIDDLEWARE = [
    row("middleware", "get", "/mw"),
    row("middleware", "get", "/missing"),
    row("middleware", "post", "/mw"),
    # validation failures go through the middleware (it adds its header to the 422), as in FastAPI
    row("middleware", "get", "/mw-validated?n=x&day=2024-02-30"),
    row("middleware", "get", "/mw-validated?n=2&day=2024-02-03"),
    row("middleware", "post", "/mw-item", json={"name": "w"}),
    row("middleware", "post", "/mw-item", content=b"\xff", headers=JSON),
]

OPENAPI = [
    row("openapi", "get", "/openapi.json"),
    row("openapi", "get", "/items/3?q=abc"),
]

_OPTIONAL = {"dependencies": DEPENDENCIES, "forms": FORMS, "streaming": STREAMING, "middleware": MIDDLEWARE,
             "openapi": OPENAPI}
ROWS = CORE + [r for name, rows in _OPTIONAL.items() if diff_apps.FEATURES[name] for r in rows]


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_response(clients: Any, request: pytest.FixtureRequest, app: str, method: str, url: str,
                       gap: str | None, kwargs: dict[str, Any]) -> None:
    ours, theirs = clients(app)
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    got = ours.request(method, url, content=body, headers=headers)
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)
