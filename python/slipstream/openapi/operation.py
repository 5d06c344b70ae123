"""Route -> OpenAPI operations: parameters, request body, responses (with the 422), metadata; FastAPI's rules."""

from __future__ import annotations

import copy
import http.client
import inspect
import warnings
from typing import Any

from ..responses import JSONResponse
from . import dependant as dep
from .encode import jsonable
from .fields import REF_PREFIX, FieldMapping, ModelField, field_schema
from .route_view import RouteView, media_type_of

METHODS_WITH_BODY = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"}

VALIDATION_ERROR = {
    "title": "ValidationError",
    "type": "object",
    "properties": {
        "loc": {"title": "Location", "type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "msg": {"title": "Message", "type": "string"},
        "type": {"title": "Error Type", "type": "string"},
        "input": {"title": "Input"},
        "ctx": {"title": "Context", "type": "object"},
    },
    "required": ["loc", "msg", "type"],
}
HTTP_VALIDATION_ERROR = {
    "title": "HTTPValidationError",
    "type": "object",
    "properties": {"detail": {"title": "Detail", "type": "array", "items": {"$ref": REF_PREFIX + "ValidationError"}}},
}
_STATUS_RANGES = {"1XX": "Information", "2XX": "Success", "3XX": "Redirection", "4XX": "Client Error",
                  "5XX": "Server Error", "DEFAULT": "Default Response"}


_NO_CONTENT = frozenset({204, 205, 304})


def body_allowed(status_code: int | str | None) -> bool:
    """Whether a response with this status may have content: ranges ("2XX") and "default" may, informational
    (1xx) answers, 204, 205 and 304 may not (RFC 9110)."""
    text = str(status_code)
    if status_code is None or not text.isdigit():
        return True
    return int(text) >= 200 and int(text) not in _NO_CONTENT


def deep_update(main: dict[Any, Any], update: dict[Any, Any]) -> None:
    """Merges `update` into `main` in place: mappings key by key, lists one after the other, other values win."""
    for key, value in update.items():
        mine = main.get(key)
        both_maps = isinstance(mine, dict) and isinstance(value, dict)
        if both_maps:
            deep_update(mine, value)
            continue
        main[key] = mine + value if isinstance(mine, list) and isinstance(value, list) else value


class Context:
    """What every operation of one document shares: field schemas, used operation ids, schema mode."""

    def __init__(self, mapping: FieldMapping, separate_input_output_schemas: bool) -> None:
        self.mapping = mapping
        self.separate = separate_input_output_schemas
        self.operation_ids: set[str] = set()

    def schema(self, field: ModelField, alias: str | None = None) -> dict[str, Any]:
        return field_schema(field, self.mapping, separate_input_output_schemas=self.separate, alias=alias)


def _metadata(route: RouteView, ctx: Context) -> dict[str, Any]:
    """tags, summary (default: the name in title case), description, operationId (warned when repeated),
    deprecated."""
    operation_id = route.operation_id or route.unique_id
    if operation_id in ctx.operation_ids:
        endpoint_name = getattr(route.endpoint, "__name__", "<unnamed_endpoint>")
        warnings.warn(f"Duplicate Operation ID {operation_id} for function {endpoint_name}", stacklevel=1)
    ctx.operation_ids.add(operation_id)
    fields: list[tuple[str, Any]] = [
        ("tags", route.tags or None),
        ("summary", route.summary or route.name.replace("_", " ").title()),
        ("description", route.description or None),
        ("operationId", operation_id),
        ("deprecated", route.deprecated or None),
    ]
    return {key: value for key, value in fields if value is not None}


def _parameters(params: dict[str, list[ModelField]], ctx: Context) -> list[dict[str, Any]]:
    parameters = []
    for location, fields in params.items():
        for field in fields:
            info = field.field_info
            marker = getattr(field, "marker", None)
            if marker is not None and not marker.include_in_schema:
                continue
            alias = getattr(field, "param_alias", None) or field.validation_alias or field.alias
            required = field.required and not getattr(field, "optional_model", False)
            parameter: dict[str, Any] = {"name": getattr(field, "param_name", None) or alias, "in": location,
                                         "required": required, "schema": ctx.schema(field, alias=alias)}
            if info.description:
                parameter["description"] = info.description
            extra = marker.extra if marker is not None else {}
            if extra.get("openapi_examples"):
                parameter["examples"] = jsonable(extra["openapi_examples"])
            elif "example" in extra:
                parameter["example"] = jsonable(extra["example"])
            if info.deprecated:
                parameter["deprecated"] = True
            parameters.append(parameter)
    return parameters


def _request_body(field: ModelField | None, ctx: Context) -> dict[str, Any] | None:
    if field is None:
        return None
    body: dict[str, Any] = {}
    if field.required:
        body["required"] = True
    content: dict[str, Any] = {"schema": ctx.schema(field)}
    extra = getattr(getattr(field, "marker", None), "extra", {})
    if extra.get("openapi_examples"):
        content["examples"] = jsonable(extra["openapi_examples"])
    elif "example" in extra:
        content["example"] = jsonable(extra["example"])
    body["content"] = {media_type_of(field): content}
    return body


# One Server-Sent Event, as FastAPI documents the items of an EventSourceResponse stream.
SSE_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"data": {"type": "string"}, "event": {"type": "string"}, "id": {"type": "string"},
                   "retry": {"type": "integer", "minimum": 0}},
}


