"""MCP content types a tool, resource or prompt may return, as the protocol's schema names them (camelCase on the
wire). Models from the official SDK (`mcp.types`) are accepted too: any pydantic model named like one of these is
dumped by alias."""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Wire(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")


class Annotations(_Wire):
    audience: list[Literal["user", "assistant"]] | None = None
    priority: float | None = Field(default=None, ge=0.0, le=1.0)
    last_modified: str | None = Field(default=None, alias="lastModified")


class TextContent(_Wire):
    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ImageContent(_Wire):
    type: Literal["image"] = "image"
    data: str  # base64
    mime_type: str = Field(alias="mimeType")
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class AudioContent(_Wire):
    type: Literal["audio"] = "audio"
    data: str  # base64
    mime_type: str = Field(alias="mimeType")
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class TextResourceContents(_Wire):
    uri: str
    mime_type: str | None = Field(default=None, alias="mimeType")
    text: str
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class BlobResourceContents(_Wire):
    uri: str
    mime_type: str | None = Field(default=None, alias="mimeType")
    blob: str  # base64
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class EmbeddedResource(_Wire):
    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ResourceLink(_Wire):
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = Field(default=None, alias="mimeType")
    size: int | None = None
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
CONTENT_TYPE_NAMES = frozenset({"TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource"})


class ToolAnnotations(_Wire):
    title: str | None = None
    read_only_hint: bool | None = Field(default=None, alias="readOnlyHint")
    destructive_hint: bool | None = Field(default=None, alias="destructiveHint")
    idempotent_hint: bool | None = Field(default=None, alias="idempotentHint")
    open_world_hint: bool | None = Field(default=None, alias="openWorldHint")


class CallToolResult(_Wire):
    """Returned by a tool to answer exactly this (no conversion): content, structuredContent, isError."""

    content: list[ContentBlock] = Field(default_factory=list)
    structured_content: dict[str, Any] | None = Field(default=None, alias="structuredContent")
    is_error: bool = Field(default=False, alias="isError")


class Message(_Wire):
    role: Literal["user", "assistant"]
    content: ContentBlock

    def __init__(self, content: str | ContentBlock | None = None, **kwargs: Any) -> None:
        if isinstance(content, str):
            content = TextContent(text=content)
        if content is not None:
            kwargs["content"] = content
        super().__init__(**kwargs)


class UserMessage(Message):
    role: Literal["user", "assistant"] = "user"


class AssistantMessage(Message):
    role: Literal["user", "assistant"] = "assistant"


class Completion(_Wire):
    values: list[str]
    total: int | None = None
    has_more: bool | None = Field(default=None, alias="hasMore")


class _Media:
    """Bytes or a file as base64 content; the MIME type from `format` or the file's suffix."""

    kind = ""
    default_mime = ""

    def __init__(self, path: str | Path | None = None, data: bytes | None = None, format: str | None = None) -> None:
        if (path is None) == (data is None):
            raise ValueError("give either path or data")
        self.path = Path(path) if path is not None else None
        self.data = data
        if format is not None:
            self.mime_type = f"{self.kind}/{format.lower()}"
        elif self.path is not None:
            self.mime_type = mimetypes.guess_type(self.path.name)[0] or self.default_mime
        else:
            self.mime_type = self.default_mime

    def _base64(self) -> str:
        raw = self.data if self.data is not None else self.path.read_bytes()  # type: ignore[union-attr]
        return base64.b64encode(raw).decode()


class Image(_Media):
    kind = "image"
    default_mime = "image/png"

    def to_image_content(self) -> ImageContent:
        return ImageContent(data=self._base64(), mimeType=self.mime_type)


class Audio(_Media):
    kind = "audio"
    default_mime = "audio/wav"

    def to_audio_content(self) -> AudioContent:
        return AudioContent(data=self._base64(), mimeType=self.mime_type)
