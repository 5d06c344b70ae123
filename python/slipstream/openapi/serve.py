"""Registers /openapi.json, /docs, /docs/oauth2-redirect, /redoc and the UI files on a native server."""

from __future__ import annotations

import json
import logging
from typing import Any

from .. import middleware
from .._native_route import native_route
from ..dependencies.install import _internal_route
from ..dependencies.shape import analyze
from ..responses import HTMLResponse, Response
from ..routing import RouteDef
from . import docs
from .assets import find_assets, oauth2_redirect_page

logger = logging.getLogger("slipstream")
_HTML = "text/html; charset=utf-8"
_ASSET_HEADERS = [("cache-control", "public, max-age=86400")]


def _document_bytes(app: Any, root_path: str) -> bytes:
    """The document as FastAPI's endpoint answers it (root_path first among the servers)."""
    schema = app.openapi()
    servers = schema.get("servers", [])
    if root_path and app.openapi_config.root_path_in_servers and root_path not in {s.get("url") for s in servers}:
        schema = {**schema, "servers": [{"url": root_path}, *servers]}
    return json.dumps(schema, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


class _Pages:
    """Where the document and the pages go: plain routes, or, in an app with HTTP middleware, routes that run
    through its middleware as FastAPI's do (the UI files, which FastAPI does not serve, stay static)."""

    def __init__(self, app: Any, native: Any, runtime: Any) -> None:
        self.app = app
        self.native = native
        self.runtime = runtime
        self.chain: Any = None
        if runtime is not None and getattr(app, "user_middleware", None):
            self.chain = middleware.MiddlewareChain([middleware.dispatcher(m) for m in app.user_middleware],
                                                    app.exception_handlers)

    def page(self, url: str, body: bytes) -> None:
        if self.chain is None:
            self.native.add_static_route("GET", url, 200, _HTML, [], body)
            return

        async def endpoint(_request: Any) -> Response:
            return HTMLResponse(body)

        self._through_middleware(url, endpoint)

    def _through_middleware(self, url: str, endpoint: Any) -> None:
        runner = middleware.make_not_found_runner(endpoint, self.chain, self.runtime)
        self.native.add_route("GET", url, _internal_route(self.app, url, runner))


def _add_document_route(pages: _Pages, url: str, root_path: str) -> None:
    """A Python route (the document is made on its first request, as FastAPI does) with no parameters."""
    app, native = pages.app, pages.native
    cache: list[bytes] = []

    def openapi() -> Response:
        if not cache:
            cache.append(_document_bytes(app, root_path))
        return Response(cache[0], media_type="application/json")

    if pages.chain is not None:
        async def endpoint(_request: Any) -> Response:
            return openapi()

        pages._through_middleware(url, endpoint)
        return
    route = RouteDef(path=url, endpoint=openapi, methods=("GET",), options={"include_in_schema": False})
    route.shape = analyze(openapi, url)
    native.add_route("GET", url, native_route(route, app.exception_handlers))


def install_docs(app: Any, native: Any, root_path: str = "", runtime: Any = None) -> None:
    """Adds the document and docs routes that `app.openapi_config` asks for. Pages and UI files are answered by
    the I/O threads (static routes); without the UI package the pages load the files from a CDN (jsDelivr).
    In an app with HTTP middleware (and its AppRuntime given), the document and the pages go through it."""
    config = app.openapi_config
    if not config.openapi_url:
        return
    root = root_path.rstrip("/")
    pages = _Pages(app, native, runtime)
    _add_document_route(pages, config.openapi_url, root)
    if not (config.docs_url or config.redoc_url):
        return
    assets = find_assets()
    base = root + config.docs_assets_url
    if assets is None:
        logger.warning("drf-spectacular-sidecar is not installed (pip install 'slipstream[docs]'): "
                       "/docs and /redoc load Swagger UI and ReDoc from a CDN")
    else:
        for name, asset in assets.items():
            native.add_static_route("GET", f"{config.docs_assets_url}/{name}", 200, asset.content_type,
                                    _ASSET_HEADERS, asset.read())

    def url_of(name: str, cdn: str) -> str:
        return f"{base}/{name}" if assets is not None else cdn

    openapi_url = root + config.openapi_url
    if config.docs_url:
        redirect = config.swagger_ui_oauth2_redirect_url
        page = docs.swagger_ui_html(
            openapi_url=openapi_url, title=f"{app.title} - Swagger UI",
            swagger_js_url=url_of("swagger-ui-bundle.js", docs.CDN_SWAGGER_JS),
            swagger_css_url=url_of("swagger-ui.css", docs.CDN_SWAGGER_CSS),
            swagger_favicon_url=f"{base}/favicon.png" if assets is not None else None,
            oauth2_redirect_url=root + redirect if redirect else None, init_oauth=config.swagger_ui_init_oauth,
            swagger_ui_parameters=config.swagger_ui_parameters)
        pages.page(config.docs_url, page.encode())
        if redirect:
            shipped = oauth2_redirect_page(base) if assets is not None else None
            redirect_page = shipped or docs.oauth2_redirect_html(
                url_of("oauth2-redirect.js", docs.CDN_OAUTH2_REDIRECT_JS)).encode()
            pages.page(redirect, redirect_page)
    if config.redoc_url:
        page = docs.redoc_html(openapi_url=openapi_url, title=f"{app.title} - ReDoc",
                               redoc_js_url=url_of("redoc.standalone.js", docs.CDN_REDOC_JS),
                               redoc_favicon_url=f"{base}/favicon.png" if assets is not None else None)
        pages.page(config.redoc_url, page.encode())
