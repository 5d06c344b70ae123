"""OpenAPI parity: the same app on FastAPI and on Slipstream gives the same document, byte for byte; Slipstream's
/docs, /redoc and /docs/oauth2-redirect pages load Swagger UI and ReDoc from the engine (or a CDN without them).

Skipped when FastAPI is not installed. The browser test needs Chromium (Debian package `chromium`).
"""

import json
import logging
import os
import re
import shutil
import subprocess
import types
from typing import Annotated, Any

import pytest

pytest.importorskip("fastapi")
import fastapi
import fastapi.responses
import slipstream
import slipstream.openapi.assets as ss_assets
import slipstream.openapi.docs as ss_docs
from apps import openapi_app, openapi_probe
from fastapi.testclient import TestClient as FastAPIClient
from pydantic import BaseModel
from slipstream import TestClient
from slipstream.openapi.assets import FILES, OAUTH2_REDIRECT_PAGE, find_assets, static_root

_NAMES = ("APIRouter", "Query", "Path", "Header", "Cookie", "Body")
_RESPONSES = ("HTMLResponse", "PlainTextResponse", "RedirectResponse")
ASSETS = "/_slipstream/docs"


def fastapi_ns() -> Any:
    ns = types.SimpleNamespace(FastAPI=fastapi.FastAPI, **{n: getattr(fastapi, n) for n in _NAMES})
    for name in _RESPONSES:
        setattr(ns, name, getattr(fastapi.responses, name))
    return ns


