"""An app whose document holds every OpenAPI 3.1 object kind and JSON Schema keyword, each written in reverse
(or scrambled) key order: the parity test checks that Slipstream orders, converts and drops them as FastAPI does."""

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

REF = "#/components/schemas/"

# Every JSON Schema 2020-12 keyword (core, applicator, validation, meta-data, format, content, unevaluated)
# but $ref (pydantic resolves every $ref of a model's schema), and OpenAPI's own (discriminator, xml,
# externalDocs, example), in reverse of the specification's order, with an extension key first. Integers where
# the specification says "number", a float where it says integer.
ALL_SCHEMA_KEYWORDS: dict[str, Any] = {
    "x-kind": "probe",
    "example": {"a": None, "b": 1},
    "externalDocs": {"url": "https://example.com/schema", "description": "schema docs", "x-e": 1},
    "xml": {"wrapped": True, "attribute": False, "prefix": "p", "namespace": "https://example.com/ns", "name": "n"},
    "discriminator": {"mapping": {"a": REF + "Probe"}, "propertyName": "kind"},
    "examples": [{"kind": "a"}, None],
    "writeOnly": False,
    "readOnly": False,
    "deprecated": True,
    "default": {"kind": "a"},
    "description": "every keyword",
    "title": "Probe",
    "contentSchema": {"type": "string", "minLength": 1},
    "contentMediaType": "text/plain",
    "contentEncoding": "base64",
    "format": "probe",
    "dependentRequired": {"a": ["b"]},
    "required": ["kind"],
    "minProperties": 1,
    "maxProperties": 9,
    "minContains": 1,
    "maxContains": 3,
    "uniqueItems": True,
    "minItems": 1,
    "maxItems": 5,
    "pattern": "^a",
    "minLength": 1,
    "maxLength": 10,
    "exclusiveMinimum": 0,
    "minimum": 1,
    "exclusiveMaximum": 100,
    "maximum": 99,
    "multipleOf": 2,
    "const": "a",
    "enum": ["a", None, 1],
    "type": ["object", "null"],
    "unevaluatedProperties": False,
    "unevaluatedItems": {"type": "integer"},
    "propertyNames": {"pattern": "^[a-z]+$"},
    "additionalProperties": {"type": "string"},
    "patternProperties": {"^x": {"type": "integer"}},
    "properties": {"kind": {"type": "string", "default": None, "title": "Kind"}},
    "contains": {"type": "integer"},
    "items": {"type": "integer"},
    "prefixItems": [{"type": "integer"}, {"minimum": 0, "description": "second"}],
    "dependentSchemas": {"a": {"required": ["b"]}},
    "else": {"type": "number", "maximum": 3.5},
    "then": {"type": "string"},
    "if": {"type": "integer", "x-if": 1, "maxItems": 2.0},
    "not": {"type": "boolean"},
    "oneOf": [{"type": "string"}, {"type": "integer"}],
    "anyOf": [{"type": "string"}, {"type": "null"}],
    "allOf": [{"description": "x", "maxLength": 3.0}],
    "$comment": "probe",
    "$defs": {"Inner": {"type": "integer", "title": "Inner"}},
    "$dynamicRef": "#meta",
    "$dynamicAnchor": "meta",
    "$anchor": "probe",
    "$id": "https://example.com/probe",
    "$vocabulary": "core",  # an object in JSON Schema, but FastAPI fails on anything but a string
    "$schema": "https://json-schema.org/draft/2020-12/schema",
}


class Probe(BaseModel):
    """A model whose JSON Schema has every keyword."""

    model_config = ConfigDict(json_schema_extra=ALL_SCHEMA_KEYWORDS)

    kind: str = "a"


class Plain(BaseModel):
    model_config = ConfigDict(json_schema_extra={"x-z": 1, "required": ["n"], "title": "Plain!"})

    n: Annotated[int, Field(ge=1, le=9, multiple_of=3, description="n", examples=[3])]
    f: Annotated[float, Field(gt=0, lt=10.5)] = 1
    s: Annotated[str | None, Field(max_length=4, json_schema_extra={"x-s": None, "deprecated": None})] = None
    raw: Annotated[bytes, Field(max_length=8)] = b""


