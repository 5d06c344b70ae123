"""What runs when the engine hands over a call: one handler class per kind (tool, resource, template, prompt,
completion). Each reads its function once (_signature) and answers the NativeCall exactly once."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from .. import _native
from ._convert import content_blocks, dump_model, prompt_messages, resource_contents, text_model, to_json_bytes
from ._signature import FunctionShape, OutputShape, read_function, read_output
from .context import Context
from .exceptions import MCPError, PromptError, ResourceError, ToolError

logger = logging.getLogger("slipstream.mcp")

# (NativeCall, the Dispatcher that runs it) -> the Context handed to the function
ContextFactory = Callable[[Any, Any], Context]

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def _validation_text(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = "/" + "/".join(str(p) for p in err["loc"]) if err["loc"] else "/"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


async def _invoke(shape: FunctionShape, kwargs: dict[str, Any]) -> Any:
    """Calls the function: a coroutine function on the loop, a plain one on a worker thread (as the SDK does)."""
    if shape.is_async:
        return await shape.fn(**kwargs)
    result = await asyncio.get_running_loop().run_in_executor(None, functools.partial(shape.fn, **kwargs))
    if asyncio.iscoroutine(result):
        result = await result
    return result


class FunctionHandler:
    """The shared part: the function's shape and a Context when it asks for one."""

    def __init__(self, fn: Callable[..., Any], model_name: str, context_factory: ContextFactory) -> None:
        self.shape = read_function(fn, model_name)
        self.context_factory = context_factory

    def kwargs(self, call: Any, arguments: dict[str, Any], peer: Any) -> dict[str, Any]:
        kwargs = self.shape.kwargs(arguments)
        if self.shape.context_param is not None:
            kwargs[self.shape.context_param] = self.context_factory(call, peer)
        return kwargs


class ToolHandler(FunctionHandler):
    def __init__(self, fn: Callable[..., Any], name: str, structured_output: bool | None,
                 context_factory: ContextFactory) -> None:
        super().__init__(fn, f"{getattr(fn, '__name__', name)}Arguments", context_factory)
        self.name = name
        self.output: OutputShape | None = read_output(fn, structured_output)
        self.inline = not self.shape.is_async  # run_inline on an executor loop

    async def run(self, call: Any, peer: Any) -> None:
        kwargs = self._kwargs_or_reply(call, peer)
        if kwargs is None:
            return
        try:
            result = await _invoke(self.shape, kwargs)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - answered as an isError result (_failed logs it)
            self._failed(call, exc)
            return
        self._reply(call, result)

    def run_inline(self, call: Any, peer: Any) -> None:
        """A `def` tool on the executor thread, at once: no task, no worker thread; if it blocks, the executor hands
        its loop to another thread meanwhile (python/bindings/executor.h)."""
        kwargs = self._kwargs_or_reply(call, peer)
        if kwargs is None:
            return
        try:
            result = _native.mcp_call_blocking(functools.partial(self.shape.fn, **kwargs))
        except Exception as exc:  # noqa: BLE001 - answered as an isError result (_failed logs it)
            self._failed(call, exc)
            return
        if asyncio.iscoroutine(result):  # a `def` returning an awaitable: the rest runs as a task
            peer.spawn(self._finish(call, result))
            return
        self._reply(call, result)

    async def _finish(self, call: Any, awaitable: Any) -> None:
        try:
            result = await awaitable
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - answered as an isError result (_failed logs it)
            self._failed(call, exc)
            return
        self._reply(call, result)

    def _failed(self, call: Any, exc: Exception) -> None:
        """A tool's exception as an isError result: a ToolError's message, anything else logged and answered
        without internals."""
        if isinstance(exc, ToolError):
            self._tool_error(call, exc)
            return
        logger.error("tool %s failed", self.name, exc_info=exc)
        self._tool_error(call, None)

    def _kwargs_or_reply(self, call: Any, peer: Any) -> dict[str, Any] | None:
        try:
            return self.kwargs(call, json.loads(call.arguments_json), peer)
        except ValidationError as exc:
            call.reply(json.dumps([{"type": "text", "text": f"Invalid arguments for tool {self.name}: "
                                                            f"{_validation_text(exc)}"}]), "", True)
            return None

    def _reply(self, call: Any, result: Any) -> None:
        try:
            if self.output is not None and text_model(result):
                # structuredContent serialized once, straight from the model; the text block (the model's indented
                # JSON, as the SDK writes it) laid out and escaped by the engine from those bytes when they are the
                # model's own dump (an instance of the output model, not checked against its schema again).
                instance = self.output.instance(result)
                laid_out = instance and self.output.names_are_aliases
                call.reply_text(b"" if laid_out else to_json_bytes(result), self.output.structured_json(result),
                                instance)
                return
            content, structured, is_error = self.convert(result)
        except ToolError as exc:
            self._tool_error(call, exc)
            return
        except Exception:
            logger.exception("tool %s failed", self.name)
            self._tool_error(call, None)
            return
        call.reply(to_json(content).decode(), "" if structured is None else structured.decode(), is_error)

    def _tool_error(self, call: Any, exc: ToolError | None) -> None:
        """An isError result: a ToolError's message, or (any other exception, logged) no internals."""
        text = str(exc) if exc is not None else f"Error executing tool {self.name}"
        call.reply(json.dumps([{"type": "text", "text": text}]), "", True)

    def convert(self, result: Any) -> tuple[list[dict[str, Any]], bytes | None, bool]:
        if isinstance(result, BaseModel) and type(result).__name__ == "CallToolResult":
            wire = dump_model(result)
            structured = wire.get("structuredContent")
            return (wire.get("content", []), None if structured is None else to_json(structured),
                    bool(wire.get("isError", False)))
        content = content_blocks(result)
        if self.output is None:
            return content, None, False
        return content, self.output.structured_json(result), False


