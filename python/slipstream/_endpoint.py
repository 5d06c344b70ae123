"""Wraps a handler that takes Form()/File()/UploadFile parameters or `yield`s, so the rest of the route machinery
sees an ordinary handler: form fields leave its signature (the wrapper takes the Request instead, parses the
body in C++ and validates the fields), and a generator's items become a streamed response (JSON Lines by
default, Server-Sent Events with response_class=EventSourceResponse), as FastAPI does."""

from __future__ import annotations

import collections.abc
import functools
import inspect
import json
import math
import typing
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import TypeAdapter

from . import forms
from ._encoders import encode_fallback
from .exceptions import RequestValidationError
from .requests import Request
from .responses import Response, StreamingResponse
from .sse import EventSourceResponse, ServerSentEvent, format_sse_event

REQUEST_ARG = "__slipstream_form_request__"
# Set on the Response made from a generator handler's items: like FastAPI, the route applies the status and
# headers that dependencies set on the injected Response to it (dependencies/runner.py).
FROM_GENERATOR = "_slipstream_from_generator"
_STREAM_ORIGINS = {collections.abc.AsyncIterable, collections.abc.AsyncIterator, collections.abc.AsyncGenerator,
                   collections.abc.Iterable, collections.abc.Iterator, collections.abc.Generator}