def _default_status(response_class: Any) -> str:
    parameter = inspect.signature(response_class.__init__).parameters.get("status_code")
    if parameter is not None and isinstance(parameter.default, int):
        return str(parameter.default)
    return "200"


def _main_response(route: RouteView, operation: dict[str, Any], ctx: Context) -> None:
    status = str(route.status_code) if route.status_code is not None else _default_status(route.response_class)
    responses = operation.setdefault("responses", {})
    responses.setdefault(status, {})["description"] = route.response_description
    media_type = getattr(route.response_class, "media_type", None)
    if not body_allowed(route.status_code):
        return
    item_schema = ctx.schema(route.stream_item_field) if route.stream_item_field is not None else None
    if route.is_json_stream:  # FastAPI's JSON Lines: one item per line
        responses[status].setdefault("content", {})["application/jsonl"] = {"itemSchema": item_schema or {}}
    elif route.is_sse_stream:  # FastAPI's OpenAPI 3.2-style event schema, the item as the JSON in `data`
        event = copy.deepcopy(SSE_EVENT_SCHEMA)
        if item_schema is not None:
            event["required"] = ["data"]
            event["properties"]["data"] = {"type": "string", "contentMediaType": "application/json",
                                           "contentSchema": item_schema}
        responses[status].setdefault("content", {})["text/event-stream"] = {"itemSchema": event}
    elif media_type:
        schema: dict[str, Any] = {"type": "string"}
        if isinstance(route.response_class, type) and issubclass(route.response_class, JSONResponse):
            schema = ctx.schema(route.response_field) if route.response_field is not None else {}
        responses[status].setdefault("content", {}).setdefault(media_type, {})["schema"] = schema


def _extra_responses(route: RouteView, operation: dict[str, Any], ctx: Context) -> None:
    responses = operation.setdefault("responses", {})
    for code, extra in route.responses.items():
        process = copy.deepcopy(extra)
        process.pop("model", None)
        key = str(code).upper()
        if key == "DEFAULT":
            key = "default"
        response = responses.setdefault(key, {})
        field = route.response_fields.get(code)
        if field is not None:
            media_type = getattr(route.response_class, "media_type", None) or "application/json"
            schema = process.setdefault("content", {}).setdefault(media_type, {}).setdefault("schema", {})
            deep_update(schema, ctx.schema(field))
        status_text = _STATUS_RANGES.get(str(code).upper()) or (
            http.client.responses.get(int(code)) if str(code).isdigit() else None)
        description = (process.get("description") or response.get("description") or status_text
                       or "Additional Response")
        deep_update(response, process)
        response["description"] = description


def _security(route: RouteView) -> tuple[dict[str, Any], list[dict[str, list[str]]]]:
    definitions: dict[str, Any] = {}
    scopes_by_name: dict[str, list[str]] = {}
    assert route.dependant is not None
    for scheme, scopes in dep.security_requirements(route.dependant):
        model = scheme.model
        definitions[scheme.scheme_name] = jsonable(model.model_dump(by_alias=True, exclude_none=True)
                                                   if hasattr(model, "model_dump") else model)
        names = scopes_by_name.setdefault(scheme.scheme_name, [])
        names.extend(s for s in scopes if s not in names)
    return definitions, [{name: scopes} for name, scopes in scopes_by_name.items()]


def path_item(route: RouteView, ctx: Context) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(operations by lower-case method, security schemes, extra definitions) of one route."""
    path: dict[str, Any] = {}
    schemes: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    if not route.include_in_schema or route.dependant is None:
        return path, schemes, definitions
    params = dep.flat_params(route.dependant)
    has_params = any(params.values())
    for method in route.methods:
        operation = _metadata(route, ctx)
        security_definitions, security = _security(route)
        if security:
            operation.setdefault("security", []).extend(security)
        schemes.update(security_definitions)
        parameters = _parameters(params, ctx)
        if parameters:
            by_key = {(p["in"], p["name"]): p for p in parameters}
            by_key.update({(p["in"], p["name"]): p for p in parameters if p.get("required")})
            operation["parameters"] = list(by_key.values())
        if method in METHODS_WITH_BODY:
            body = _request_body(route.body_field, ctx)
            if body:
                operation["requestBody"] = body
        if route.callbacks:  # each callback route's operations under its name and path (a runtime expression)
            operation["callbacks"] = {cb.name: {cb.path: path_item(cb, ctx)[0]} for cb in route.callbacks}
        _main_response(route, operation, ctx)
        if route.responses:
            _extra_responses(route, operation, ctx)
        if (has_params or route.body_field) and not any(
                s in operation["responses"] for s in ("422", "4XX", "default")):
            operation["responses"]["422"] = {
                "description": "Validation Error",
                "content": {"application/json": {"schema": {"$ref": REF_PREFIX + "HTTPValidationError"}}},
            }
            definitions.setdefault("ValidationError", VALIDATION_ERROR)
            definitions.setdefault("HTTPValidationError", HTTP_VALIDATION_ERROR)
        if route.openapi_extra:
            deep_update(operation, route.openapi_extra)
        path[method.lower()] = operation
    return path, schemes, definitions
