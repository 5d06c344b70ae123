"""Response classes (Starlette-compatible): bytes, status, headers and media type sent as is (_core/response.py);
streamed bodies: StreamingResponse and EventSourceResponse (_streaming_responses.py), FileResponse
(_file_response.py)."""

from ._core.response import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from ._file_response import FileResponse
from ._json_responses import ORJSONResponse, UJSONResponse
from ._streaming_responses import EventSourceResponse, StreamingResponse

__all__ = ["EventSourceResponse", "FileResponse", "HTMLResponse", "JSONResponse", "ORJSONResponse", "PlainTextResponse",
           "RedirectResponse", "Response", "StreamingResponse", "UJSONResponse"]
