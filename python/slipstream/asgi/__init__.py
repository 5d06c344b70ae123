"""Serving unchanged ASGI 3 applications (FastAPI, Starlette, Litestar, ...) on the engine: AsgiServer, and
`slipstream asgi module:app` (cli_asgi.py). See docs/asgi.md."""

from .server import METHODS, AsgiServer, is_asgi3

__all__ = ["METHODS", "AsgiServer", "is_asgi3"]