def _hints(call: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(call, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable hints: the signature's own annotations
        return {}


def stream_item_type(annotation: Any) -> Any:
    """FastAPI's get_stream_item_type: T of AsyncIterable[T], Iterator[T], Generator[T, ...], ...; else None."""
    origin = typing.get_origin(annotation)
    if origin in _STREAM_ORIGINS:
        args = typing.get_args(annotation)
        return args[0] if args else Any
    return None


def jsonable(value: Any) -> Any:
    """FastAPI's jsonable_encoder for stream items (non-finite floats become None, as FastAPI normalizes them)."""
    if value is None or type(value) in (str, int, bool):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else None
    if type(value) is dict:
        return {jsonable(k): jsonable(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [jsonable(v) for v in value]
    return jsonable(encode_fallback(value))


def _item_serializer(item_type: Any) -> Callable[[Any], bytes]:
    if item_type is None or item_type is Any:
        return lambda item: json.dumps(jsonable(item)).encode("utf-8")
    adapter: TypeAdapter[Any] = TypeAdapter(item_type)

    def serialize(item: Any) -> bytes:
        value = adapter.validate_python(item, from_attributes=True)
        return adapter.dump_json(value, by_alias=True)

    return serialize


def _sse_serializer(item_type: Any) -> Callable[[Any], bytes]:
    plain = _item_serializer(None if item_type is not None and _is_sse_event(item_type) else item_type)

    def serialize(item: Any) -> bytes:
        if isinstance(item, ServerSentEvent):
            if item.raw_data is not None:
                data: str | None = item.raw_data
            elif item.data is not None:
                dump = getattr(item.data, "model_dump_json", None)
                data = dump() if dump is not None else json.dumps(jsonable(item.data))
            else:
                data = None
            return format_sse_event(data_str=data, event=item.event, id=item.id, retry=item.retry,
                                    comment=item.comment)
        return format_sse_event(data_str=plain(item).decode("utf-8"))

    return serialize


def _is_sse_event(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, ServerSentEvent)


def _map_async(gen: Any, fn: Callable[[Any], bytes]) -> Any:
    async def mapped() -> Any:
        try:
            async for item in gen:
                yield fn(item)
        finally:
            await gen.aclose()

    return mapped()


def _map_sync(gen: Any, fn: Callable[[Any], bytes]) -> Any:
    def mapped() -> Any:
        try:
            for item in gen:
                yield fn(item)
        finally:
            gen.close()

    return mapped()


def _streamer(endpoint: Any, response_class: Any, status_code: int | None) -> Callable[[Any], Response]:
    """Turns the generator a call returned into the route's streamed response."""
    is_async = inspect.isasyncgenfunction(endpoint)
    item_type = stream_item_type(_hints(endpoint).get("return"))
    status = status_code or 200
    if response_class is not None and issubclass(response_class, EventSourceResponse):
        serialize = _sse_serializer(item_type)
        cls: Any = response_class
    elif response_class is None:
        item = _item_serializer(None if item_type is None or _is_sse_event(item_type) else item_type)

        def serialize(value: Any) -> bytes:
            return item(value) + b"\n"

        cls = None
    else:  # raw chunks into the given class (StreamingResponse and friends)
        cls = response_class
        serialize = None

    def build(gen: Any) -> Response:
        if serialize is None:
            response = cls(content=gen, status_code=status)
        else:
            body = _map_async(gen, serialize) if is_async else _map_sync(gen, serialize)
            if cls is None:
                response = StreamingResponse(body, status_code=status, media_type="application/jsonl")
            else:
                response = cls(body, status_code=status)
        setattr(response, FROM_GENERATOR, True)
        return response

    return build


def wrap(endpoint: Callable[..., Any], *, response_class: Any = None, status_code: int | None = None,
         form_limits: Mapping[str, int] | None = None) -> Callable[..., Any]:
    """`endpoint` itself when it needs nothing of this, else a wrapper (with `__wrapped__`, `__signature__`)."""
    if getattr(endpoint, "__slipstream_endpoint__", None) is not None:
        return endpoint
    limits = forms.check_limits(form_limits)
    signature = inspect.signature(endpoint)
    hints = _hints(endpoint)
    fields = forms.signature_fields(list(signature.parameters.values()), hints)
    generator = inspect.isasyncgenfunction(endpoint) or inspect.isgeneratorfunction(endpoint)
    if not fields and not generator:
        return endpoint
    stream = _streamer(endpoint, response_class, status_code) if generator else None
    names = {f.name for f in fields}

    def solve(kwargs: dict[str, Any]) -> dict[str, Any]:
        if not fields:
            return kwargs
        request = kwargs.pop(REQUEST_ARG)
        app_limits = getattr(getattr(request, "app", None), "form_limits", None) or {}
        form = forms.parse_body(request, {**app_limits, **limits})
        try:
            kwargs.update(forms.solve_fields(fields, form))
        except RequestValidationError:
            form.close_sync()
            raise
        return kwargs

    if stream is not None:
        def wrapper(**kwargs: Any) -> Any:
            return stream(endpoint(**solve(kwargs)))
    elif inspect.iscoroutinefunction(endpoint):
        async def wrapper(**kwargs: Any) -> Any:  # type: ignore[misc]
            kwargs = solve(kwargs)
            try:
                return await endpoint(**kwargs)
            finally:
                _close_uploads(kwargs, names)
    else:
        def wrapper(**kwargs: Any) -> Any:  # type: ignore[misc]
            kwargs = solve(kwargs)
            try:
                return endpoint(**kwargs)
            finally:
                _close_uploads(kwargs, names)

    functools.update_wrapper(wrapper, endpoint)
    kept = [p for p in signature.parameters.values() if p.name not in names]
    annotations = {p.name: hints.get(p.name, p.annotation) for p in kept if p.name in hints}
    if fields:
        request_param = inspect.Parameter(REQUEST_ARG, inspect.Parameter.KEYWORD_ONLY, annotation=Request)
        tail = [p for p in kept if p.kind is inspect.Parameter.VAR_KEYWORD]
        kept = [p for p in kept if p.kind is not inspect.Parameter.VAR_KEYWORD] + [request_param] + tail
        annotations[REQUEST_ARG] = Request
    returns = signature.return_annotation
    if stream is not None:
        returns = annotations["return"] = Response  # the wrapper returns the streamed Response: no response_model
    elif "return" in hints:
        annotations["return"] = hints["return"]
    wrapper.__signature__ = signature.replace(parameters=kept, return_annotation=returns)  # type: ignore[attr-defined]
    wrapper.__annotations__ = annotations
    wrapper.__slipstream_endpoint__ = endpoint  # type: ignore[attr-defined]
    wrapper.__slipstream_form_fields__ = tuple(fields)  # type: ignore[attr-defined]
    return wrapper


def _close_uploads(kwargs: dict[str, Any], names: set[str]) -> None:
    """FastAPI closes the uploads once the handler is done with them."""
    for name in names:
        value = kwargs.get(name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, forms.UploadFile):
                item.file.close()


__all__ = ["FROM_GENERATOR", "REQUEST_ARG", "jsonable", "stream_item_type", "wrap"]
