"""normalize_document(): the published form of an OpenAPI document (key order, number types, references).

The rules, written from the OpenAPI 3.1 and JSON Schema 2020-12 specifications and checked against FastAPI's
output (python/tests/test_openapi.py and apps/openapi_probe.py):

- each object's fixed fields come in the specification's order, other keys (x-*, unknown) after them, as given;
- values that are None are dropped from every mapping (list items stay);
- schema keywords that are numbers (minimum, maximum, multipleOf, ...) are floats, integer keywords ints;
  URLs of ExternalDocs, Contact, License are in normal form (`https://example.com/`);
- a path item, and each response of an operation, is "checked": it is reordered only when every object in it
  matches its kind exactly (no parameter objects, which carry `in`; no externalDocs or Example.externalValue
  URLs; integer keywords as ints, ...); otherwise it is published exactly as built;
- where a reference may stand for an object, a `$ref` object that is not a valid object of that kind becomes
  a bare reference `{"$ref": ...}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import AnyUrl, ValidationError

from .encode import jsonable


class _Mismatch(Exception):
    """A value that is not exactly of the kind its place asks for."""


Slot = Callable[[Any, bool], Any]  # (value, checked) -> normalized value; raises _Mismatch


def _check(ok: bool) -> None:
    if not ok:
        raise _Mismatch


def _string(value: Any, checked: bool) -> Any:
    _check(isinstance(value, str) or not checked)
    return value


def _boolean(value: Any, checked: bool) -> Any:
    _check(isinstance(value, bool) or not checked)
    return value


def _anything(value: Any, checked: bool) -> Any:
    return value


def _number(value: Any, checked: bool) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    _check(not checked)
    return value


def _integer(value: Any, checked: bool) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    _check(not checked)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _url(value: Any, checked: bool) -> Any:
    """A URL field: never exact in a checked place (it is a string, not a URL object); else its normal form."""
    _check(not checked)
    try:
        return str(AnyUrl(value))
    except (ValidationError, TypeError):
        return value


def _strings(value: Any, checked: bool) -> Any:
    _check(not checked or (isinstance(value, list) and all(isinstance(v, str) for v in value)))
    return value


def _never(value: Any, checked: bool) -> Any:
    """A field whose specification type differs from what documents hold (Parameter.in, dependentRequired)."""
    _check(not checked)
    return value


class Kind:
    """One object kind: its fixed fields in order (name -> slot) and the ones it cannot be without."""

    def __init__(self, name: str, required: tuple[str, ...] = (), keep_other_keys: bool = True) -> None:
        self.name = name
        self.fields: dict[str, Slot] = {}
        self.required = required
        self.keep_other_keys = keep_other_keys

    def __call__(self, value: Any, checked: bool) -> dict[str, Any]:
        _check(isinstance(value, dict) and all(key in value for key in self.required))
        out = {key: slot(value[key], checked) for key, slot in self.fields.items() if key in value}
        if self.keep_other_keys:
            out.update((key, item) for key, item in value.items() if key not in self.fields)
        return out


def _map(slot: Slot) -> Slot:
    def normalize(value: Any, checked: bool) -> Any:
        if not isinstance(value, dict):
            _check(not checked)
            return value
        return {key: slot(item, checked) for key, item in value.items()}
    return normalize


def _list(slot: Slot) -> Slot:
    def normalize(value: Any, checked: bool) -> Any:
        if not isinstance(value, list):
            _check(not checked)
            return value
        return [slot(item, checked) for item in value]
    return normalize


def _or_reference(slot: Slot) -> Slot:
    """An object or a Reference: the object when it is exact; else a `$ref` object becomes a bare reference."""
    def normalize(value: Any, checked: bool) -> Any:
        try:
            return slot(value, True)
        except _Mismatch:
            if isinstance(value, dict) and isinstance(value.get("$ref"), str):
                return {"$ref": value["$ref"]}
            if checked:
                raise
            return slot(value, False)
    return normalize


def _checked_unit(slot: Slot) -> Slot:
    """A path item or a response: normalized only when it is exact, else published as built."""
    def normalize(value: Any, checked: bool) -> Any:
        try:
            return slot(value, True)
        except _Mismatch:
            return value
    return normalize


def _schema_or_bool(value: Any, checked: bool) -> Any:
    return value if isinstance(value, bool) else SCHEMA(value, checked)


def _define(kind: Kind, fields: dict[str, Slot]) -> Kind:
    kind.fields.update(fields)
    return kind


SCHEMA = Kind("Schema")
EXTERNAL_DOCS = _define(Kind("ExternalDocumentation", ("url",)), {"description": _string, "url": _url})
_sub = _schema_or_bool
_schemas = _list(_schema_or_bool)
_named_schemas = _map(_schema_or_bool)
# JSON Schema 2020-12: core, applicator, unevaluated, validation, format, content, meta-data; then OpenAPI's.
_define(SCHEMA, {
    "$schema": _string, "$vocabulary": _string, "$id": _string, "$anchor": _string, "$dynamicAnchor": _string,
    "$ref": _string, "$dynamicRef": _string, "$defs": _named_schemas, "$comment": _string,
    "allOf": _schemas, "anyOf": _schemas, "oneOf": _schemas, "not": _sub, "if": _sub, "then": _sub, "else": _sub,
    "dependentSchemas": _named_schemas, "prefixItems": _schemas, "items": _sub, "contains": _sub,
    "properties": _named_schemas, "patternProperties": _named_schemas, "additionalProperties": _sub,
    "propertyNames": _sub, "unevaluatedItems": _sub, "unevaluatedProperties": _sub,
    "type": _anything, "enum": _anything, "const": _anything, "multipleOf": _number, "maximum": _number,
    "exclusiveMaximum": _number, "minimum": _number, "exclusiveMinimum": _number, "maxLength": _integer,
    "minLength": _integer, "pattern": _string, "maxItems": _integer, "minItems": _integer, "uniqueItems": _boolean,
    "maxContains": _integer, "minContains": _integer, "maxProperties": _integer, "minProperties": _integer,
    "required": _strings, "dependentRequired": _never,
    "format": _string, "contentEncoding": _string, "contentMediaType": _string, "contentSchema": _sub,
    "title": _string, "description": _string, "default": _anything, "deprecated": _boolean,
    "readOnly": _boolean, "writeOnly": _boolean, "examples": _anything,
    "discriminator": _define(Kind("Discriminator", ("propertyName",)),
                             {"propertyName": _string, "mapping": _map(_string)}),
    "xml": _define(Kind("XML"), {"name": _string, "namespace": _string, "prefix": _string, "attribute": _boolean,
                                 "wrapped": _boolean}),
    "externalDocs": EXTERNAL_DOCS, "example": _anything,
})

_schema_slot = _or_reference(SCHEMA)
EXAMPLE = _define(Kind("Example"), {"summary": _string, "description": _string, "value": _anything,
                                    "externalValue": _url})
HEADER = Kind("Header")
MEDIA_TYPE = Kind("MediaType")
ENCODING = _define(Kind("Encoding"), {"contentType": _string, "headers": _map(_or_reference(HEADER)),
                                      "style": _string, "explode": _boolean, "allowReserved": _boolean})
_define(MEDIA_TYPE, {"schema": _schema_slot, "example": _anything, "examples": _map(_or_reference(EXAMPLE)),
                     "encoding": _map(ENCODING)})
_content = _map(MEDIA_TYPE)
# A header has a parameter's fields but name, in and allowEmptyValue (which applies to query parameters only).
_header_fields: dict[str, Slot] = {
    "description": _string, "required": _boolean, "deprecated": _boolean, "style": _string, "explode": _boolean,
    "allowReserved": _boolean, "schema": _schema_slot, "example": _anything,
    "examples": _map(_or_reference(EXAMPLE)), "content": _content,
}
_define(HEADER, _header_fields)
# `in` is one of four words in the specification; a document holds it as a string, so a parameter object is
# never exact and the path item that holds one is published as built.
PARAMETER = _define(Kind("Parameter", ("name", "in")), {
    "name": _string, "in": _never, "description": _string, "required": _boolean, "deprecated": _boolean,
    "allowEmptyValue": _boolean, **{k: v for k, v in _header_fields.items() if k not in ("description", "required",
                                                                                         "deprecated")}})
SERVER_VARIABLE = _define(Kind("ServerVariable", ("default",)),
                          {"enum": _strings, "default": _string, "description": _string})
SERVER = _define(Kind("Server", ("url",)), {"url": _string, "description": _string,
                                            "variables": _map(SERVER_VARIABLE)})
LINK = _define(Kind("Link"), {"operationRef": _string, "operationId": _string, "parameters": _map(_anything),
                              "requestBody": _anything, "description": _string, "server": SERVER})
RESPONSE = _define(Kind("Response", ("description",)), {
    "description": _string, "headers": _map(_or_reference(HEADER)), "content": _content,
    "links": _map(_or_reference(LINK))})
REQUEST_BODY = _define(Kind("RequestBody", ("content",)),
                       {"description": _string, "content": _content, "required": _boolean})
PATH_ITEM = Kind("PathItem")
OPERATION = _define(Kind("Operation"), {
    "tags": _strings, "summary": _string, "description": _string, "externalDocs": EXTERNAL_DOCS,
    "operationId": _string, "parameters": _list(_or_reference(PARAMETER)),
    "requestBody": _or_reference(REQUEST_BODY), "responses": _map(_checked_unit(RESPONSE)),
    "callbacks": _map(_or_reference(_map(PATH_ITEM))), "deprecated": _boolean, "security": _anything,
    "servers": _list(SERVER)})
_define(PATH_ITEM, {
    "$ref": _string, "summary": _string, "description": _string,
    **{method: OPERATION for method in ("get", "put", "post", "delete", "options", "head", "patch", "trace")},
    "servers": _list(SERVER), "parameters": _list(_or_reference(PARAMETER))})
# Security schemes and OAuth flows in FastAPI's order (its models' fields: the shared ones first, then each kind's),
# not the specification's.
OAUTH_FLOW = _define(Kind("OAuthFlow"), {"refreshUrl": _string, "scopes": _map(_string), "authorizationUrl": _string,
                                        "tokenUrl": _string})
SECURITY_SCHEME = _define(Kind("SecurityScheme", ("type",)), {
    "type": _string, "description": _string, "in": _string, "name": _string, "scheme": _string,
    "bearerFormat": _string,
    "flows": _define(Kind("OAuthFlows"), {flow: OAUTH_FLOW for flow in (
        "implicit", "password", "clientCredentials", "authorizationCode")}),
    "openIdConnectUrl": _string})
COMPONENTS = _define(Kind("Components"), {
    "schemas": _map(_schema_slot), "responses": _map(_or_reference(RESPONSE)),
    "parameters": _map(_or_reference(PARAMETER)), "examples": _map(_or_reference(EXAMPLE)),
    "requestBodies": _map(_or_reference(REQUEST_BODY)), "headers": _map(_or_reference(HEADER)),
    "securitySchemes": _map(_or_reference(SECURITY_SCHEME)), "links": _map(_or_reference(LINK)),
    "callbacks": _map(_or_reference(_map(PATH_ITEM))), "pathItems": _map(_or_reference(PATH_ITEM))})
INFO = _define(Kind("Info", ("title", "version")), {
    "title": _string, "summary": _string, "description": _string, "termsOfService": _string,
    "contact": _define(Kind("Contact"), {"name": _string, "url": _url, "email": _string}),
    "license": _define(Kind("License", ("name",)), {"name": _string, "identifier": _string, "url": _url}),
    "version": _string})
TAG = _define(Kind("Tag", ("name",)), {"name": _string, "description": _string, "externalDocs": EXTERNAL_DOCS})
_path_items = _map(_checked_unit(PATH_ITEM))
OPENAPI = _define(Kind("OpenAPI"), {
    "openapi": _string, "info": INFO, "jsonSchemaDialect": _string, "servers": _list(SERVER),
    "paths": _path_items, "webhooks": _path_items, "components": COMPONENTS, "security": _anything,
    "tags": _list(TAG), "externalDocs": EXTERNAL_DOCS})


def normalize_document(document: dict[str, Any]) -> dict[str, Any]:
    """The document (JSON-compatible data) in its published form; see the module docstring."""
    return OPENAPI(jsonable(document, exclude_none=True), False)
