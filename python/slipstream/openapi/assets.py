"""The Swagger UI and ReDoc files, from the drf-spectacular-sidecar package (read from disk, never imported)."""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib

PACKAGE = "drf_spectacular_sidecar"
# name served under the assets URL -> (path inside the package's static folder, content type)
FILES = {
    "swagger-ui-bundle.js": ("swagger-ui-dist/swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    "swagger-ui.css": ("swagger-ui-dist/swagger-ui.css", "text/css; charset=utf-8"),
    "favicon.png": ("swagger-ui-dist/favicon-32x32.png", "image/png"),
    "redoc.standalone.js": ("redoc/bundles/redoc.standalone.js", "text/javascript; charset=utf-8"),
    "oauth2-redirect.js": ("swagger-ui-dist/oauth2-redirect.js", "text/javascript; charset=utf-8"),
}
# Swagger UI's OAuth2 redirect page, served at the app's swagger_ui_oauth2_redirect_url.
OAUTH2_REDIRECT_PAGE = "swagger-ui-dist/oauth2-redirect.html"
_REDIRECT_SCRIPT = b'src="oauth2-redirect.js"'


@dataclasses.dataclass(frozen=True)
class Asset:
    name: str
    content_type: str
    path: pathlib.Path

    def read(self) -> bytes:
        return self.path.read_bytes()


def static_root() -> pathlib.Path | None:
    """The package's static folder, or None when it is not installed. The package's __init__ imports Django,
    so it is located with find_spec (which runs nothing) and only its data files are read."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    root = pathlib.Path(next(iter(spec.submodule_search_locations))) / "static" / PACKAGE
    return root if root.is_dir() else None


def find_assets() -> dict[str, Asset] | None:
    """Every file of FILES, or None when the package (or one of its files) is missing."""
    root = static_root()
    if root is None:
        return None
    assets = {name: Asset(name, content_type, root / rel) for name, (rel, content_type) in FILES.items()}
    if not all(asset.path.is_file() for asset in assets.values()):
        return None
    return assets


def oauth2_redirect_page(assets_url: str) -> bytes | None:
    """The package's oauth2-redirect.html, its script reference made absolute (`assets_url`/oauth2-redirect.js,
    since the page is not served beside the script); None when the package or that reference is missing."""
    root = static_root()
    page = root / OAUTH2_REDIRECT_PAGE if root is not None else None
    if page is None or not page.is_file():
        return None
    content = page.read_bytes()
    if content.count(_REDIRECT_SCRIPT) != 1:
        return None
    return content.replace(_REDIRECT_SCRIPT, f'src="{assets_url}/oauth2-redirect.js"'.encode())
