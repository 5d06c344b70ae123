"""`App.mount()` of ASGI and WSGI apps on the engine's real server (httpx on its socket): a FastAPI sub-app, a
streamed WSGI body larger than the engine's queue, a Django WSGI app, and the refusals (what cannot be mounted,
bad mount paths, a WSGI body over its limit). Compared with FastAPI in differential/test_differential_mount.py."""

from __future__ import annotations

from typing import Any

import fastapi
import httpx
import pytest
from slipstream import App, TestClient
from slipstream.middleware.wsgi import WSGIMiddleware

CHUNK = b"x" * 65536


def big_stream(environ: dict[str, Any], start_response: Any) -> Any:
    start_response("200 OK", [("Content-Type", "application/octet-stream")])
    return (CHUNK for _ in range(64))  # 4 MiB, one chunk per item


def echo_length(environ: dict[str, Any], start_response: Any) -> Any:
    body = environ["wsgi.input"].read()
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [str(len(body)).encode()]


def test_mounted_apps_on_a_real_socket() -> None:
    sub = fastapi.FastAPI()

    @sub.get("/items/{item_id}")
    async def item(item_id: int) -> Any:
        return {"item_id": item_id}

    app = App(compression=False)
    app.mount("/api", sub)
    app.mount("/files", WSGIMiddleware(big_stream))
    app.mount("/len", WSGIMiddleware(echo_length, max_body=10))

    @app.get("/own")
    async def own() -> Any:
        return "own"

    with TestClient(app) as client:
        base = f"http://127.0.0.1:{client.port}"
        with httpx.Client(base_url=base, timeout=60) as http:
            assert http.get("/api/items/4").json() == {"item_id": 4}
            assert http.get("/api/items/x").status_code == 422
            assert http.get("/own").json() == "own"
            streamed = http.get("/files/anything")
            assert streamed.status_code == 200
            assert streamed.headers["transfer-encoding"] == "chunked"
            assert streamed.content == CHUNK * 64
            assert http.post("/len/", content=b"0123456789").text == "10"
            too_big = http.post("/len/", content=b"0123456789A")
            assert (too_big.status_code, too_big.text) == (413, "Request body too large")


def test_a_django_wsgi_app_mounted() -> None:
    django = pytest.importorskip("django")
    from django.conf import settings

    if not settings.configured:
        settings.configure(
            DEBUG=False,
            SECRET_KEY="mount-test",
            ROOT_URLCONF=__name__,
            ALLOWED_HOSTS=["*"],
            MIDDLEWARE=[],
            INSTALLED_APPS=[],
        )
        django.setup()
    from django.core.wsgi import get_wsgi_application

    app = App()
    app.mount("/legacy", WSGIMiddleware(get_wsgi_application()))
    with TestClient(app) as client:
        answer = client.get("/legacy/hello/ann?x=1")
        assert (answer.status_code, answer.json()) == (200, {"name": "ann", "script": "/legacy", "x": "1"})
        assert client.get("/legacy/nowhere").status_code == 404


def _django_hello(request: Any, name: str) -> Any:
    from django.http import JsonResponse

    return JsonResponse({"name": name, "script": request.META["SCRIPT_NAME"], "x": request.GET.get("x")})


def __getattr__(name: str) -> Any:
    if name == "urlpatterns":  # Django's ROOT_URLCONF is this module; read only once Django is set up
        from django.urls import path

        return [path("hello/<str:name>", _django_hello)]
    raise AttributeError(name)


@pytest.mark.parametrize("bad", [object(), "text", 42])
def test_what_cannot_be_mounted(bad: Any) -> None:
    with pytest.raises(TypeError, match="cannot mount"):
        App().mount("/x", bad)


@pytest.mark.parametrize("path", ["sub", "/sub/", ""])
def test_mount_paths_are_checked(path: str) -> None:
    with pytest.raises(ValueError, match="mount path"):
        App().mount(path, fastapi.FastAPI())


def test_wsgi_max_body_is_checked() -> None:
    with pytest.raises(ValueError, match="max_body must be a non-negative integer"):
        WSGIMiddleware(echo_length, max_body=-1)
