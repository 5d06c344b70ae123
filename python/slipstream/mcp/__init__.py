"""An MCP (Model Context Protocol) server on the engine: `mcp = MCP("name")`, `@mcp.tool()`, `@mcp.resource(uri)`,
`@mcp.prompt()`, then `app.mount("/mcp", mcp)` or `mcp.run()`. The names of the official SDK's high-level server
(`MCPServer`, `FastMCP`) are aliases, so a server moves by changing its import."""

from .context import Context, ReadResourceContents
from .exceptions import MCPError, PromptError, ResourceError, ToolError
from .server import MCP
from .types import (
    AssistantMessage,
    Audio,
    CallToolResult,
    Completion,
    EmbeddedResource,
    Image,
    ImageContent,
    Message,
    ResourceLink,
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
    "Completion",
    "Context",
    "EmbeddedResource",
    "FastMCP",
    "Image",
    "ImageContent",
    "MCPError",
    "MCPServer",
    "Message",
    "PromptError",
    "ReadResourceContents",
    "ResourceError",
    "ResourceLink",
    "TextContent",
    "TextResourceContents",
    "ToolAnnotations",
    "ToolError",
    "UserMessage",
]
