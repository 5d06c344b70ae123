"""FastAPI vs Slipstream on the tutorial pages "Form Data", "Form Models", "Request Files" and "Request Forms and
Files": Form fields, a form model (extra fields forbidden), bytes and UploadFile parameters (optional, with
metadata, lists of files), files and fields together, the errors of missing or wrong parts, and the OpenAPI
document (Body_<operation> schemas, multipart and urlencoded media types).

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")
pytest.importorskip("multipart")

from pydantic import BaseModel

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class FormData(BaseModel):
    username: str
    password: str
    model_config = {"extra": "forbid"}


def forms_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.post("/login/")
    async def login(username: Annotated[str, fw.Form()], password: Annotated[str, fw.Form()]) -> Any:
        return {"username": username}

    @app.post("/login-model/")
    async def login_model(data: Annotated[FormData, fw.Form()]) -> Any:
        return data

    @app.post("/files/")
    async def create_file(file: Annotated[bytes | None, fw.File(description="A file read as bytes")] = None) -> Any:
        if not file:
            return {"message": "No file sent"}
        return {"file_size": len(file)}

    @app.post("/uploadfile/")
    async def create_upload_file(file: Annotated[fw.UploadFile, fw.File(description="Read as UploadFile")]) -> Any:
        content = await file.read()
        return {"filename": file.filename, "content_type": file.content_type, "size": len(content)}

    @app.post("/uploadfiles/")
    async def create_upload_files(files: list[fw.UploadFile]) -> Any:
        return {"filenames": [file.filename for file in files]}

    @app.post("/both/")
    async def create_both(
        file: Annotated[bytes, fw.File()], fileb: Annotated[fw.UploadFile, fw.File()], token: Annotated[str, fw.Form()]
    ) -> Any:
        return {"file_size": len(file), "token": token, "fileb_content_type": fileb.content_type}

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"forms": forms_app})


TXT = ("a.txt", b"hello world", "text/plain")
PNG = ("b.png", b"\x89PNG\r\n\x1a\nfake", "image/png")
ROWS = [
    page_row("forms", "POST", "/login/", form={"username": "ann", "password": "secret"}),
    page_row("forms", "POST", "/login/", form={"username": "ann"}),
    page_row("forms", "POST", "/login/", json={"username": "ann", "password": "secret"}),
    page_row("forms", "POST", "/login-model/", form={"username": "ann", "password": "secret"}),
    page_row("forms", "POST", "/login-model/", form={"username": "ann", "password": "s", "extra": "x"}),
    page_row("forms", "POST", "/login-model/", form={"password": "s"}),
    page_row("forms", "POST", "/files/", files={"file": TXT}),
    page_row("forms", "POST", "/files/", form={"other": "x"}),
    page_row("forms", "POST", "/uploadfile/", files={"file": PNG}),
    page_row("forms", "POST", "/uploadfile/", form={"file": "not a file"}),
    page_row("forms", "POST", "/uploadfile/", form={"x": "y"}),
    page_row("forms", "POST", "/uploadfiles/", files={"files": TXT}),
    page_row("forms", "POST", "/both/", form={"token": "t"}, files={"file": TXT, "fileb": PNG}),
    page_row("forms", "POST", "/both/", files={"file": TXT, "fileb": PNG}),
    page_row("forms", "GET", "/openapi.json"),
]

test_same_answer = same_answer_test(ROWS)
