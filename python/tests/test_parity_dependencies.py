"""A `yield` dependency's exit code runs after a streamed or file response was sent (FastAPI's order), with and
without HTTP middleware."""

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from slipstream import App, Depends, FileResponse, StreamingResponse, TestClient


def build(log: list[str], tmp_path: Path, middleware: bool) -> App:
    app = App()
    path = tmp_path / "f.txt"
    path.write_bytes(b"file-body")

    def resource() -> Iterator[str]:
        log.append("open")
        yield "r"
        log.append("close")

    @app.get("/stream")
    def stream(r: Annotated[str, Depends(resource)]) -> Any:
        async def body() -> Any:
            for i in range(3):
                log.append(f"chunk{i}")
                yield f"{r}{i};"

        return StreamingResponse(body(), media_type="text/plain")

    @app.get("/file")
    def file(r: Annotated[str, Depends(resource)]) -> Any:
        log.append("handler")
        return FileResponse(path)

    if middleware:
        @app.middleware("http")
        async def passthrough(request: Any, call_next: Any) -> Any:
            return await call_next(request)

    return app


@pytest.mark.parametrize("middleware", [False, True])
def test_yield_exit_after_streamed_body(tmp_path: Path, middleware: bool) -> None:
    log: list[str] = []
    with TestClient(build(log, tmp_path, middleware)) as client:
        r = client.get("/stream")
        assert r.content == b"r0;r1;r2;"
        assert log == ["open", "chunk0", "chunk1", "chunk2", "close"]
        log.clear()
        assert client.get("/file").content == b"file-body"
        assert log == ["open", "handler", "close"]
