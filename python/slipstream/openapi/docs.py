"""The /docs (Swagger UI) and /redoc (ReDoc) pages, and the OAuth2 redirect page of Swagger UI."""

from __future__ import annotations

import html
import json
from typing import Any

from ..responses import HTMLResponse
from .encode import jsonable

# Where the pages load the UI from when the engine does not serve the files (drf-spectacular-sidecar missing).
CDN_SWAGGER_JS = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"
CDN_SWAGGER_CSS = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css"
CDN_OAUTH2_REDIRECT_JS = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/oauth2-redirect.js"
CDN_REDOC_JS = "https://cdn.jsdelivr.net/npm/redoc@2/bundles/redoc.standalone.js"

# Swagger UI configuration (https://swagger.io/docs/open-source-tools/swagger-ui/usage/configuration/)
# that the page sets unless the app's swagger_ui_parameters say otherwise.
SWAGGER_UI_DEFAULT_PARAMETERS: dict[str, Any] = {
    "dom_id": "#swagger-ui",
    "layout": "BaseLayout",
    "deepLinking": True,
    "showExtensions": True,
    "showCommonExtensions": True,
}


# "<", ">" and "&" as JSON escapes, so that no string of the data can end the <script> element it is written in.
_SCRIPT_SAFE = str.maketrans({char: f"\\u{ord(char):04x}" for char in "<>&"})


def _script_json(value: Any) -> str:
    """`value` as a JavaScript literal that is safe inside a <script> element."""
    return json.dumps(jsonable(value), ensure_ascii=False).translate(_SCRIPT_SAFE)


def _head(title: str, favicon_url: str | None, *extra: str) -> str:
    lines = ['<meta charset="utf-8">', '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(title)}</title>"]
    if favicon_url:
        lines.append(f'<link rel="icon" href="{html.escape(favicon_url)}">')
    return "\n".join([*lines, *extra])


def swagger_ui_html(*, openapi_url: str, title: str, swagger_js_url: str = CDN_SWAGGER_JS,
                    swagger_css_url: str = CDN_SWAGGER_CSS, swagger_favicon_url: str | None = None,
                    oauth2_redirect_url: str | None = None, init_oauth: dict[str, Any] | None = None,
                    swagger_ui_parameters: dict[str, Any] | None = None) -> str:
    """A page that starts Swagger UI's bundle on `openapi_url` (SwaggerUIBundle with the apis preset)."""
    config = {"url": openapi_url, **SWAGGER_UI_DEFAULT_PARAMETERS, **(swagger_ui_parameters or {})}
    setup = [f"const config = {_script_json(config)};",
             "config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset];"]
    if oauth2_redirect_url:
        setup.append(f"config.oauth2RedirectUrl = window.location.origin + {_script_json(oauth2_redirect_url)};")
    setup.append("const ui = SwaggerUIBundle(config);")
    if init_oauth:
        setup.append(f"ui.initOAuth({_script_json(init_oauth)});")
    head = _head(title, swagger_favicon_url, f'<link rel="stylesheet" href="{html.escape(swagger_css_url)}">')
    body = "\n".join(setup)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n{head}\n</head>\n<body>\n<div id=\"swagger-ui\"></div>\n"
            f"<script src=\"{html.escape(swagger_js_url)}\"></script>\n<script>\n{body}\n</script>\n"
            "</body>\n</html>\n")


def redoc_html(*, openapi_url: str, title: str, redoc_js_url: str = CDN_REDOC_JS,
               redoc_favicon_url: str | None = None, with_google_fonts: bool = False) -> str:
    """A page with ReDoc's <redoc spec-url> element and its standalone bundle."""
    extra = ["<style>body { margin: 0; padding: 0; }</style>"]
    if with_google_fonts:
        extra.insert(0, '<link rel="stylesheet" '
                        'href="https://fonts.googleapis.com/css?family=Montserrat:300,400,700|Roboto:300,400,700">')
    head = _head(title, redoc_favicon_url, *extra)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n{head}\n</head>\n<body>\n"
            f"<redoc spec-url=\"{html.escape(openapi_url)}\"></redoc>\n"
            f"<script src=\"{html.escape(redoc_js_url)}\"></script>\n</body>\n</html>\n")


def oauth2_redirect_html(script_url: str = CDN_OAUTH2_REDIRECT_JS) -> str:
    """Swagger UI's OAuth2 redirect page when its own file is not installed: the same page, loading
    swagger-ui-dist's oauth2-redirect.js from `script_url`."""
    return (f"<!doctype html>\n<html lang=\"en-US\">\n<body>\n<script src=\"{html.escape(script_url)}\"></script>\n"
            "</body>\n</html>\n")


def get_swagger_ui_html(**kwargs: Any) -> HTMLResponse:
    """The Swagger UI page as a response (keywords of swagger_ui_html), for custom docs routes."""
    return HTMLResponse(swagger_ui_html(**kwargs))


def get_redoc_html(**kwargs: Any) -> HTMLResponse:
    """The ReDoc page as a response (keywords of redoc_html), for custom docs routes."""
    return HTMLResponse(redoc_html(**kwargs))


def get_swagger_ui_oauth2_redirect_html(script_url: str = CDN_OAUTH2_REDIRECT_JS) -> HTMLResponse:
    """The OAuth2 redirect page as a response; `script_url`: where oauth2-redirect.js is served."""
    return HTMLResponse(oauth2_redirect_html(script_url))
