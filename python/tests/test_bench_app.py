"""bench/apps/slipstream_app.py serves exactly the bytes of bench/apps/payloads.py (the harness pre-flight)."""

import importlib
import sys
from pathlib import Path

import pytest
from slipstream import App, TestClient

APPS = Path(__file__).resolve().parents[2] / "bench" / "apps"


@pytest.fixture(scope="module")
def bench_modules():
    sys.path.insert(0, str(APPS))
    try:
        yield importlib.import_module("slipstream_app"), importlib.import_module("payloads")
    finally:
        sys.path.remove(str(APPS))


@pytest.mark.parametrize("style", ["def", "async"])
def test_payloads(bench_modules, style: str) -> None:
    module, payloads = bench_modules
    app = App(access_log=False)
    (module.add_def_routes if style == "def" else module.add_async_routes)(app)
    with TestClient(app) as client:
        r = client.get("/hello")
        assert (r.status_code, r.content, r.headers["content-type"]) == (200, payloads.HELLO, payloads.CONTENT_TYPE)
        r = client.post("/echo", content=payloads.ECHO_BODY, headers={"content-type": payloads.CONTENT_TYPE})
        assert (r.status_code, r.content) == (200, payloads.ECHO_BODY)
        r = client.post("/items", content=payloads.VALID_ITEM, headers={"content-type": payloads.CONTENT_TYPE})
        assert (r.status_code, r.content) == (200, payloads.VALID_ITEM)
        r = client.post("/items", content=payloads.INVALID_ITEM, headers={"content-type": payloads.CONTENT_TYPE})
        assert r.status_code == payloads.INVALID_STATUS
        r = client.get(payloads.PARAMS_PATH)
        assert (r.status_code, r.content) == (200, payloads.PARAMS_RESPONSE)
        r = client.get("/large")
        assert (r.status_code, r.content, r.headers["content-type"]) == (200, payloads.LARGE, payloads.CONTENT_TYPE)
