"""`await request.form()` (and `async with request.form()`), request.body() beside it, and Form()/File()
parameters of dependencies, as FastAPI serves them."""

from typing import Annotated, Any

import pytest
from slipstream import App, Depends, Form, Request, TestClient, UploadFile
from test_forms import multipart

URLENCODED = {"content-type": "application/x-www-form-urlencoded"}


def form_app() -> tuple[App, list[bool]]:
    app = App()
    closed: list[bool] = []

    @app.post("/form")
    async def read_form(request: Request) -> dict[str, Any]:
        form = await request.form()
        again = await request.form()
        items = []
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                items.append([key, value.filename, (await value.read()).decode()])
            else:
                items.append([key, value])
        return {"items": items, "same": form is again, "body": len(await request.body())}

    @app.post("/context")
    async def in_context(request: Request) -> dict[str, Any]:
        async with request.form(max_files=1) as form:
            upload = form["f"]
            assert isinstance(upload, UploadFile)
        closed.append(upload.file.closed)
        return {"name": upload.filename}

    @app.post("/limits")
    async def limits(request: Request) -> int:
        return len(await request.form(max_fields=1))

    @app.post("/sync")
    def sync(request: Request) -> dict[str, str]:
        return dict(request.form_sync())

    return app, closed


def test_request_form_urlencoded_and_multipart() -> None:
    app, _ = form_app()
    with TestClient(app) as client:
        r = client.post("/form", content=b"a=1&b=x%20y&a=2", headers=URLENCODED)
        assert r.json() == {"items": [["a", "1"], ["b", "x y"], ["a", "2"]], "same": True, "body": 15}
        body, headers = multipart([("t", "v"), ("f", ("n.txt", b"data", "text/plain"))])
        r = client.post("/form", content=body, headers=headers)
        assert r.json() == {"items": [["t", "v"], ["f", "n.txt", "data"]], "same": True, "body": len(body)}
        r = client.post("/form", json={"a": 1})
        assert r.json() == {"items": [], "same": True, "body": 7}
        assert client.post("/sync", content=b"k=v", headers=URLENCODED).json() == {"k": "v"}


def test_request_form_as_context_manager_closes_uploads() -> None:
    app, closed = form_app()
    with TestClient(app) as client:
        body, headers = multipart([("f", ("a.bin", b"\x00", "application/octet-stream"))])
        assert client.post("/context", content=body, headers=headers).json() == {"name": "a.bin"}
        assert closed == [True]


@pytest.mark.parametrize(("path", "body", "detail"), [
    ("/limits", b"a=1&b=2", "Too many fields. Maximum number of fields is 1."),
    ("/context", None, "Too many files. Maximum number of files is 1."),
])
def test_request_form_limits_are_400(path: str, body: bytes | None, detail: str) -> None:
    app, _ = form_app()
    headers = URLENCODED
    if body is None:
        body, headers = multipart([("f", ("a", b"1", "text/plain")), ("g", ("b", b"2", "text/plain"))])
    with TestClient(app) as client:
        r = client.post(path, content=body, headers=headers)
        assert (r.status_code, r.json()) == (400, {"detail": detail})


def credentials(username: Annotated[str, Form()], password: Annotated[str, Form(min_length=3)]) -> str:
    return f"{username}:{len(password)}"


async def upload_name(file: UploadFile) -> str:
    return f"{file.filename}={(await file.read()).decode()}"


def form_dependency_app() -> App:
    app = App()

    @app.post("/login")
    def login(who: Annotated[str, Depends(credentials)], remember: Annotated[bool, Form()] = False) -> dict[str, Any]:
        return {"who": who, "remember": remember}

    @app.post("/upload")
    def upload(name: Annotated[str, Depends(upload_name)], q: int = 0) -> dict[str, Any]:
        return {"name": name, "q": q}

    return app


def test_form_fields_in_dependencies() -> None:
    with TestClient(form_dependency_app()) as client:
        r = client.post("/login", content=b"username=ann&password=secret&remember=true", headers=URLENCODED)
        assert r.json() == {"who": "ann:6", "remember": True}
        body, headers = multipart([("username", "bob"), ("password", "pw12")])
        assert client.post("/login", content=body, headers=headers).json() == {"who": "bob:4", "remember": False}
        r = client.post("/login", content=b"username=ann&password=s", headers=URLENCODED)
        assert r.status_code == 422
        assert [(e["type"], e["loc"]) for e in r.json()["detail"]] == [("string_too_short", ["body", "password"])]
        r = client.post("/login", content=b"password=secret", headers=URLENCODED)
        assert [(e["type"], e["loc"]) for e in r.json()["detail"]] == [("missing", ["body", "username"])]
        body, headers = multipart([("file", ("f.txt", b"hi", "text/plain"))])
        assert client.post("/upload?q=2", content=body, headers=headers).json() == {"name": "f.txt=hi", "q": 2}
        assert client.post("/upload?q=x", content=body, headers=headers).status_code == 422
