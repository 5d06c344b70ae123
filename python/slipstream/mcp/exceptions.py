"""Errors a tool, resource or prompt function raises on purpose: their message reaches the client."""

from __future__ import annotations


class MCPError(Exception):
    """Base of the errors whose message is sent to the client."""


class ToolError(MCPError):
    """A tool failed: the call answers an `isError` result with this message."""


class ResourceError(MCPError):
    """A resource could not be read: the request answers a JSON-RPC error with this message."""


class PromptError(MCPError):
    """A prompt could not be rendered: the request answers a JSON-RPC error with this message."""
