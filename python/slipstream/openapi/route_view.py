"""RouteView: a route as FastAPI's APIRoute describes it to OpenAPI (name, unique id, fields, response rules)."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

from pydantic import create_model
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from .. import forms
from .._endpoint import stream_item_type
from .._responses_prep import Default
from .._streaming_responses import EventSourceResponse
from ..responses import JSONResponse, Response
from ..sse import ServerSentEvent
from . import dependant as dep
from .fields import ModelField


def generate_unique_id(route: RouteView) -> str:
    """FastAPI's default operationId: name + path, non-word characters as "_", then the first method."""
    operation_id = re.sub(r"\W", "_", f"{route.name}{route.path_format}")
    return f"{operation_id}_{route.methods[0].lower()}"


def _return_annotation(endpoint: Callable[..., Any]) -> Any:
    try:
        annotation = inspect.signature(endpoint).return_annotation
    except (TypeError, ValueError):
        return None
    if annotation is inspect.Signature.empty or annotation is None:
        return None
    if not isinstance(annotation, str):
        return annotation
    try:  # a string annotation (from __future__ import annotations)
        annotation = typing.get_type_hints(endpoint, include_extras=True).get("return")
    except Exception:  # noqa: BLE001 - unresolvable: no response model
        return None
    return None if annotation is type(None) else annotation


def _is_subclass(tp: Any, cls: type) -> bool:
    return isinstance(tp, type) and issubclass(tp, cls)


def _is_response_class(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Response)


def response_field(name: str, annotation: Any) -> ModelField:
    return ModelField(field_info=FieldInfo(annotation=annotation), name=name, mode="serialization")


@dataclasses.dataclass
class RouteView:
    """What the generator reads of a route. Built by from_route(); custom generate_unique_id_function callables
    get this object (it has FastAPI's attribute names: name, path, path_format, methods, tags, endpoint)."""

    path: str
    endpoint: Callable[..., Any]
    methods: list[str]
    name: str
    path_format: str = ""
    tags: list[Any] = dataclasses.field(default_factory=list)
    status_code: int | None = None
    response_class: Any = JSONResponse
    response_model: Any = None
    summary: str | None = None
    description: str = ""
    response_description: str = "Successful Response"
    responses: dict[Any, dict[str, Any]] = dataclasses.field(default_factory=dict)
    deprecated: bool | None = None
    operation_id: str | None = None
    include_in_schema: bool = True
    openapi_extra: dict[str, Any] | None = None
    unique_id: str = ""
    dependant: dep.Dependant | None = None
    body_field: ModelField | None = None
    response_field: ModelField | None = None
    response_fields: dict[Any, ModelField] = dataclasses.field(default_factory=dict)
    callbacks: list[RouteView] = dataclasses.field(default_factory=list)  # `callbacks=`: the routes of a router
    # A generator handler: streamed as Server-Sent Events (response_class=EventSourceResponse) or JSON Lines (no
    # response_class); `stream_item_field` is the T of its AsyncIterable[T]/Iterator[T] return annotation.
    is_sse_stream: bool = False
    is_json_stream: bool = False
    stream_item_field: ModelField | None = None


