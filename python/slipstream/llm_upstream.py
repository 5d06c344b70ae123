"""Routes that call an OpenAI-compatible upstream and stream its output validated against a model, in C++
(agent/llm_proxy): no request takes the GIL.

    from pydantic import BaseModel
    from slipstream import App
    from slipstream.llm_upstream import Upstream

    class Person(BaseModel):
        name: str
        age: int

    app = App()
    openai = Upstream("https://api.openai.com", api_key=os.environ["OPENAI_API_KEY"], model="gpt-4o-mini")
    app.llm_proxy("/v1/person", Person, upstream=openai)   # POST: an OpenAI chat completion request

A POST to the route takes an OpenAI chat completion request (messages, model, temperature, ...), forwards it with
"stream": true and a `response_format` naming the model's JSON Schema, and streams to the client (SSE or NDJSON) the
value so far after each piece, then the complete document, or an error event with the JSON pointer, byte offset and
schema keyword as soon as the output can no longer be valid; the upstream call is cut then, and when the client goes
away. Failures before streaming are statuses with an OpenAI-style body (400, 413, the upstream's 4xx, 502, 503, 504).
docs/llm-proxy.md describes the events and statuses.

A handler that builds the upstream request itself returns `await upstream.stream(Person, body)`: the same call and
validation in C++, the events handed to the response through the loop; or, the same, it returns the request and is
declared with `@app.post(path, response_stream=Person, upstream=openai)`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import re
import weakref
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal

from . import _native
from ._core.response import Response
from ._streaming_responses import EventSourceResponse, StreamingResponse

__all__ = ["LlmRoute", "Upstream", "upstream_endpoint"]

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _ms(seconds: float | None, name: str, *, zero_is_none: bool = False) -> int:
    if seconds is None and zero_is_none:
        return 0
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise ValueError(f"{name} must be a positive number of seconds")
    return max(1, round(seconds * 1000))


class Upstream:
    """One OpenAI-compatible upstream (OpenAI, vLLM, llama.cpp's server, `slipstream serve-model`, ...): its
    connection pool (keep-alive, TLS checked against the system CA store or `ca_file`) and the client thread its
    calls run on. `api_key` is sent as "Authorization: Bearer ..." (a client's own fields are never forwarded);
    `model` fills a request's "model" when it names none. Timeouts are in seconds: `first_byte_timeout` until the
    upstream's response head (504), `idle_timeout` between two pieces of its stream, `total_timeout` one whole call
    (None: none). `max_connections` calls run at once, `max_waiting` more wait (then 503). `http2`: "auto" (HTTP/2
    when an https upstream chooses it by ALPN), "off", or "prior-knowledge" (HTTP/2 at once, h2c on http://); over
    HTTP/2 the calls share one connection, `max_streams` at once. A base_url that is not an
    absolute http(s) URL, a bad value or a CA file that cannot be loaded raise ValueError. Share one Upstream between
    routes; it lives as long as the routes that use it."""

    def __init__(self, base_url: str, *, api_key: str | None = None, model: str | None = None,
                 chat_path: str = "/v1/chat/completions", headers: Mapping[str, str] | None = None,
                 verify_tls: bool = True, ca_file: str | None = None, connect_timeout: float = 10.0,
                 first_byte_timeout: float = 60.0, idle_timeout: float = 60.0, total_timeout: float | None = None,
                 max_connections: int = 64, max_waiting: int = 1024,
                 http2: Literal["auto", "off", "prior-knowledge"] = "auto", max_streams: int = 100) -> None:
        options: dict[str, Any] = {
            "base_url": base_url, "chat_path": chat_path, "verify_tls": verify_tls,
            "headers": [(str(k), str(v)) for k, v in (headers or {}).items()],
            "connect_timeout_ms": _ms(connect_timeout, "connect_timeout"),
            "first_byte_timeout_ms": _ms(first_byte_timeout, "first_byte_timeout"),
            "idle_timeout_ms": _ms(idle_timeout, "idle_timeout"),
            "total_timeout_ms": _ms(total_timeout, "total_timeout", zero_is_none=True),
            "max_connections": max_connections, "max_waiting": max_waiting, "http2": http2,
            "max_streams": max_streams,
        }
        if api_key:
            options["api_key"] = api_key
        if ca_file:
            options["ca_file"] = ca_file
        self.base_url = base_url
        self.model = model
        self.native = _native.NativeLlmProxy(options)

    async def stream(self, schema: Any, body: Any, *, format: Literal["sse", "ndjson"] = "sse",
                     partial: bool = True, model: str | None = None, response_format: bool = True,
                     strict: bool = True, schema_name: str | None = None, max_output_bytes: int = 1 << 20,
                     max_buffered: int = 64, headers: Mapping[str, str] | None = None) -> Response:
        """From a handler: `return await upstream.stream(Person, body)`. Calls the upstream with `body` (an OpenAI
        chat completion request as a dict, a pydantic model or its JSON text; built in Python) and returns, once the
        upstream answered, a streamed Response of the output validated against `schema` (SSE or NDJSON, the events
        of an App.llm_proxy route), or the refusal as an OpenAI-style JSON error with its status (400, the upstream's
        4xx, 502, 503, 504). The call and its validation run in C++; its events reach the response through the
        loop. More than `max_buffered` events not yet sent pause reading the upstream until half are sent; a client
        that goes away (or a handler cancelled while waiting) cancels the call."""
        if format not in ("sse", "ndjson"):
            raise ValueError("format must be 'sse' or 'ndjson'")
        if isinstance(max_buffered, bool) or not isinstance(max_buffered, int) or max_buffered < 2:
            raise ValueError("max_buffered must be an integer of at least 2")
        name, compiled = _prepared(schema)
        options: dict[str, Any] = {
            "events": "partial" if partial else "delta", "add_response_format": response_format, "strict": strict,
            "schema_name": schema_name or name, "max_output_bytes": max_output_bytes,
        }
        if model or self.model:
            options["default_model"] = model or self.model
        if hasattr(body, "model_dump"):  # a pydantic model of the request
            body = body.model_dump(mode="json", exclude_none=True)
        request = body if isinstance(body, (str, bytes)) else json.dumps(body)
        request = request.decode() if isinstance(request, bytes) else request
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, str, int, str]] = asyncio.Queue()

        def sink(kind: str, payload: str, status: int, retry_after: str) -> None:  # the proxy's thread
            try:
                loop.call_soon_threadsafe(queue.put_nowait, (kind, payload, status, retry_after))
            except RuntimeError:  # the loop is closed: nobody is listening any more
                pass

        call = self.native.start(request, compiled, options, sink)
        try:
            kind, payload, status, retry_after = await queue.get()
        except BaseException:
            call.cancel()
            raise
        if kind == "refused":
            extra = {"retry-after": retry_after} if retry_after else {}
            return Response(payload.encode(), status_code=status, media_type="application/json",
                            headers={**extra, **(headers or {})})
        events = _events(call, queue, format, max_buffered)
        weakref.finalize(events, call.cancel)  # a response dropped before it was sent stops the call too
        if format == "sse":
            return EventSourceResponse(events, headers=headers)
        fields = {"cache-control": "no-cache", "x-accel-buffering": "no", **(headers or {})}
        return StreamingResponse(events, headers=fields, media_type="application/x-ndjson")

    def stats(self) -> dict[str, int]:
        """Counters of the calls made through this upstream: started, refused (ended before streaming), completed,
        invalid (output that could not satisfy the schema), failed (the upstream failed mid-stream), cancelled (the
        client went away), active."""
        return dict(self.native.stats())

    def __repr__(self) -> str:
        return f"Upstream({self.base_url!r})"


_SCHEMA_CACHE: dict[str, Any] = {}
_SCHEMA_CACHE_SIZE = 64


def _prepare(schema: Any) -> tuple[str, Any]:
    """(the schema's name, the schema compiled)."""
    plain, name, _ = _schemas(schema)
    return name, _compiled(json.dumps(plain))


_prepare_type = functools.lru_cache(maxsize=_SCHEMA_CACHE_SIZE)(_prepare)  # a type: its schema made once


def _prepared(schema: Any) -> tuple[str, Any]:
    try:
        hash(schema)
    except TypeError:  # a dict
        return _prepare(schema)
    return _prepare_type(schema)


def _compiled(text: str) -> Any:
    """The schema compiled once (the last _SCHEMA_CACHE_SIZE kept)."""
    found = _SCHEMA_CACHE.pop(text, None) or _native.NativeLlmSchema(text)
    _SCHEMA_CACHE[text] = found  # most recent last
    while len(_SCHEMA_CACHE) > _SCHEMA_CACHE_SIZE:
        del _SCHEMA_CACHE[next(iter(_SCHEMA_CACHE))]
    return found


async def _events(call: Any, queue: asyncio.Queue[tuple[str, str, int, str]], format: str,
                  max_buffered: int) -> AsyncIterator[bytes]:
    """The call's events as SSE or NDJSON bytes; reading the upstream pauses while max_buffered wait here."""
    paused = False
    try:
        while True:
            if paused and queue.qsize() <= max_buffered // 2:
                call.resume()
                paused = False
            kind, payload, _, _ = await queue.get()
            if not paused and queue.qsize() >= max_buffered:
                call.pause()
                paused = True
            if format == "sse":
                yield b"event: %s\ndata: %s\n\n" % (kind.encode(), payload.encode())
            else:
                yield b'{"type":"%s","value":%s}\n' % (kind.encode(), payload.encode())
            if kind in ("complete", "error", "tool_calls"):  # the final event
                return
    finally:
        if not call.done():
            call.cancel()


def _schemas(schema: Any) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """(the JSON Schema validated against, the name sent upstream, the OpenAPI form: a $ref into components with
    the schemas it names)."""
    if isinstance(schema, Mapping):
        plain = dict(schema)
        title = str(plain.get("title") or "output")
        return plain, title if _NAME.match(title) else "output", {"schema": plain, "components": {}}
    from pydantic import TypeAdapter

    adapter = TypeAdapter(schema)
    plain = adapter.json_schema()
    documented = adapter.json_schema(ref_template="#/components/schemas/{model}")
    components = documented.pop("$defs", {})
    title = str(documented.get("title") or getattr(schema, "__name__", "") or "output")
    if _NAME.match(title):
        components[title] = documented
        ref: dict[str, Any] = {"$ref": f"#/components/schemas/{title}"}
    else:
        ref, title = documented, "output"
    return plain, title, {"schema": ref, "components": components}


_CHAT_REQUEST = {
    "type": "object",
    "title": "ChatCompletionRequest",
    "description": "An OpenAI chat completion request, forwarded with \"stream\": true (and \"model\" and "
                   "\"response_format\" filled in when absent); \"n\" must be 1.",
    "required": ["messages"],
    "properties": {
        "messages": {"type": "array", "items": {
            "type": "object", "required": ["role"],
            "properties": {"role": {"type": "string"}, "content": {}}, "additionalProperties": True}},
        "model": {"type": "string"},
        "temperature": {"type": "number"},
        "max_tokens": {"type": "integer"},
        "response_format": {"type": "object"},
    },
    "additionalProperties": True,
}

_ERROR_BODY = {"type": "object", "properties": {"error": {
    "type": "object", "properties": {"message": {"type": "string"}, "type": {"type": "string"},
                                     "code": {"type": ["string", "null"]}}}}}


class LlmRoute:
    """POST `path` served by the engine: the upstream call and its validated stream (App.llm_proxy makes one;
    `app.mount(path, route)` works too). `schema`: a pydantic model, any type pydantic accepts, or a JSON Schema
    dict. `format`: "sse" (`text/event-stream`, event names partial / delta, complete, error) or "ndjson"
    (`application/x-ndjson`, {"type", "value"} per line). `partial=False`: "delta" events with the raw text pieces
    instead of the value so far. `response_format=False`: the request is forwarded without the json_schema
    response_format (for an upstream that does not take one); `strict` is sent in it. `max_output_bytes` bounds
    the document (then an error event, keyword "maxBytes"), `max_request_bytes` the client's body (413). A schema
    that does not compile raises ValueError here."""

    def __init__(self, schema: Any, upstream: Upstream, *, format: Literal["sse", "ndjson"] = "sse",
                 partial: bool = True, model: str | None = None, response_format: bool = True, strict: bool = True,
                 schema_name: str | None = None, max_output_bytes: int = 1 << 20, max_request_bytes: int = 1 << 20,
                 summary: str | None = None, description: str | None = None, tags: Sequence[str] | None = None,
                 include_in_schema: bool = True) -> None:
        if not isinstance(upstream, Upstream):
            raise TypeError(f"upstream must be a slipstream.llm_upstream.Upstream, not {type(upstream).__name__}")
        if format not in ("sse", "ndjson"):
            raise ValueError("format must be 'sse' or 'ndjson'")
        plain, name, self._documented = _schemas(schema)
        self.schema = plain
        text = json.dumps(plain)
        _native.NativeStreamValidator(text, 64, 1 << 20)  # a schema that does not compile fails here, not at start
        self.upstream = upstream
        self.format = format
        self.route: dict[str, Any] = {
            "schema": text, "format": format, "events": "partial" if partial else "delta",
            "add_response_format": response_format, "strict": strict, "schema_name": schema_name or name,
            "max_output_bytes": max_output_bytes, "max_request_bytes": max_request_bytes,
        }
        if model or upstream.model:
            self.route["default_model"] = model or upstream.model
        self.path: str | None = None
        self.summary = summary
        self.description = description
        self.tags = list(tags or [])
        self.include_in_schema = include_in_schema

    def install_native(self, native_app: Any, runtime: Any, path: str) -> None:
        """App.mount's hook: POST `path` on the native app, answered in C++."""
        self.path = path
        self.upstream.native.mount(native_app, path, self.route)

    @property
    def openapi(self) -> dict[str, Any] | None:
        """The route's OpenAPI paths and schemas (merged into the App's document)."""
        if self.path is None or not self.include_in_schema:
            return None
        media = "text/event-stream" if self.format == "sse" else "application/x-ndjson"
        kind = "partial" if self.route["events"] == "partial" else "delta"
        stream = ("SSE events (`event:` the kind, `data:` compact JSON)" if self.format == "sse"
                  else "NDJSON lines ({\"type\": kind, \"value\": payload})")
        ok = (f"{stream}: `{kind}` after each piece of the upstream's output, then `complete` (the document, valid "
              "against the schema) or `error` ({offset, pointer, keyword, message}); `usage` before it when the "
              "upstream sent token counts; `tool_calls` instead of `complete` when the request named tools and the "
              "model called them (their arguments validated against the tools' parameters).")
        error = {"description": "an OpenAI-style error", "content": {"application/json": {"schema": _ERROR_BODY}}}
        operation: dict[str, Any] = {
            "summary": self.summary or "Validated LLM stream",
            "operationId": "llm_proxy_" + re.sub(r"\W", "_", self.path).strip("_"),
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": {"$ref": _REQUEST_REF}}}},
            "responses": {
                "200": {"description": ok, "content": {media: {"schema": {"type": "string"},
                                                               "x-document": self._documented["schema"]}}},
                "400": error, "413": error, "502": error, "503": error, "504": error,
            },
        }
        if self.description:
            operation["description"] = self.description
        if self.tags:
            operation["tags"] = self.tags
        components = {"ChatCompletionRequest": _CHAT_REQUEST, **self._documented["components"]}
        return {"paths": {self.path: {"post": operation}}, "components": {"schemas": components}}


_REQUEST_REF = "#/components/schemas/ChatCompletionRequest"


def upstream_endpoint(endpoint: Any, schema: Any, upstream: Upstream) -> Any:
    """`@app.post(..., response_stream=Model, upstream=Upstream(...))`: the handler returns the upstream request (a
    chat completion request as a dict, or its JSON text) and the route answers `await upstream.stream(Model,
    request)`. The wrapper keeps the handler's parameters (dependencies, body, query); a schema that does not compile
    or an upstream that is not an Upstream fails at the decorator."""
    if not isinstance(upstream, Upstream):
        raise TypeError(f"upstream must be a slipstream.llm_upstream.Upstream, not {type(upstream).__name__}")
    _prepared(schema)  # a schema that does not compile fails here

    @functools.wraps(endpoint)
    async def proxied(*args: Any, **kwargs: Any) -> Response:
        request = endpoint(*args, **kwargs)
        if inspect.isawaitable(request):
            request = await request
        return await upstream.stream(schema, request)

    proxied.__annotations__ = {**getattr(endpoint, "__annotations__", {}), "return": Response}
    signature = inspect.signature(endpoint)
    proxied.__signature__ = signature.replace(return_annotation=Response)  # type: ignore[attr-defined]
    return proxied
