"""Slipstream: FastAPI-style decorators over a C++ HTTP engine.

Routing, parsing, parameter coercion, validation (FastAPI's 422 bodies) and JSON serialization run in C++;
the handler body is the only Python on a request's path.
"""

from . import status
from .app import App
from .exceptions import HTTPException, RequestValidationError
from .params import Body, Cookie, Header, Path, Query
from .requests import Request
from .responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from .routing import APIRouter
from .testclient import TestClient

__version__ = "0.1.0"

__all__ = [
    "APIRouter",
    "App",
    "Body",
    "Cookie",
    "HTMLResponse",
    "HTTPException",
    "Header",
    "JSONResponse",
    "Path",
    "PlainTextResponse",
    "Query",
    "RedirectResponse",
    "Request",
    "RequestValidationError",
    "Response",
    "TestClient",
    "status",
]