def from_route(route: Any) -> RouteView:
    """A RouteView of a slipstream RouteDef (routing.py), following FastAPI's APIRoute constructor."""
    options = dict(route.options)
    endpoint = route.endpoint
    name = options.get("name") or getattr(endpoint, "__name__", type(endpoint).__name__)
    view = RouteView(path=route.path, endpoint=endpoint, methods=[m.upper() for m in route.methods], name=name,
                     path_format=dep.path_format(route.path), tags=list(route.tags),
                     status_code=int(route.status_code) if route.status_code is not None else None,
                     response_class=route.response_class or JSONResponse,
                     summary=options.get("summary"),
                     response_description=options.get("response_description") or "Successful Response",
                     responses=dict(options.get("responses") or {}), deprecated=options.get("deprecated"),
                     operation_id=options.get("operation_id"),
                     include_in_schema=options.get("include_in_schema", True),
                     openapi_extra=options.get("openapi_extra"))
    unique = options.get("generate_unique_id_function") or generate_unique_id
    view.unique_id = view.operation_id or unique(view)
    view.callbacks = [from_route(callback) for callback in options.get("callbacks") or []]
    description = options.get("description") or inspect.cleandoc(getattr(endpoint, "__doc__", None) or "")
    view.description = description.split("\f")[0].strip()
    for code, extra in view.responses.items():
        if isinstance(extra, dict) and extra.get("model"):
            view.response_fields[code] = response_field(f"Response_{code}_{view.unique_id}", extra["model"])
    view.dependant = dep.get_dependant(endpoint, view.path_format)
    for depends in reversed(list(getattr(route, "dependencies", None) or options.get("dependencies") or [])):
        view.dependant.dependencies.insert(0, dep.sub_dependant(depends, None, view.path_format, []))
    view.body_field = _body_field(dep.flat_body(view.dependant), view.unique_id)
    original = inspect.unwrap(endpoint)
    is_generator = inspect.isasyncgenfunction(original) or inspect.isgeneratorfunction(original)
    view.is_sse_stream = is_generator and _is_subclass(route.response_class, EventSourceResponse)
    view.is_json_stream = is_generator and route.response_class is None
    model = route.response_model
    if model is Default:
        model = _return_annotation(original if is_generator else endpoint)  # the wrapper of a stream returns Response
        item = stream_item_type(model)
        if _is_response_class(typing.get_origin(model) or model):
            model = None
        elif item is not None and is_generator:
            if (view.is_sse_stream or view.is_json_stream) and not _is_subclass(item, ServerSentEvent):
                view.stream_item_field = response_field("StreamItem_" + view.unique_id, item)
            model = None
    view.response_model = model
    if model:
        view.response_field = response_field("Response_" + view.unique_id, model)
    return view


def _body_field(body: list[ModelField], unique_id: str) -> ModelField | None:
    """The request body: the one body parameter, or a Body_<unique_id> model of several (or of embedded ones)."""
    if not body:
        return None
    first = body[0]
    first_marker = getattr(first, "marker", None)
    if isinstance(first_marker, forms.FormParam):  # a form field is embedded unless it is a model
        embed = len({f.name for f in body}) > 1 or forms.model_of_form(first.field_info.annotation) is None
    else:
        embed = len({f.name for f in body}) > 1 or bool(getattr(first_marker, "embed", False))
    if not embed:
        return first
    fields = {f.name: (f.field_info.annotation, f.field_info) for f in body}
    model = create_model("Body_" + unique_id, **fields)  # type: ignore[call-overload]
    required = any(f.required for f in body)
    info = FieldInfo(annotation=model, alias="body", default=PydanticUndefined if required else None)
    field = ModelField(field_info=info, name="body")
    field.media_type = _body_media_type([getattr(f, "marker", None) for f in body])  # type: ignore[attr-defined]
    return field


def _body_media_type(markers: list[Any]) -> str:
    """FastAPI's: multipart when a File() is among them (or a Form() says so), else the one media type they share,
    else JSON."""
    if any(isinstance(m, forms.FileParam) for m in markers):
        return "multipart/form-data"
    media_types = [getattr(m, "media_type", "application/json") for m in markers]
    if any(isinstance(m, forms.FormParam) for m in markers):
        media_types = [getattr(m, "media_type", "") for m in markers if isinstance(m, forms.FormParam)]
        if "multipart/form-data" in media_types:
            return "multipart/form-data"
    return media_types[0] if len(set(media_types)) == 1 else "application/json"


def media_type_of(field: ModelField) -> str:
    explicit = getattr(field, "media_type", None)
    if explicit:
        return str(explicit)
    return str(getattr(getattr(field, "marker", None), "media_type", None) or "application/json")
