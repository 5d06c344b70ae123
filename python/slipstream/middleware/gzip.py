"""GZipMiddleware: Starlette's options, mapped onto the engine's response compression (C++, no Python per request).

`app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=9)` sets the server options compression=True,
compression_encodings="gzip", compression_min_size=minimum_size and gzip_level=compresslevel when the app is
built. The engine then gzips, on the I/O threads, every eligible response whose request accepts gzip: handlers',
streams' (flushed per chunk) and its own. What it adds, as Starlette's does: `Content-Encoding: gzip` and
`Vary: Accept-Encoding`. Where it differs from Starlette's (which compresses every media type but the excluded
ones): the engine compresses text, JSON, XML, JavaScript, font and image/svg+xml types and never already-compressed
ones (images, audio, video, zip/gzip, application/octet-stream, PDF); text/event-stream is never compressed.

Without this middleware an App compresses already (the engine's default: zstd, br, gzip from 1024 bytes);
FastAPI does not. `App(compression=False)` turns that off.
"""

from __future__ import annotations

from typing import Any

DEFAULT_EXCLUDED_CONTENT_TYPES = (
    "application/grpc", "application/gzip", "application/x-gzip", "application/zip", "audio/*", "font/woff",
    "font/woff2", "image/avif", "image/gif", "image/jpeg", "image/png", "image/webp", "text/event-stream", "video/*",
)

# The media types the engine may compress (it skips already-compressed ones itself; see compression_policy.cpp).
_TYPES = "text/*,application/*,image/*,font/*"


class GZipMiddleware:
    """gzip for responses of at least `minimum_size` bytes to requests that accept it, at `compresslevel` (1-9).

    Not an ASGI application: the app hands its options to the engine (`server_options()`)."""

    def __init__(self, app: Any = None, minimum_size: int = 500, compresslevel: int = 9,
                 thread_minimum_size: int = 128 * 1024, *,
                 exclude_content_types: tuple[str, ...] = DEFAULT_EXCLUDED_CONTENT_TYPES) -> None:
        self.app = app
        if isinstance(minimum_size, bool) or not isinstance(minimum_size, int) or minimum_size < 0:
            raise ValueError(f"GZipMiddleware: minimum_size must be an int >= 0, not {minimum_size!r}")
        if isinstance(compresslevel, bool) or not isinstance(compresslevel, int) or not 1 <= compresslevel <= 9:
            raise ValueError(f"GZipMiddleware: compresslevel must be an int in 1..9, not {compresslevel!r}")
        self.minimum_size = minimum_size
        self.compresslevel = compresslevel
        # Accepted for FastAPI code: the engine compresses on its I/O threads at any size, and decides by media
        # type itself (see the module's doc).
        self.thread_minimum_size = thread_minimum_size
        self.exclude_content_types = tuple(exclude_content_types)

    def server_options(self) -> dict[str, Any]:
        """The engine's compression options."""
        return {
            "compression": True,
            "compression_encodings": "gzip",
            "compression_min_size": self.minimum_size,
            "compression_types": _TYPES,
            "gzip_level": self.compresslevel,
        }

    def __repr__(self) -> str:
        return f"GZipMiddleware({self.server_options()!r})"


def is_gzip_middleware(cls: Any) -> bool:
    """This GZipMiddleware (or a subclass), or Starlette's (`fastapi.middleware.gzip`), whose options are the
    same: an app ported from FastAPI keeps its import."""
    if not isinstance(cls, type):
        return False
    if issubclass(cls, GZipMiddleware):
        return True
    return cls.__name__ == "GZipMiddleware" and cls.__module__ == "starlette.middleware.gzip"


__all__ = ["GZipMiddleware"]
