"""An MCP (Model Context Protocol) server on the engine: `mcp = MCP("name")`, `@mcp.tool()`, `@mcp.resource(uri)`,
`@mcp.prompt()`, then `app.mount("/mcp", mcp)` or `mcp.run()`. The names of the official SDK's high-level server
(`MCPServer`, `FastMCP`) are aliases, so a server moves by changing its import."""

from .context import ClientRequestError, Context, ReadResourceContents, ServerSession
from .exceptions import MCPError, PromptError, ResourceError, ToolError
from .server import MCP
from .types import (
    AssistantMessage,
    Audio,
    CallToolResult,
    Completion,
    CreateMessageResult,
    ElicitationResult,
    EmbeddedResource,
    Image,
    ImageContent,
    ListRootsResult,
    Message,
    ResourceLink,
    Root,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
    UserMessage,
)

MCPServer = MCP
FastMCP = MCP

__all__ = [
    "MCP",
    "AssistantMessage",
    "Audio",
    "CallToolResult",
    "ClientRequestError",
    "Completion",
    "Context",
    "CreateMessageResult",
    "ElicitationResult",
    "EmbeddedResource",
    "FastMCP",
    "Image",
    "ImageContent",
    "ListRootsResult",
    "MCPError",
    "MCPServer",
    "Message",
    "PromptError",
    "ReadResourceContents",
    "ResourceError",
    "ResourceLink",
    "Root",
    "SamplingMessage",
    "ServerSession",
    "TextContent",
    "TextResourceContents",
    "ToolAnnotations",
    "ToolError",
    "UserMessage",
]
