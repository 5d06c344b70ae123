"""FastAPI vs Slipstream on integers beyond 64 bits: bodies (flat, nested, in lists, negative, with bounds and
multiple_of), floats given for ints (1e30), Python's 4300-digit limit, query/path/header parameters, responses.

Rows are recorded for the session's match rate like test_differential.py's.
"""

from __future__ import annotations

from typing import Any

import pytest

from .diff_apps_numbers import BIG
from .diff_support import Outcome, build_request, compare, record

JSON = {"content-type": "application/json"}
B = 123456789012345678901234567890
LIMIT = "7" * 4300  # Python's int_max_str_digits: the most digits an int may have


def row(method: str, url: str, **kwargs: Any) -> Any:
    detail = "".join(f" {k}={str(v)[:50]}" for k, v in kwargs.items())
    return pytest.param(method.upper(), url, kwargs, id=f"numbers {method.upper()} {url[:60]}{detail}")


ROWS = [
    # bodies
    row("post", "/model", json={"n": B}),
    row("post", "/model", json={"n": -B}),
    row("post", "/model", json={"n": 2**64, "maybe": -(2**63) - 1}),
    row("post", "/model", json={"n": 1, "bounded": BIG}),
    row("post", "/model", json={"n": 1, "bounded": BIG + 1}),
    row("post", "/model", json={"n": 1, "bounded": -BIG - 1}),
    row("post", "/model", json={"n": 1, "tens": BIG}),
    row("post", "/model", json={"n": 1, "tens": BIG + 5}),
    row("post", "/model", json={"n": 1, "small": B}),
    row("post", "/model", json={"n": 1, "nested": {"a": [B, -B, 1], "b": []}}),
    row("post", "/model", json={"n": 1, "nested": {"a": [1, "x", B]}}),
    row("post", "/model", json={"n": 1, "ratio": B}),
    row("post", "/model", json={"n": str(B)}),
    row("post", "/model", json={"n": f" -{B}_0 "}),
    row("post", "/model", json={"n": "7" * 4301}),
    row("post", "/model", content=b'{"n": 1e30}', headers=JSON),
    row("post", "/model", content=b'{"n": -1e30}', headers=JSON),
    row("post", "/model", content=b'{"n": 1.5e30}', headers=JSON),
    row("post", "/model", content=b'{"n": 1e18}', headers=JSON),
    row("post", "/model", content=b'{"n": 9.3e18}', headers=JSON),
    row("post", "/model", content=b'{"n": -9.223372036854775808e18}', headers=JSON),
    row("post", "/model", content=b'{"n": 123456789012345678901234567890.0}', headers=JSON),
    row("post", "/model", content=b'{"n": 1e30, "maybe": 1e30}', headers=JSON),
    row("post", "/model", content=b'{"n": ' + LIMIT.encode() + b"}", headers=JSON),
    row("post", "/model", content=b'{"n": ' + LIMIT.encode() + b"7}", headers=JSON),
    row("post", "/echo", json={"a": [B, -B, {"b": 2**200}], "c": 1.5}),
    row("post", "/echo", content=b"[-" + LIMIT.encode() + b"]", headers=JSON),
    row("post", "/echo", content=b"[-" + LIMIT.encode() + b"7]", headers=JSON),
    row("post", "/echo", content=b"[1e30, 18446744073709551616, -9223372036854775809]", headers=JSON),
    row("post", "/ints", json=[1, B, -B, 2**64]),
    row("post", "/ints", json=[1, "2", str(B)]),
    row("post", "/scalar", json={"n": B}),
    row("post", "/scalar", json={"n": -(2**64)}),
    # parameters
    row("get", f"/query?n={B}"),
    row("get", f"/query?n=-{B}"),
    row("get", f"/query?n=%2B000{B}.000"),
    row("get", f"/query?n=1_{B}"),
    row("get", f"/query?n={B}.5"),
    row("get", "/query?n=1e30"),
    row("get", f"/query?n={LIMIT}"),
    row("get", f"/query?n={LIMIT}7"),
    row("get", f"/query?n=1&lo={10**20}"),
    row("get", f"/query?n=1&lo=-{10**20}"),
    row("get", f"/query?n=1&lo={10**20 - 1}"),
    row("get", f"/query?n=1&many={B}&many=-{B}&many=3"),
    row("get", f"/query?n=1&ratio={B}"),
    row("get", f"/path/{B}"),
    row("get", f"/path/-{B}"),
    row("get", "/header", headers={"x-n": str(-B)}),
    # responses
    row("get", "/out"),
    row("get", "/out-model"),
]


@pytest.mark.parametrize(("method", "url", "kwargs"), ROWS)
def test_same_response(clients: Any, request: pytest.FixtureRequest, method: str, url: str,
                       kwargs: dict[str, Any]) -> None:
    ours, theirs = clients("numbers")
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    got = ours.request(method, url, content=body, headers=headers)
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, None, diffs))
    assert not diffs, "\n".join(diffs)
