"""Slipstream: FastAPI-style decorators over a C++ HTTP engine.

Routing, parsing, parameter coercion, validation (FastAPI's 422 bodies) and JSON serialization run in C++;
the handler body is the only Python on a request's path.
"""

from . import status
from .app import App
from .background import BackgroundTasks
from .database import Database, DatabaseError, Record, get_database
from .datastructures import FormData, UploadFile
from .dependencies import Depends, Security, SecurityScopes
from .exceptions import HTTPException, RequestValidationError
from .forms import File, Form
from .params import Body, Cookie, Header, Path, Query
from .requests import Request
from .responses import (
    EventSourceResponse,
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from .routing import APIRouter
from .staticfiles import StaticFiles
from .testclient import TestClient
from .websockets import WebSocket, WebSocketDisconnect, WebSocketException

__version__ = "0.1.0"

__all__ = [
    "APIRouter",
    "App",
    "BackgroundTasks",
    "Body",
    "Cookie",
    "Database",
    "DatabaseError",
    "Depends",
    "EventSourceResponse",
    "File",
    "FileResponse",
    "Form",
    "FormData",
    "HTMLResponse",
    "HTTPException",
    "Header",
    "JSONResponse",
    "Path",
    "PlainTextResponse",
    "Query",
    "Record",
    "RedirectResponse",
    "Request",
    "RequestValidationError",
    "Response",
    "Security",
    "SecurityScopes",
    "StaticFiles",
    "StreamingResponse",
    "TestClient",
    "UploadFile",
    "WebSocket",
    "WebSocketDisconnect",
    "WebSocketException",
    "get_database",
    "status",
]