class ResourceHandler(FunctionHandler):
    def __init__(self, fn: Callable[..., Any], uri: str, mime_type: str | None,
                 context_factory: ContextFactory) -> None:
        super().__init__(fn, f"{getattr(fn, '__name__', 'resource')}Arguments", context_factory)
        self.uri = uri
        self.mime_type = mime_type

    async def read(self, call: Any, uri: str, arguments: dict[str, Any], peer: Any) -> list[dict[str, Any]]:
        result = await _invoke(self.shape, self.kwargs(call, arguments, peer))
        return resource_contents(uri, self.mime_type, result)

    async def run(self, call: Any, peer: Any) -> None:
        uri = call.name
        try:
            contents = await self.read(call, uri, json.loads(call.arguments_json or "{}"), peer)
        except asyncio.CancelledError:
            raise
        except ValidationError as exc:
            call.fail(INVALID_PARAMS, f"Invalid parameters for resource {uri}: {_validation_text(exc)}", "")
            return
        except ResourceError as exc:
            call.fail(INTERNAL_ERROR, str(exc), "")
            return
        except Exception:
            logger.exception("resource %s failed", uri)
            call.fail(INTERNAL_ERROR, f"Error reading resource {uri}", "")
            return
        call.reply_json(json.dumps({"contents": contents}, ensure_ascii=False))


def template_pattern(uri_template: str) -> re.Pattern[str]:
    """An RFC 6570 level-1 template as a regex with one group per variable (a variable matches no '/')."""
    out, pos = [], 0
    for m in re.finditer(r"\{([A-Za-z0-9_]+)\}", uri_template):
        out.append(re.escape(uri_template[pos:m.start()]))
        out.append(f"(?P<{m.group(1)}>[^/]+)")
        pos = m.end()
    out.append(re.escape(uri_template[pos:]))
    return re.compile("".join(out))


def template_variables(uri_template: str) -> list[str]:
    return re.findall(r"\{([A-Za-z0-9_]+)\}", uri_template)


class PromptHandler(FunctionHandler):
    def __init__(self, fn: Callable[..., Any], name: str, context_factory: ContextFactory) -> None:
        super().__init__(fn, f"{getattr(fn, '__name__', name)}Arguments", context_factory)
        self.name = name

    def arguments(self) -> list[tuple[str, str, bool]]:
        schema = self.shape.input_schema()
        required = set(schema.get("required", []))
        props = schema.get("properties", {})
        return [(p.name, str(props.get(p.name, {}).get("description", "")), p.name in required)
                for p in self.shape.parameters]

    async def run(self, call: Any, peer: Any) -> None:
        try:
            kwargs = self.kwargs(call, json.loads(call.arguments_json or "{}"), peer)
        except ValidationError as exc:
            call.fail(INVALID_PARAMS, f"Invalid arguments for prompt {self.name}: {_validation_text(exc)}", "")
            return
        try:
            messages = prompt_messages(await _invoke(self.shape, kwargs))
        except asyncio.CancelledError:
            raise
        except (PromptError, MCPError) as exc:
            call.fail(INTERNAL_ERROR, str(exc), "")
            return
        except Exception:
            logger.exception("prompt %s failed", self.name)
            call.fail(INTERNAL_ERROR, f"Error rendering prompt {self.name}", "")
            return
        description = (self.shape.fn.__doc__ or "").strip()
        body: dict[str, Any] = {"messages": messages}
        if description:
            body["description"] = description
        call.reply_json(json.dumps(body, ensure_ascii=False))


class CompletionRef(BaseModel):
    type: str
    name: str | None = None
    uri: str | None = None


class CompletionArgument(BaseModel):
    name: str
    value: str


class CompletionContext(BaseModel):
    arguments: dict[str, str] | None = None


class CompletionHandler:
    """completion/complete: fn(ref, argument, context) -> Completion | list[str] | None."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    async def run(self, call: Any, peer: Any) -> None:
        try:
            ref = CompletionRef.model_validate_json(call.ref_json)
            args = json.loads(call.arguments_json or "{}")
            argument = CompletionArgument(name=args.get("name", ""), value=args.get("value", ""))
            context = CompletionContext.model_validate(args["context"]) if args.get("context") else None
            result = self.fn(ref, argument, context)
            if asyncio.iscoroutine(result):
                result = await result
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("completion failed")
            call.fail(INTERNAL_ERROR, "Error completing the argument", "")
            return
        if result is None:
            completion: dict[str, Any] = {"values": []}
        elif isinstance(result, list | tuple):
            completion = {"values": [str(v) for v in result][:100], "total": len(result),
                          "hasMore": len(result) > 100}
        else:
            completion = dump_model(result) if isinstance(result, BaseModel) else dict(result)
            completion["values"] = list(completion.get("values", []))[:100]
        call.reply_json(json.dumps({"completion": completion}, ensure_ascii=False))
