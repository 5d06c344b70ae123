"""get_openapi(): the OpenAPI 3.1 document of a list of routes, as FastAPI's function of the same name builds it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import dependant as dep
from .encode import jsonable
from .fields import ModelField, definitions
from .normalize import normalize_document
from .operation import Context, path_item
from .route_view import RouteView, from_route


def _views(routes: Sequence[Any]) -> list[RouteView]:
    return [route if isinstance(route, RouteView) else from_route(route) for route in routes]


def _fields(views: Sequence[RouteView]) -> list[ModelField]:
    """Every field whose schema the document needs, in FastAPI's order: the callbacks', bodies, responses,
    parameters."""
    callbacks: list[ModelField] = []
    bodies: list[ModelField] = []
    responses: list[ModelField] = []
    params: list[ModelField] = []
    for view in views:
        if not view.include_in_schema or view.dependant is None:
            continue
        if view.body_field is not None:
            bodies.append(view.body_field)
        if view.response_field is not None:
            responses.append(view.response_field)
        responses.extend(view.response_fields.values())
        if view.stream_item_field is not None:
            responses.append(view.stream_item_field)
        callbacks.extend(_fields(view.callbacks))
        for fields in dep.flat_params(view.dependant).values():
            params.extend(fields)
    return callbacks + bodies + responses + params


def get_openapi(*, title: str, version: str, openapi_version: str = "3.1.0", summary: str | None = None,
                description: str | None = None, routes: Sequence[Any], webhooks: Sequence[Any] | None = None,
                tags: list[dict[str, Any]] | None = None, servers: list[dict[str, Any]] | None = None,
                terms_of_service: str | None = None, contact: dict[str, Any] | None = None,
                license_info: dict[str, Any] | None = None, separate_input_output_schemas: bool = True,
                external_docs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The document as JSON-compatible data. `routes`: the app's routes (`app.routes`, RouteDef objects)."""
    info: dict[str, Any] = {"title": title, "version": version}
    for key, value in (("summary", summary), ("description", description), ("termsOfService", terms_of_service),
                       ("contact", contact), ("license", license_info)):
        if value:
            info[key] = value
    output: dict[str, Any] = {"openapi": openapi_version, "info": info}
    if servers:
        output["servers"] = servers
    views = _views(routes)
    hooks = _views(webhooks or [])
    mapping, defs = definitions(_fields([*views, *hooks]), separate_input_output_schemas=separate_input_output_schemas)
    ctx = Context(mapping, separate_input_output_schemas)
    components: dict[str, dict[str, Any]] = {}
    sections: dict[str, dict[str, dict[str, Any]]] = {"paths": {}, "webhooks": {}}
    for section, group in (("paths", views), ("webhooks", hooks)):
        for view in group:
            path, schemes, extra_defs = path_item(view, ctx)
            if path:
                sections[section].setdefault(view.path_format, {}).update(path)
            if schemes:
                components.setdefault("securitySchemes", {}).update(schemes)
            defs.update(extra_defs)
    if defs:
        components["schemas"] = {k: defs[k] for k in sorted(defs)}
    if components:
        output["components"] = components
    output["paths"] = sections["paths"]
    if sections["webhooks"]:
        output["webhooks"] = sections["webhooks"]
    if tags:
        output["tags"] = tags
    if external_docs:
        output["externalDocs"] = external_docs
    return finalize(output)


def finalize(output: dict[str, Any]) -> dict[str, Any]:
    """JSON-compatible data in the published form: see normalize.py."""
    return normalize_document(jsonable(output))
