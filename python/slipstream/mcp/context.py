"""Context: what a tool, resource or prompt function may ask of its request (progress, logs to the client,
resources, request and session ids). Declared as a parameter annotated `Context` (any name)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from .exceptions import MCPError
from .types import CreateMessageResult, ElicitationResult, ListRootsResult, SamplingMessage

# (method, params JSON, timeout ms) -> (ok, the result or the error object as JSON text)
Requester = Callable[[str, str, int], Awaitable[tuple[bool, str]]]

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LEVELS: dict[str, int] = {name: i for i, name in enumerate(
    ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"))}


@dataclass(frozen=True)
class ReadResourceContents:
    """One item of a resource read through Context.read_resource."""

    content: str | bytes
    mime_type: str | None = None


class ClientRequestError(MCPError):
    """The client refused a request of the server (sampling, elicitation, roots), answered an error, or did not answer
    in time; `code` is the JSON-RPC error code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


async def _ask(requester: Requester | None, method: str, params: dict[str, Any], timeout: float | None) -> Any:
    if requester is None:
        raise RuntimeError("Context is only available inside a request")
    ok, text = await requester(method, json.dumps(params), 0 if timeout is None else max(1, round(timeout * 1000)))
    body = json.loads(text)
    if not ok:
        raise ClientRequestError(int(body.get("code", -32603)), str(body.get("message", "request failed")))
    return body


class ServerSession:
    """Requests to the client of this call (`ctx.session`), as the official SDK's session names them."""

    def __init__(self, requester: Requester | None) -> None:
        self._requester = requester

    async def create_message(self, messages: Sequence[SamplingMessage | dict[str, Any]], max_tokens: int, *,
                             system_prompt: str | None = None, include_context: str | None = None,
                             temperature: float | None = None, stop_sequences: Sequence[str] | None = None,
                             metadata: dict[str, Any] | None = None, model_preferences: Any = None,
                             timeout: float | None = None) -> CreateMessageResult:
        """sampling/createMessage: the client's LLM completes `messages`."""
        params: dict[str, Any] = {
            "messages": [m.model_dump(mode="json", by_alias=True, exclude_none=True) if isinstance(m, BaseModel)
                         else m for m in messages], "maxTokens": max_tokens}
        optional = {"systemPrompt": system_prompt, "includeContext": include_context, "temperature": temperature,
                    "stopSequences": list(stop_sequences) if stop_sequences is not None else None,
                    "metadata": metadata, "modelPreferences": model_preferences.model_dump(
                        mode="json", by_alias=True, exclude_none=True) if isinstance(model_preferences, BaseModel)
                    else model_preferences}
        params.update({k: v for k, v in optional.items() if v is not None})
        return CreateMessageResult.model_validate(await _ask(self._requester, "sampling/createMessage", params,
                                                             timeout))

    async def list_roots(self, *, timeout: float | None = None) -> ListRootsResult:
        """roots/list: the client's roots (folders, repositories)."""
        return ListRootsResult.model_validate(await _ask(self._requester, "roots/list", {}, timeout))


class Context:
    """Handed to a function with a `Context` parameter. Outside a request (constructed by hand) every method
    raises RuntimeError."""

    def __init__(self, call: Any = None, read_resource: Callable[[str], Awaitable[Iterable[ReadResourceContents]]]
                 | None = None, server: Any = None, requester: Requester | None = None) -> None:
        self._call = call
        self._read_resource = read_resource
        self._server = server
        self._requester = requester
        self.session = ServerSession(requester)

    def _native(self) -> Any:
        if self._call is None:
            raise RuntimeError("Context is only available inside a request")
        return self._call

    @property
    def request_id(self) -> str:
        """The JSON-RPC request id as text."""
        raw = self._native().request_id
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
        return str(value)

    @property
    def session_id(self) -> str | None:
        """The MCP session id (None over stdio or on a stateless server)."""
        return self._native().session_id or None

    @property
    def client_id(self) -> str | None:
        """The principal the engine's authentication gave the HTTP request, if any."""
        return self._native().principal or None

    @property
    def meta(self) -> dict[str, Any]:
        """The request's `_meta` object."""
        return json.loads(self._native().meta_json or "{}")

    @property
    def mcp_server(self) -> Any:
        return self._server

    def is_cancelled(self) -> bool:
        return self._native().cancelled()

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """notifications/progress to the client, when its request asked for progress (a progressToken)."""
        self._native().progress(float(progress), None if total is None else float(total), message or "")

    async def log(self, level: LogLevel, message: Any, *, logger_name: str | None = None) -> None:
        """notifications/message at `level`, sent when at or above the level the client set (default info)."""
        if level not in LEVELS:
            raise ValueError(f"unknown log level {level!r}")
        self._native().log(LEVELS[level], json.dumps(message, default=str), logger_name or "")

    async def debug(self, message: Any, *, logger_name: str | None = None) -> None:
        await self.log("debug", message, logger_name=logger_name)

    async def info(self, message: Any, *, logger_name: str | None = None) -> None:
        await self.log("info", message, logger_name=logger_name)

    async def warning(self, message: Any, *, logger_name: str | None = None) -> None:
        await self.log("warning", message, logger_name=logger_name)

    async def error(self, message: Any, *, logger_name: str | None = None) -> None:
        await self.log("error", message, logger_name=logger_name)

    async def elicit(self, message: str, schema: type[BaseModel], *, timeout: float | None = None
                     ) -> ElicitationResult:
        """elicitation/create: asks the user (through the client) for values of `schema`, a model of primitive
        fields. `data` is the model on "accept"."""
        answer = await _ask(self._requester, "elicitation/create",
                            {"message": message, "requestedSchema": schema.model_json_schema()}, timeout)
        result = ElicitationResult.model_validate(answer)
        if result.action == "accept":
            result.data = schema.model_validate(result.content or {})
        return result

    async def read_resource(self, uri: str) -> Iterable[ReadResourceContents]:
        """Reads one of this server's resources (or a template's match) in process."""
        if self._read_resource is None:
            raise RuntimeError("Context is only available inside a request")
        return await self._read_resource(str(uri))
