"""OpenAPIConfig: an app's OpenAPI and docs settings (FastAPI's keyword arguments of the same names)."""

from __future__ import annotations

import dataclasses
from typing import Any

from .utils import get_openapi


@dataclasses.dataclass
class OpenAPIConfig:
    """`openapi_url=None` switches the document and both docs pages off; `docs_url`/`redoc_url=None` one page.
    `docs_assets_url`: where the Swagger UI / ReDoc files are served (by the engine, from the installed package)."""

    summary: str | None = None
    openapi_version: str = "3.1.0"
    openapi_url: str | None = "/openapi.json"
    openapi_tags: list[dict[str, Any]] | None = None
    servers: list[dict[str, Any]] | None = None
    terms_of_service: str | None = None
    contact: dict[str, Any] | None = None
    license_info: dict[str, Any] | None = None
    openapi_external_docs: dict[str, Any] | None = None
    separate_input_output_schemas: bool = True
    webhooks: list[Any] | None = None
    docs_url: str | None = "/docs"
    redoc_url: str | None = "/redoc"
    swagger_ui_oauth2_redirect_url: str | None = "/docs/oauth2-redirect"
    swagger_ui_init_oauth: dict[str, Any] | None = None
    swagger_ui_parameters: dict[str, Any] | None = None
    docs_assets_url: str = "/_slipstream/docs"
    root_path: str = ""
    root_path_in_servers: bool = True

    @classmethod
    def pop_from(cls, options: dict[str, Any]) -> OpenAPIConfig:
        """Takes this config's keys out of `options` (an App's keyword arguments); the rest stay."""
        names = {f.name for f in dataclasses.fields(cls)}
        config = cls(**{name: options.pop(name) for name in list(options) if name in names})
        for url in (config.openapi_url, config.docs_url, config.redoc_url, config.swagger_ui_oauth2_redirect_url):
            if url is not None and not url.startswith("/"):
                raise ValueError(f"a docs URL must start with '/': {url!r}")
        return config

    def document(self, app: Any) -> dict[str, Any]:
        """The OpenAPI document of `app` (its title, version, description and routes), with the paths that mounted
        native services describe themselves (an `openapi` dict, e.g. slipstream.decide.Decisions once mounted)."""
        document = get_openapi(title=app.title, version=app.version, openapi_version=self.openapi_version,
                             summary=self.summary, description=app.description,
                             terms_of_service=self.terms_of_service, contact=self.contact,
                             license_info=self.license_info, routes=app.routes,
                             webhooks=[*(self.webhooks or []), *getattr(getattr(app, "webhooks", None), "routes", [])],
                             tags=self.openapi_tags, servers=self.servers,
                             separate_input_output_schemas=self.separate_input_output_schemas,
                             external_docs=self.openapi_external_docs)
        for kind, args in getattr(app, "native_routes", []):
            described = getattr(args[0], "openapi", None) if kind == "mount" else None
            if isinstance(described, dict):
                document.setdefault("paths", {}).update(described.get("paths", {}))
                schemas = described.get("components", {}).get("schemas", {})
                for name, schema in schemas.items():
                    document.setdefault("components", {}).setdefault("schemas", {}).setdefault(name, schema)
        return document
