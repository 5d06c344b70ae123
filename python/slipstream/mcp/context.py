"""Context: what a tool, resource or prompt function may ask of its request (progress, logs to the client,
resources, request and session ids). Declared as a parameter annotated `Context` (any name)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LEVELS: dict[str, int] = {name: i for i, name in enumerate(
    ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"))}


@dataclass(frozen=True)
class ReadResourceContents:
    """One item of a resource read through Context.read_resource."""

    content: str | bytes
    mime_type: str | None = None


class Context:
    """Handed to a function with a `Context` parameter. Outside a request (constructed by hand) every method
    raises RuntimeError."""

    def __init__(self, call: Any = None, read_resource: Callable[[str], Awaitable[Iterable[ReadResourceContents]]]
                 | None = None, server: Any = None) -> None:
        self._call = call
        self._read_resource = read_resource
        self._server = server

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

    async def read_resource(self, uri: str) -> Iterable[ReadResourceContents]:
        """Reads one of this server's resources (or a template's match) in process."""
        if self._read_resource is None:
            raise RuntimeError("Context is only available inside a request")
        return await self._read_resource(str(uri))