class Blob(BaseModel):
    """Bytes as base64 (contentEncoding) both ways."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    data: bytes


EXAMPLE = {"value": {"kind": "a"}, "x-ex": 1, "externalValue": "https://example.com/ex.json",
           "description": "an example", "summary": "Example"}
# Example.externalValue is a URL: it makes the path item or response that holds it be published as built.
EXACT_EXAMPLE = {k: v for k, v in EXAMPLE.items() if k != "externalValue"}
HEADER = {"x-h": 1, "content": {"text/plain": {"schema": {"type": "string"}}}, "examples": {"one": EXACT_EXAMPLE},
          "example": "v", "schema": {"type": "string", "maxLength": 5}, "allowReserved": True, "explode": False,
          "style": "simple", "allowEmptyValue": False, "deprecated": True, "required": True,
          "description": "a header"}
MEDIA: dict[str, Any] = {
    "x-m": 1,
    "encoding": {"kind": {"x-enc": 1, "allowReserved": True, "explode": True, "style": "form",
                          "headers": {"X-Part": HEADER, "X-Ref": {"$ref": "#/components/headers/X"}},
                          "contentType": "text/plain"}},
    "examples": {"one": EXACT_EXAMPLE, "two": {"$ref": "#/components/examples/Two"},
                 "three": {"summary": "beside a reference", "$ref": "#/components/examples/Three"}},
    "example": {"kind": "a", "none": None},
    "schema": {"$ref": REF + "Probe"},
}
PARAMETER = {"x-p": 1, "content": {"application/json": MEDIA}, "examples": {"one": EXAMPLE}, "example": 5,
             "schema": {"type": "integer", "minimum": 0}, "allowReserved": True, "explode": True, "style": "form",
             "allowEmptyValue": True, "deprecated": False, "required": False, "description": "extra parameter",
             "in": "query", "name": "extra"}
LINK = {"x-l": 1, "server": {"url": "https://l.example.com"}, "description": "a link", "requestBody": {"a": 1},
        "parameters": {"id": "$response.body#/id"}, "operationId": "probe", "operationRef": "#/paths/~1probe/get"}
RESPONSE = {"x-r": 1, "links": {"self": LINK, "other": {"$ref": "#/components/links/L"}},
            "content": {"application/json": MEDIA}, "headers": {"X-Rate": HEADER, "X-Ref": {
                "description": "beside a reference", "$ref": "#/components/headers/H"}}, "description": "probed"}
RAW_RESPONSE = {**RESPONSE, "content": {"application/json": {**MEDIA, "examples": {"ext": EXAMPLE}}}}
# The keywords a checked place takes as they are, and $ref (with siblings) where pydantic does not look.
EXACT_SCHEMA = {k: v for k, v in ALL_SCHEMA_KEYWORDS.items() if k not in ("externalDocs", "dependentRequired",
                                                                       "allOf", "if")}
EXACT_SCHEMA.update({"allOf": [{"description": "x", "$ref": REF + "Plain"}], "if": {"type": "integer"},
                     "$ref": REF + "Plain"})
SERVER = {"x-sv": 1, "variables": {"v": {"x-v": 1, "description": "var", "default": "a", "enum": ["a", "b"]}},
          "description": "templated", "url": "https://{v}.example.com"}
OPERATION_EXTRA: dict[str, Any] = {
    "x-op": {"nested": None, "kept": [None, 1]},
    "servers": [SERVER],
    "security": [{"key": []}, {}],
    "callbacks": {"onEvent": {"{$request.body#/url}": {
        "x-pi": 1,
        "parameters": [PARAMETER],
        "servers": [{"url": "/cb"}],
        "trace": {"responses": {"200": {"description": "ok"}}},
        "post": {"x-o": 1, "responses": {"200": {"description": "ok"}}, "requestBody": {
            "x-rb": 1, "required": True, "content": {"application/json": MEDIA}, "description": "cb body"},
            "summary": "cb"},
        "get": {"responses": {"default": RESPONSE}, "operationId": "cb-get"},
        "description": "callback item",
        "summary": "cb item",
        "$ref": "#/components/pathItems/P"}}, "ref": {"$ref": "#/components/callbacks/C"}},
    "parameters": [PARAMETER, {"$ref": "#/components/parameters/P"}],
    "externalDocs": {"x-e": 1, "url": "https://example.com/op", "description": "op docs"},
    "description": "probe operation",
    "requestBody": {"x-rb": 1, "required": False, "content": {"application/json": MEDIA}, "description": "body"},
}


CALLBACK_ITEM = {
    "x-pi": 1,
    "parameters": [{"$ref": "#/components/parameters/P"}],
    "servers": [{"url": "/cb"}],
    "trace": {"responses": {"200": {"description": "ok"}}},
    "post": {"x-o": 1, "responses": {"200": {"description": "ok"}, "201": RAW_RESPONSE}, "requestBody": {
        "x-rb": 1, "required": True, "content": {"application/json": MEDIA}, "description": "cb body"},
        "summary": "cb"},
    "get": {"responses": {"default": RESPONSE}, "operationId": "cb-get"},
    "description": "callback item",
    "summary": "cb item",
    "$ref": "#/components/pathItems/P"}
# A path item without parameter objects or URLs: reordered (but response 202, 205 and 206, published as built).
CHECKED_EXTRA: dict[str, Any] = {
    "x-op": {"nested": None, "kept": [None, 1]},
    "servers": [SERVER],
    "security": [{"key": []}, {}],
    "deprecated": True,
    "callbacks": {"onEvent": {"{$request.body#/url}": CALLBACK_ITEM}, "ref": {"$ref": "#/components/callbacks/C"}},
    "parameters": [{"$ref": "#/components/parameters/P", "description": "dropped"}],
    "requestBody": {"x-rb": 1, "required": False, "content": {"application/json": MEDIA}, "description": "body"},
    "responses": {
        "200": {"content": {"application/json": {"example": 1}}},
        "201": RESPONSE,
        "202": RAW_RESPONSE,
        "203": {"x-a": 1, "$ref": "#/components/responses/R"},
        "204": {"description": "schemas", "content": {"application/json": {"schema": EXACT_SCHEMA}, "text/plain": {
            "schema": {"description": "beside a reference", "$ref": REF + "Plain"}}}},
        "205": {"description": "a keyword out of place", "content": {"a/b": {"schema": {
            "x-z": 1, "items": {"dependentRequired": {"a": ["b"]}, "maxLength": 2}, "type": "array"}}}},
        "206": {"description": "an integer keyword as a float", "content": {"a/b": {"schema": {
            "x-z": 1, "maxLength": 2.0, "minimum": 1}}}},
    },
    "description": "checked operation",
    "summary": "Checked",
    "tags": ["probe"],
}
# A request body reference with siblings (a bare reference), operation keys in reverse order.
REFERENCE_EXTRA = {"x-r": None, "servers": [{"url": "/r", "description": None}], "operationId": "refs",
                   "requestBody": {"description": "dropped", "$ref": "#/components/requestBodies/B"}}


def build(fw: Any, **app_options: Any) -> Any:
    """The probe app, built with fw.FastAPI / fw.Query ... (the same code for both frameworks)."""
    app = fw.FastAPI(
        version="1.0", title="Probe", description="probes", summary="s",
        terms_of_service="https://example.com",
        contact={"x-c": 1, "email": "ops@example.com", "url": "https://Example.com", "name": "Ops"},
        license_info={"x-l": 1, "url": "https://example.com", "name": "MIT", "identifier": "MIT"},
        servers=[SERVER, {"url": "/"}],
        openapi_tags=[{"x-t": 1, "externalDocs": {"description": "tag docs", "url": "HTTPS://EXAMPLE.com"},
                       "description": "tagged", "name": "probe"}, {"name": "bare"}],
        openapi_external_docs={"x-d": 1, "url": "https://example.com/docs", "description": "docs"},
        **app_options)

    @app.post("/probe/{pid}", tags=["probe"], openapi_extra=OPERATION_EXTRA,
              responses={"default": RESPONSE, 201: {"model": Plain, "description": "made"},
                         "4XX": {"$ref": "#/components/responses/Bad"}})
    def probe(pid: Annotated[int, fw.Path(ge=0, description="id")], body: Probe,
              q: Annotated[float | None, fw.Query(gt=0, le=1e3, examples=[1.5])] = None) -> Plain:
        return Plain(n=3)

    @app.put("/checked", openapi_extra=CHECKED_EXTRA, responses={"default": RESPONSE, 299: {"model": Plain}})
    def checked() -> Plain:
        return Plain(n=3)

    @app.post("/blob")
    def blob(item: Blob) -> Blob:
        return item

    @app.get("/references", openapi_extra=REFERENCE_EXTRA, deprecated=True, description="refs")
    def references() -> list[Plain]:
        return []

    @app.get("/docs-link", openapi_extra={"externalDocs": {"url": "https://example.com"}, "x-a": 1})
    def docs_link() -> dict[str, float]:
        return {}

    @app.get("/plain", openapi_extra={"security": [{"key": ["a"]}], "x-none": None,
                                      "responses": {"200": {"content": {"application/json": {"example": 1}}}}})
    def plain(p: Annotated[int, fw.Query(openapi_examples={"a": {"value": 1, "summary": "A", "x-q": None}})] = 1,
              ) -> dict[str, Any]:
        return {}

    return app