def slipstream_ns() -> Any:
    return types.SimpleNamespace(FastAPI=slipstream.App, **{n: getattr(slipstream, n) for n in (*_NAMES, *_RESPONSES)})


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Every place where two JSON documents differ, key order and number types included."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [] if list(a) == list(b) else [f"{path or '/'}: keys {list(a)} != {list(b)}"]
        return out + [d for k in a if k in b for d in differences(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list):
        out = [] if len(a) == len(b) else [f"{path}: {len(a)} items != {len(b)}"]
        return out + [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}/{i}")]
    return [] if (a == b and type(a) is type(b)) else [f"{path}: {a!r} != {b!r}"]


def assert_same_document(expected: dict[str, Any], actual: dict[str, Any]) -> None:
    found = differences(expected, actual)
    assert not found, "OpenAPI differences (FastAPI != Slipstream):\n" + "\n".join(found[:40])
    assert json.dumps(expected) == json.dumps(actual)


def both(build: Any, **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return build(fastapi_ns(), **options).openapi(), build(slipstream_ns(), **options).openapi()


def test_document_equals_fastapi() -> None:
    expected, actual = both(openapi_app.build)
    assert_same_document(expected, actual)
    # The corpus really covers what it claims to.
    schemas = set(actual["components"]["schemas"])
    assert {"Item-Output", "Node-Input", "Node-Output", "Body_replace-item", "HTTPValidationError",
            "apps__openapi_models_b__Item"} <= schemas
    assert "/v1/internal/state" not in actual["paths"] and "/v1/admin/secret" not in actual["paths"]


@pytest.mark.parametrize("options", [
    {"summary": "Short", "terms_of_service": "https://example.com/terms",
     "contact": {"name": "Ops", "url": "https://example.com", "email": "ops@example.com"},
     "license_info": {"name": "Apache 2.0", "identifier": "Apache-2.0"},
     "servers": [{"url": "https://api.example.com", "description": "prod"}, {"url": "/local"}],
     "openapi_external_docs": {"url": "https://example.com/docs", "description": "More"}},
    {"separate_input_output_schemas": False},
], ids=["metadata", "single-schemas"])
def test_app_options_equal_fastapi(options: dict[str, Any]) -> None:
    assert_same_document(*both(openapi_app.build, **options))


class Pet(BaseModel):
    name: str


def small_app(fw: Any, **options: Any) -> Any:
    app = fw.FastAPI(**options)

    @app.get("/pets/{pet_id}", tags=["pets"], name="fetch", generate_unique_id_function=lambda r: f"{r.name}-x")
    def get_pet(pet_id: int) -> Pet:
        return Pet(name=str(pet_id))

    @app.post("/pets", operation_id="new_pet", description="Adds a pet.", summary="Add")
    def add_pet(pet: Pet, tag: str | None = None) -> Pet:
        return pet

    return app


def test_operation_naming_equals_fastapi() -> None:
    expected, actual = both(small_app, title="Pets", version="1")
    assert_same_document(expected, actual)
    assert actual["paths"]["/pets/{pet_id}"]["get"]["operationId"] == "fetch-x"


class Common:
    def __init__(self, q: str | None = None, n: int = 1) -> None:
        self.q, self.n = q, n


def deps_app(fw: Any) -> Any:
    app = fw.FastAPI(title="Deps", version="1")

    def pagination(skip: int = 0, limit: Annotated[int, fw.Query(le=100)] = 10) -> dict[str, int]:
        return {"skip": skip, "limit": limit}

    def token(x_token: Annotated[str, fw.Header()]) -> str:
        return x_token

    def user(tok: Annotated[str, fw.Depends(token)], q: str | None = None) -> str:
        return tok

    router = fw.APIRouter(prefix="/r", dependencies=[fw.Depends(token)])

    @router.get("/items/{item_id}")
    def items(item_id: int, page: Annotated[dict, fw.Depends(pagination)],
              who: Annotated[str, fw.Depends(user)]) -> list[int]:
        return []

    @app.get("/common")
    def common(c: Annotated[Common, fw.Depends()], extra: int = 0) -> dict[str, Any]:
        return {}

    app.include_router(router)
    return app


@pytest.mark.skipif(not hasattr(slipstream, "Depends"), reason="slipstream has no Depends yet")
def test_dependencies_equal_fastapi() -> None:
    fa = types.SimpleNamespace(**vars(fastapi_ns()), Depends=fastapi.Depends)
    ss = types.SimpleNamespace(**vars(slipstream_ns()), Depends=getattr(slipstream, "Depends", None))
    assert_same_document(deps_app(fa).openapi(), deps_app(ss).openapi())


@pytest.mark.parametrize("options", [{}, {"separate_input_output_schemas": False}],
                         ids=["default", "single-schemas"])
def test_every_object_kind_equals_fastapi(options: dict[str, Any]) -> None:
    """Key order, numbers, references and published-as-built parts for every OpenAPI object and schema keyword."""
    expected, actual = both(openapi_probe.build, **options)
    assert_same_document(expected, actual)
    checked = actual["paths"]["/checked"]["put"]
    assert list(checked)[:3] == ["tags", "summary", "description"] and list(checked)[-1] == "x-op"
    assert next(iter(checked["responses"]["202"])) == "x-r"  # an Example.externalValue: as built
    assert actual["paths"]["/references"]["get"]["requestBody"] == {"$ref": "#/components/requestBodies/B"}
    assert next(iter(actual["paths"]["/probe/{pid}"]["post"]["parameters"][2])) == "x-p"  # parameters: as built
    assert actual["components"]["schemas"]["Plain"]["properties"]["n"]["minimum"] == 1.0


def page_config(page: str) -> dict[str, Any]:
    """The SwaggerUIBundle configuration object written into a /docs page."""
    found = re.search(r"const config = (\{.*\});\n", page)
    assert found, page
    return dict(json.loads(found.group(1)))


def test_served_document_equals_fastapi_and_pages_use_local_files() -> None:
    fa = FastAPIClient(openapi_app.build(fastapi_ns()))
    with TestClient(openapi_app.build(slipstream_ns())) as client:
        expected, actual = fa.get("/openapi.json"), client.get("/openapi.json")
        assert (actual.status_code, actual.headers["content-type"]) == (200, "application/json")
        assert actual.content == expected.content
        pages = {url: client.get(url) for url in ("/docs", "/redoc", "/docs/oauth2-redirect")}
    for response in pages.values():
        assert (response.status_code, response.headers["content-type"]) == (200, "text/html; charset=utf-8")
        assert "tiangolo" not in response.text and "googleapis" not in response.text
    docs = pages["/docs"].text
    assert "<title>Parity - Swagger UI</title>" in docs
    local = find_assets() is not None
    js = f"{ASSETS}/swagger-ui-bundle.js" if local else ss_docs.CDN_SWAGGER_JS
    css = f"{ASSETS}/swagger-ui.css" if local else ss_docs.CDN_SWAGGER_CSS
    assert f'<script src="{js}"></script>' in docs and f'<link rel="stylesheet" href="{css}">' in docs
    assert page_config(docs) == {"url": "/openapi.json", "dom_id": "#swagger-ui", "layout": "BaseLayout",
                                 "deepLinking": True, "showExtensions": True, "showCommonExtensions": True}
    assert "config.oauth2RedirectUrl = window.location.origin + \"/docs/oauth2-redirect\";" in docs
    redoc = pages["/redoc"].text
    assert "<title>Parity - ReDoc</title>" in redoc and '<redoc spec-url="/openapi.json"></redoc>' in redoc
    if local:
        root = static_root()
        assert root is not None
        shipped = (root / OAUTH2_REDIRECT_PAGE).read_text()
        assert pages["/docs/oauth2-redirect"].text == shipped.replace(
            'src="oauth2-redirect.js"', f'src="{ASSETS}/oauth2-redirect.js"')
        assert f'<link rel="icon" href="{ASSETS}/favicon.png">' in docs


def test_pages_fall_back_to_the_cdn_without_the_asset_package(monkeypatch: Any,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(ss_assets, "PACKAGE", "slipstream_no_such_package")
    assert find_assets() is None and static_root() is None
    with caplog.at_level(logging.WARNING, logger="slipstream"), TestClient(small_app(slipstream_ns())) as client:
        docs, redoc = client.get("/docs").text, client.get("/redoc").text
        redirect = client.get("/docs/oauth2-redirect").text
        assert client.get(f"{ASSETS}/swagger-ui.css").status_code == 404
    assert "pip install 'slipstream[docs]'" in caplog.text
    assert f'<script src="{ss_docs.CDN_SWAGGER_JS}"></script>' in docs and ss_docs.CDN_SWAGGER_CSS in docs
    assert 'rel="icon"' not in docs and 'rel="icon"' not in redoc
    assert f'<script src="{ss_docs.CDN_REDOC_JS}"></script>' in redoc
    assert f'<script src="{ss_docs.CDN_OAUTH2_REDIRECT_JS}"></script>' in redirect


@pytest.mark.skipif(find_assets() is None, reason="drf-spectacular-sidecar (the Swagger UI/ReDoc files) is missing")
def test_assets_are_served_from_the_package() -> None:
    assets = find_assets()
    assert assets is not None and set(assets) == set(FILES)
    with TestClient(slipstream.App()) as client:
        for name, asset in assets.items():
            response = client.get(f"{ASSETS}/{name}")
            assert (response.status_code, response.headers["content-type"], response.content) == (
                200, asset.content_type, asset.read())
            assert response.headers["cache-control"] == "public, max-age=86400"


def test_switches() -> None:
    def statuses(app: Any) -> list[int]:
        with TestClient(app) as client:
            return [client.get(u).status_code for u in ("/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc",
                                                        f"{ASSETS}/swagger-ui.css", "/spec")]

    assert statuses(slipstream.App(openapi_url=None)) == [404, 404, 404, 404, 404, 404]
    assert statuses(slipstream.App(docs_url=None)) == [200, 404, 404, 200, 200, 404]
    assert statuses(slipstream.App(redoc_url=None, swagger_ui_oauth2_redirect_url=None)) == [
        200, 200, 404, 404, 200, 404]
    assert statuses(slipstream.App(openapi_url="/spec", docs_url=None, redoc_url=None)) == [
        404, 404, 404, 404, 404, 200]


def test_root_path_in_servers_and_pages() -> None:
    options = {"title": "Pets", "version": "1", "root_path": "/api", "servers": [{"url": "/other"}]}
    fa = FastAPIClient(small_app(fastapi_ns(), **options))
    app = small_app(slipstream_ns(), **options)
    with TestClient(app) as client:
        assert client.get("/openapi.json").content == fa.get("/openapi.json").content
        assert client.get("/openapi.json").json()["servers"] == [{"url": "/api"}, {"url": "/other"}]
        page = client.get("/docs").text
        assert page_config(page)["url"] == "/api/openapi.json"
        if find_assets() is not None:
            assert f'src="/api{ASSETS}/swagger-ui-bundle.js"' in page
            assert f'src="/api{ASSETS}/oauth2-redirect.js"' in client.get("/docs/oauth2-redirect").text
        assert "window.location.origin + \"/api/docs/oauth2-redirect\";" in page
    # run()/TestClient option (the CLI's --root-path) instead of the App argument:
    with TestClient(small_app(slipstream_ns()), root_path="/edge") as client:
        assert client.get("/openapi.json").json()["servers"] == [{"url": "/edge"}]


def test_custom_openapi_and_swagger_parameters() -> None:
    app = small_app(slipstream_ns(), swagger_ui_parameters={"deepLinking": False, "syntaxHighlight": {"theme": "x"}},
                    swagger_ui_init_oauth={"clientId": "abc</script>"})

    def custom() -> dict[str, Any]:
        if not app.openapi_schema:
            schema = slipstream.openapi.get_openapi(title="Custom", version="9", routes=app.routes)
            schema["info"]["x-logo"] = {"url": "/logo.png"}
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = custom  # type: ignore[method-assign]
    with TestClient(app) as client:
        document = client.get("/openapi.json").json()
        assert document["info"] == {"title": "Custom", "version": "9", "x-logo": {"url": "/logo.png"}}
        page = client.get("/docs").text
    assert page_config(page) == {"url": "/openapi.json", "dom_id": "#swagger-ui", "layout": "BaseLayout",
                                 "deepLinking": False, "showExtensions": True, "showCommonExtensions": True,
                                 "syntaxHighlight": {"theme": "x"}}
    assert 'ui.initOAuth({"clientId": "abc\\u003c/script\\u003e"});' in page and "abc</script>" not in page


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(_browser() is None, reason="no Chromium (install the Debian package 'chromium')")
@pytest.mark.skipif(find_assets() is None, reason="drf-spectacular-sidecar (the Swagger UI/ReDoc files) is missing")
def test_swagger_ui_renders_in_a_browser(tmp_path: Any) -> None:
    """Headless Chromium loads /docs from the engine (no network): Swagger UI renders every operation."""
    browser = _browser()
    assert browser is not None
    app = openapi_app.build(slipstream_ns())
    paths = app.openapi()["paths"]
    # Swagger UI lists an operation under each of its tags ("default" when it has none), as operations-TAG-ID.
    blocks = {f"operations-{tag}-{op['operationId']}" for item in paths.values() for op in item.values()
              for tag in op.get("tags") or ["default"]}
    with TestClient(app, threads=2) as client:
        for page, marker in (("/docs", "opblock-summary-path"), ("/redoc", "operation-type")):
            command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                       "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
                       "--virtual-time-budget=15000", "--dump-dom", f"http://127.0.0.1:{client.port}{page}"]
            # The browser is not ours: no sanitizer runtime preloaded into it (make test-asan preloads one here).
            env = {**{k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}, "HOME": str(tmp_path)}
            result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)
            dom = result.stdout
            assert marker in dom, f"{page}: {result.stderr[-2000:]}"
            if page == "/docs":
                assert set(re.findall(r'id="(operations-(?!tag-)[^"]+)"', dom)) == blocks and len(blocks) == 32
                assert set(re.findall(r'class="opblock-summary-path(?:__deprecated)?" data-path="([^"]+)"', dom)) == set(
                    paths)
                assert "Parity" in dom and "Items of the shop" in dom
            else:
                assert "Read one item" in dom and "Replace Item" in dom
