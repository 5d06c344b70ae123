"""FileResponse: a file from disk, answered by the engine, which opens the file and sends it with sendfile(2)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
from collections.abc import Mapping
from email.utils import formatdate, parsedate
from mimetypes import guess_type
from typing import Any
from urllib.parse import quote

from . import _native, _streaming
from ._core.response import Response
from ._streaming_responses import _Streamed


class FileResponse(_Streamed):
    """A file from disk: Content-Type guessed from the name, ETag and Last-Modified (Starlette's), Accept-Ranges,
    Content-Disposition when `filename` is given. Per request: If-None-Match / If-Modified-Since answer 304, a
    single `Range` 206 with Content-Range (416 when it starts past the end; a malformed range 400, as Starlette),
    HEAD the head only. Several ranges get the whole file (200): no multipart/byteranges body.

    Python decides the status and headers (after one os.stat); the engine opens the file and sends the region with
    Content-Length: sendfile(2) on plain TCP, read in 16 KiB pieces for TLS, read whole for HTTP/2. File bodies are
    never compressed. A file that shrank below the region before it was opened answers 500; one that shrinks
    while it is sent cuts the connection."""

    chunk_size = 64 * 1024  # kept for compatibility (Starlette's attribute); the engine sends the file

    def __init__(self, path: str | os.PathLike[str], status_code: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None, background: Any = None, filename: str | None = None,
                 stat_result: os.stat_result | None = None, method: str | None = None,
                 content_disposition_type: str = "attachment") -> None:
        self.path = path
        self.filename = filename
        if media_type is None:
            media_type = guess_type(filename or str(path))[0] or "application/octet-stream"
        super().__init__(None, status_code=status_code, headers=headers, media_type=media_type,
                         background=background)
        if "accept-ranges" not in self.headers:
            self.headers["accept-ranges"] = "bytes"
        if filename is not None:
            quoted = quote(filename)
            if quoted != filename:
                disposition = f"{content_disposition_type}; filename*=utf-8''{quoted}"
            else:
                disposition = f'{content_disposition_type}; filename="{filename}"'
            if "content-disposition" not in self.headers:
                self.headers["content-disposition"] = disposition
        self.stat_result = stat_result
        if stat_result is not None:
            self.set_stat_headers(stat_result)

    def set_stat_headers(self, stat_result: os.stat_result) -> None:
        etag_base = str(stat_result.st_mtime) + "-" + str(stat_result.st_size)
        etag = f'"{hashlib.md5(etag_base.encode(), usedforsecurity=False).hexdigest()}"'
        for name, value in (("last-modified", formatdate(stat_result.st_mtime, usegmt=True)), ("etag", etag)):
            if name not in self.headers:
                self.headers[name] = value

    def _slipstream_start(self, writer: Any) -> None:
        self.stream_done = _streaming.start(writer, self._send, background=self._take_background())

    async def _send(self, writer: Any) -> None:
        st = self.stat_result
        if st is None:
            try:
                st = await asyncio.to_thread(os.stat, self.path)
            except FileNotFoundError:
                raise RuntimeError(f"File at path {self.path} does not exist.") from None
            if not stat.S_ISREG(st.st_mode):
                raise RuntimeError(f"File at path {self.path} is not a file.")
            self.set_stat_headers(st)
        size = st.st_size
        status, content_type, headers, _ = Response._slipstream_render(self)
        if self.status_code == 200 and not_modified(self.headers, writer.header):
            writer.set_head(304, None, [(k, v) for k, v in headers if k.lower() in _NOT_MODIFIED_HEADERS])
            writer.send(b"")
            return
        start, end = 0, size
        span = self._range(writer, size)
        if span == "unsatisfiable":
            writer.set_head(416, "text/plain; charset=utf-8", [("content-range", f"bytes */{size}")])
            writer.send(b"")
            return
        if isinstance(span, str):  # malformed: Starlette answers 400 with the reason
            writer.set_head(400, "text/plain; charset=utf-8", [])
            writer.send(span.encode())
            return
        if span is not None:
            start, end = span
            status = 206
            headers = (*headers, ("content-range", f"bytes {start}-{end - 1}/{size}"))
        _native.send_file(writer, status, content_type, list(headers), os.fsencode(self.path), start, end - start)

    def _range(self, writer: Any, size: int) -> tuple[int, int] | str | None:
        """The single byte range to send, None for the whole file, "unsatisfiable", or a malformed-range reason."""
        http_range = writer.header("range")
        if self.status_code != 200 or http_range is None:
            return None
        if_range = writer.header("if-range")
        if if_range is not None and (if_range.startswith("W/") or
                                     if_range not in (self.headers.get("last-modified"), self.headers.get("etag"))):
            return None
        units, sep, spec = http_range.partition("=")
        if not sep:
            return "Malformed range header."
        if units.strip().lower() != "bytes":
            return "Only support bytes range"
        ranges = _parse_ranges(spec, size)
        if not ranges:
            return "Range header: range must be requested"
        if any(not 0 <= s < size for s, _ in ranges):
            return "unsatisfiable"
        if any(s >= e for s, e in ranges):
            return "Range header: start must be less than end"
        return ranges[0] if len(ranges) == 1 else None


_NOT_MODIFIED_HEADERS = ("cache-control", "content-location", "date", "etag", "expires", "vary")


def not_modified(response_headers: Any, request_header: Any) -> bool:
    """Starlette's StaticFiles.is_not_modified: If-None-Match matches the ETag, or If-Modified-Since is not
    older than Last-Modified. `request_header(name)` gives a request header or None."""
    if_none_match = request_header("if-none-match")
    etag = response_headers.get("etag")
    if if_none_match is not None and etag is not None and etag in [t.strip(" W/") for t in if_none_match.split(",")]:
        return True
    since_text = request_header("if-modified-since")
    modified_text = response_headers.get("last-modified")
    if since_text is None or modified_text is None:
        return False
    since, modified = parsedate(since_text), parsedate(modified_text)
    return since is not None and modified is not None and since >= modified


def _parse_ranges(spec: str, size: int) -> list[tuple[int, int]]:
    """Starlette's _parse_ranges: "a-b", "a-", "-n"; malformed pieces are ignored."""
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part or part == "-" or "-" not in part:
            continue
        first, last = (x.strip() for x in part.split("-", 1))
        try:
            start = int(first) if first else max(size - int(last), 0)
            end = int(last) + 1 if first and last and int(last) < size else size
        except ValueError:
            continue
        out.append((start, end))
    return out


__all__ = ["FileResponse", "not_modified"]
