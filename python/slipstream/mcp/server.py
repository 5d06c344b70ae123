"""MCP: an MCP server whose protocol, sessions, transports and argument validation run in the engine (C++); the
functions registered here run in Python. The decorators follow the official SDK's high-level server (`MCPServer`,
formerly `FastMCP`), so a server moves by changing its import."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from .. import _native
from ..app import App
from ._dispatch import Dispatcher
from ._handlers import (
    CompletionHandler,
    PromptHandler,
    ResourceHandler,
    ToolHandler,
    template_pattern,
    template_variables,
)
from .context import Context, ReadResourceContents
from .exceptions import ResourceError

F = TypeVar("F", bound=Callable[..., Any])


def _json_or_empty(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(value)


def _ms(seconds: float | None) -> int:
    return 0 if seconds is None else max(1, round(seconds * 1000))


def _resource_metadata(auth: Any, resource: str | None, authorization_servers: Sequence[str],
                       scopes_supported: Sequence[str], resource_name: str | None) -> dict[str, Any]:
    """The OAuth protected resource metadata options, from explicit values or from the official SDK's
    AuthSettings (`issuer_url`, `resource_server_url`, `required_scopes`). Tokens are checked by the engine's
    authentication (App(auth=..., jwt_*...)), never by a Python verifier."""
    if auth is not None:
        if getattr(auth, "token_verifier", None) is not None:
            raise ValueError("tokens are checked by the engine's authentication (App(auth=...)), not a token_verifier")
        resource = resource or (str(auth.resource_server_url) if getattr(auth, "resource_server_url", None) else None)
        if not authorization_servers and getattr(auth, "issuer_url", None):
            authorization_servers = [str(auth.issuer_url)]
        scopes_supported = scopes_supported or list(getattr(auth, "required_scopes", None) or [])
    if resource is None:
        if authorization_servers or scopes_supported:
            raise ValueError("authorization_servers and scopes_supported need resource= (the MCP server's URL)")
        return {}
    return {"resource": resource, "authorization_servers": list(authorization_servers),
            "scopes_supported": list(scopes_supported), "resource_name": resource_name or ""}


@dataclass
class _Registration:
    kind: Literal["tool", "resource", "template", "prompt"]
    key: int
    args: dict[str, Any] = field(default_factory=dict)


class MCP:
    """An MCP server. Mount it on an App (`app.mount("/mcp", mcp)`) to serve Streamable HTTP on the app's
    listeners, or `mcp.run()` (stdio) / `mcp.run("streamable-http")` to serve it alone."""

    def __init__(self, name: str = "slipstream", instructions: str | None = None, *, version: str = "0.1.0",
                 title: str | None = None, json_response: bool = False, stateless_http: bool = False,
                 allowed_origins: Sequence[str] = (), tool_timeout: float = 60.0,
                 session_idle_timeout: float = 1800.0, max_sessions: int = 10000,
                 max_sessions_per_principal: int = 100, max_message_bytes: int = 4 * 1024 * 1024,
                 max_batch: int = 100, page_size: int = 100, replay_events: int = 256,
                 allowed_hosts: Sequence[str] = (), resumable_streams: bool = False, stream_retry: float = 1.0,
                 max_calls_per_session: int = 256, max_subscriptions: int = 1000, store: str | None = None,
                 store_check: float = 0.0, store_connections: int = 4, store_timeout: float = 5.0,
                 store_poll: float = 0.1, stream_store_events: int = 256, stream_store_bytes: int = 4 * 1024 * 1024,
                 stream_store_ttl: float = 600.0, cache_ttl: float = 0.0, request_state_key: str | None = None,
                 request_state_ttl: float = 600.0, auth: Any = None, resource: str | None = None, authorization_servers: Sequence[str] = (),
                 scopes_supported: Sequence[str] = (), resource_name: str | None = None) -> None:
        self.name = name
        self.instructions = instructions
        self._config = {
            "name": name, "version": version, "title": title or "", "instructions": instructions or "",
            "allowed_origins": list(allowed_origins), "json_response": json_response, "stateless": stateless_http,
            "session_idle_ms": _ms(session_idle_timeout), "max_sessions": max_sessions,
            "max_sessions_per_principal": max_sessions_per_principal, "max_message_bytes": max_message_bytes,
            "max_batch": max_batch, "tool_timeout_ms": _ms(tool_timeout), "page_size": page_size,
            "replay_events": replay_events, "allowed_hosts": list(allowed_hosts),
            "resumable_streams": resumable_streams, "stream_retry_ms": _ms(stream_retry),
            "max_calls_per_session": max_calls_per_session, "max_subscriptions": max_subscriptions,
            "store_url": store or "", "store_check_ms": round(store_check * 1000),
            "store_connections": store_connections, "store_timeout_ms": _ms(store_timeout),
            "store_poll_ms": round(store_poll * 1000), "stream_store_events": stream_store_events,
            "stream_store_bytes": stream_store_bytes, "stream_store_ttl_ms": _ms(stream_store_ttl),
            "cache_ttl_ms": round(cache_ttl * 1000),
            "request_state_key": request_state_key or "", "request_state_ttl_ms": _ms(request_state_ttl)}
        self._config.update(_resource_metadata(auth, resource, authorization_servers, scopes_supported,
                                               resource_name))
        self._handlers: list[Any] = []
        self._registrations: dict[tuple[str, str], _Registration] = {}
        self._resources: dict[str, ResourceHandler] = {}
        self._templates: list[tuple[Any, ResourceHandler]] = []
        self._completion: int | None = None
        self._live: list[Any] = []  # NativeMcp instances serving now (a change reaches them at once)

    # --- registration ---
    def _context(self, call: Any, peer: Any) -> Context:
        return Context(call, self._read_resource_for(call, peer), self, functools.partial(peer.request, call))

    def _add(self, kind: Literal["tool", "resource", "template", "prompt"], name: str, handler: Any,
             args: dict[str, Any]) -> None:
        if (kind, name) in self._registrations:
            raise ValueError(f"{kind} {name!r} is already registered")
        key = len(self._handlers)
        self._handlers.append(handler)
        reg = _Registration(kind, key, args)
        for native in self._live:
            self._register(native, reg)
        self._registrations[(kind, name)] = reg

    def add_tool(self, fn: Callable[..., Any], name: str | None = None, title: str | None = None,
                 description: str | None = None, annotations: Any = None, meta: dict[str, Any] | None = None,
                 structured_output: bool | None = None, timeout: float | None = None,
                 max_concurrency: int | None = None) -> None:
        name = name or fn.__name__
        handler = ToolHandler(fn, name, structured_output, self._context)
        self._add("tool", name, handler, {
            "name": name, "title": title or "", "description": description or inspect.getdoc(fn) or "",
            "input_schema": json.dumps(handler.shape.input_schema()),
            "output_schema": json.dumps(handler.output.schema) if handler.output is not None else "",
            "annotations": _json_or_empty(annotations), "meta": _json_or_empty(meta), "timeout_ms": _ms(timeout),
            "max_concurrency": max_concurrency or 0})

    def tool(self, name: str | None = None, title: str | None = None, description: str | None = None,
             annotations: Any = None, meta: dict[str, Any] | None = None, structured_output: bool | None = None,
             timeout: float | None = None, max_concurrency: int | None = None) -> Callable[[F], F]:
        """Decorator: the function is a tool; its parameters (type hints) make the inputSchema, validated in C++
        before it runs; a `Context` parameter gets the request's context. Sync functions run inline on an app's
        executor thread (one that blocks hands the loop to another thread meanwhile), over stdio on a worker thread."""
        if callable(name):
            raise TypeError("use @mcp.tool() with parentheses")

        def decorator(fn: F) -> F:
            self.add_tool(fn, name, title, description, annotations, meta, structured_output, timeout,
                          max_concurrency)
            return fn

        return decorator

    def remove_tool(self, name: str) -> None:
        reg = self._registrations.pop(("tool", name), None)
        if reg is None:
            raise KeyError(f"unknown tool {name!r}")
        for native in self._live:
            native.remove_tool(name)

    def resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None, size: int | None = None,
                 annotations: Any = None) -> Callable[[F], F]:
        """Decorator: the function answers resources/read of `uri`; with `{variables}` in it, a resource
        template whose variables are the function's parameters."""

        def decorator(fn: F) -> F:
            handler = ResourceHandler(fn, uri, mime_type, self._context)
            variables = template_variables(uri)
            params = {p.name for p in handler.shape.parameters}
            common = {"name": name or fn.__name__, "title": title or "", "description": description or
                          inspect.getdoc(fn) or "", "mime_type": mime_type or "", "annotations": _json_or_empty(annotations)}
            if variables:
                if set(variables) != params:
                    raise ValueError(f"resource template {uri!r}: its variables {sorted(variables)} must be the "
                                     f"function's parameters {sorted(params)}")
                self._add("template", uri, handler, dict(uri_template=uri, **common))
                self._templates.append((template_pattern(uri), handler))
            else:
                if params:
                    raise ValueError(f"resource {uri!r} takes no parameters (use {{name}} in the URI for a template)")
                self._add("resource", uri, handler, dict(uri=uri, size=size, **common))
                self._resources[uri] = handler
            return fn

        return decorator

    def prompt(self, name: str | None = None, title: str | None = None,
               description: str | None = None) -> Callable[[F], F]:
        """Decorator: the function renders a prompt; its parameters are the prompt's arguments."""
        if callable(name):
            raise TypeError("use @mcp.prompt() with parentheses")

        def decorator(fn: F) -> F:
            prompt_name = name or fn.__name__
            handler = PromptHandler(fn, prompt_name, self._context)
            self._add("prompt", prompt_name, handler, {
                "name": prompt_name, "title": title or "", "description": description or inspect.getdoc(fn) or "",
                "arguments": handler.arguments()})
            return fn

        return decorator

    def completion(self) -> Callable[[F], F]:
        """Decorator: fn(ref, argument, context) -> Completion | list[str] | None answers completion/complete."""

        def decorator(fn: F) -> F:
            if self._live:
                raise RuntimeError("register the completion handler before serving")
            self._completion = len(self._handlers)
            self._handlers.append(CompletionHandler(fn))
            return fn

        return decorator

    def resource_updated(self, uri: str) -> None:
        """notifications/resources/updated to the sessions subscribed to `uri`."""
        for native in self._live:
            native.resource_updated(uri)

    # --- in-process reads (Context.read_resource) ---
    def _read_resource_for(self, call: Any, peer: Any) -> Callable[[str], Any]:
        async def read(uri: str) -> list[ReadResourceContents]:
            handler, arguments = self._resource_for(uri)
            contents = await handler.read(call, uri, arguments, peer)
            return [ReadResourceContents(c.get("text", c.get("blob", "")), c.get("mimeType")) for c in contents]

        return read

    def _resource_for(self, uri: str) -> tuple[ResourceHandler, dict[str, Any]]:
        if uri in self._resources:
            return self._resources[uri], {}
        for pattern, handler in self._templates:
            m = pattern.fullmatch(uri)
            if m:
                return handler, m.groupdict()
        raise ResourceError(f"Unknown resource: {uri}")

    # --- serving ---
    def _register(self, native: Any, reg: _Registration) -> None:
        getattr(native, f"add_{reg.kind}")(reg.key, **reg.args)

    def _make_native(self) -> tuple[Any, Dispatcher]:
        native = _native.NativeMcp(self._config)
        for reg in self._registrations.values():
            self._register(native, reg)
        if self._completion is not None:
            native.set_completion(self._completion)
        return native, Dispatcher(native, self._handlers)

    def install_native(self, native_app: Any, runtime: Any, path: str) -> None:
        """App.mount's hook: serves Streamable HTTP at `path` on the native app, calls run on its executor loop."""
        native, dispatcher = self._make_native()
        native.mount(native_app, path)

        def attach(loop: asyncio.AbstractEventLoop) -> None:
            self._live.append(native)
            dispatcher.attach(loop)

        def detach() -> None:
            dispatcher.detach()
            if native in self._live:
                self._live.remove(native)

        runtime.add_loop_hook(attach, detach, keep=native)

    def streamable_http_app(self, path: str = "/mcp") -> Any:
        """An App serving only this server at `path`."""
        app = App(openapi_url=None)
        app.mount(path, self)
        return app

    def run(self, transport: Literal["stdio", "streamable-http"] = "stdio", *, host: str | None = None,
            port: int | None = None, path: str = "/mcp") -> int:
        """Serves until the end of input (stdio) or SIGINT/SIGTERM (streamable-http)."""
        if transport == "stdio":
            return self.run_stdio()
        if transport == "streamable-http":
            return self.streamable_http_app(path).run(host=host, port=port)
        raise ValueError(f"unknown transport {transport!r}: 'stdio' or 'streamable-http'")

    def run_stdio(self, in_fd: int = 0, out_fd: int = 1) -> int:
        """Newline-delimited JSON-RPC on `in_fd` / `out_fd` until end of input."""
        native, dispatcher = self._make_native()
        loop = asyncio.new_event_loop()
        self._live.append(native)
        dispatcher.attach(loop)
        try:
            return loop.run_until_complete(loop.run_in_executor(None, native.serve_stdio, in_fd, out_fd))
        except KeyboardInterrupt:
            native.stop()
            return 130
        finally:
            dispatcher.detach()
            self._live.remove(native)
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
