"""Python values -> MCP wire JSON: content blocks, resource contents, prompt messages (as the official SDK's
high-level server converts them)."""

from __future__ import annotations

import base64
from typing import Any

import pydantic_core
from pydantic import BaseModel

from .types import CONTENT_TYPE_NAMES, Audio, Image

_MESSAGE_NAMES = frozenset({"Message", "UserMessage", "AssistantMessage", "PromptMessage"})


def dump_model(value: BaseModel) -> dict[str, Any]:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


def is_content_model(value: Any) -> bool:
    """A content block of ours or of the official SDK (`mcp.types`)."""
    return isinstance(value, BaseModel) and type(value).__name__ in CONTENT_TYPE_NAMES


def to_json_text(value: Any) -> str:
    """Pretty JSON text of any value (pydantic's encoder; unknown objects as str()), as the SDK writes it."""
    return to_json_bytes(value).decode()


def to_json_bytes(value: Any) -> bytes:
    """to_json_text() as UTF-8 bytes."""
    return pydantic_core.to_json(value, fallback=str, indent=2)


def text_model(value: Any) -> bool:
    """A model whose content is one text block of its JSON (not a content block, not a CallToolResult)."""
    return isinstance(value, BaseModel) and not is_content_model(value) and type(value).__name__ != "CallToolResult"


def content_blocks(result: Any) -> list[dict[str, Any]]:
    """A tool's return value as a list of content blocks: None -> none; a content block or Image/Audio as itself;
    lists and tuples flattened; str as text; anything else as its JSON text."""
    if result is None:
        return []
    if is_content_model(result):
        return [dump_model(result)]
    if isinstance(result, Image):
        return [dump_model(result.to_image_content())]
    if isinstance(result, Audio):
        return [dump_model(result.to_audio_content())]
    if isinstance(result, list | tuple):
        return [block for item in result for block in content_blocks(item)]
    if not isinstance(result, str):
        result = to_json_text(result)
    return [{"type": "text", "text": result}]


def resource_contents(uri: str, mime_type: str | None, result: Any) -> list[dict[str, Any]]:
    """A resource function's return value as `contents`: str -> text, bytes -> base64 blob, else JSON text."""
    if isinstance(result, bytes | bytearray):
        return [{"uri": uri, "mimeType": mime_type or "application/octet-stream",
                 "blob": base64.b64encode(bytes(result)).decode()}]
    if isinstance(result, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": result}]
    text = pydantic_core.to_json(pydantic_core.to_jsonable_python(result, fallback=str), indent=2).decode()
    return [{"uri": uri, "mimeType": mime_type or "application/json", "text": text}]


def prompt_messages(result: Any) -> list[dict[str, Any]]:
    """A prompt function's return value as messages: a str is one user message; a Message (ours or the SDK's) or a
    {"role", "content"} dict as itself; a list of those in order."""
    items = result if isinstance(result, list | tuple) else [result]
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            out.append({"role": "user", "content": {"type": "text", "text": item}})
        elif isinstance(item, BaseModel) and type(item).__name__ in _MESSAGE_NAMES:
            out.append(dump_model(item))
        elif isinstance(item, dict) and "role" in item and "content" in item:
            content = item["content"]
            if isinstance(content, str):
                content = {"type": "text", "text": content}
            elif isinstance(content, BaseModel):
                content = dump_model(content)
            out.append({"role": item["role"], "content": content})
        else:
            raise ValueError(f"a prompt returned {type(item).__name__}: expected str, Message or a role/content dict")
    return out
