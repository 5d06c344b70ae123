"""Form() / File() / UploadFile: urlencoded and multipart bodies parsed in C++, fields validated like FastAPI.

Each behaviour runs through slipstream's TestClient and, where FastAPI (with python-multipart) is installed, the
same app code on FastAPI must give the same status and JSON body. A few run over a real socket with httpx.
"""


import importlib.util
import json
from typing import Annotated, Any

import httpx
import pytest
import slipstream
from pydantic import BaseModel, Field
from slipstream import App, File, Form, TestClient, UploadFile

HAVE_FASTAPI = importlib.util.find_spec("fastapi") is not None and \
    importlib.util.find_spec("python_multipart") is not None


def multipart(parts: list[tuple[str, Any]], boundary: str = "b0undary") -> tuple[bytes, dict[str, str]]:
    """A multipart/form-data body: (name, "text") or (name, (filename, bytes, content_type))."""
    out = b""
    for name, value in parts:
        out += f"--{boundary}\r\n".encode()
        if isinstance(value, tuple):
            filename, data, ctype = value
            out += f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'.encode()
            out += f"Content-Type: {ctype}\r\n\r\n".encode() + data + b"\r\n"
        else:
            out += f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value.encode() + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return out, {"content-type": f"multipart/form-data; boundary={boundary}"}


class Profile(BaseModel):
    username: str = Field(min_length=2)
    age: int = 0
    tags: list[str] = []


def build(fw: Any) -> Any:
    """The same routes on FastAPI (fw = fastapi) or Slipstream (fw = slipstream)."""
    app = fw.FastAPI() if fw.__name__ == "fastapi" else fw.App()
    Form_, File_, Upload = fw.Form, fw.File, fw.UploadFile

    @app.post("/login")
    def login(username: Annotated[str, Form_(min_length=2)], age: Annotated[int, Form_(ge=0)] = 18,
              remember: Annotated[bool, Form_()] = False) -> dict[str, Any]:
        return {"username": username, "age": age, "remember": remember}

    @app.post("/tags")
    async def tags(tag: Annotated[list[str], Form_()], note: Annotated[str | None, Form_()] = None) -> dict[str, Any]:
        return {"tag": tag, "note": note}

    @app.post("/upload")
    async def upload(file: Upload, title: Annotated[str, Form_()] = "none") -> dict[str, Any]:
        data = await file.read()
        return {"filename": file.filename, "content_type": file.content_type, "size": file.size,
                "data": data.decode(), "title": title}

    @app.post("/bytes")
    def raw(file: Annotated[bytes, File_()]) -> dict[str, Any]:
        return {"length": len(file), "head": file[:5].decode()}

    @app.post("/many")
    async def many(files: list[Upload]) -> dict[str, Any]:
        return {"names": [f.filename for f in files], "sizes": [f.size for f in files]}

    @app.post("/optional-file")
    def optional_file(file: Annotated[Upload | None, File_()] = None) -> dict[str, Any]:
        return {"file": None if file is None else file.filename}

    @app.post("/profile")
    def profile(data: Annotated[Profile, Form_()]) -> dict[str, Any]:
        return data.model_dump()

    return app


def slipstream_client() -> TestClient:
    return TestClient(build(slipstream))


@pytest.fixture(scope="module")
def client() -> Any:
    with slipstream_client() as c:
        yield c


@pytest.fixture(scope="module")
def fastapi_client() -> Any:
    if not HAVE_FASTAPI:
        pytest.skip("fastapi and python-multipart are not installed")
    import fastapi
    from fastapi.testclient import TestClient as FastAPIClient

    return FastAPIClient(build(fastapi))


URLENCODED = {"content-type": "application/x-www-form-urlencoded"}

# (path, body, headers): each case is sent to both frameworks.
CASES: list[tuple[str, bytes, dict[str, str]]] = [
    ("/login", b"username=ann&age=30&remember=on", URLENCODED),
    ("/login", b"username=ann", URLENCODED),
    ("/login", b"username=a", URLENCODED),
    ("/login", b"age=3", URLENCODED),
    ("/login", b"username=ann&age=x", URLENCODED),
    ("/login", b"username=ann&age=-1", URLENCODED),
    ("/login", b"username=&age=", URLENCODED),
    ("/login", b"username=h%C3%A9llo+w&remember=false", URLENCODED),
    ("/login", b"", URLENCODED),
    ("/login", b'{"username": "ann"}', {"content-type": "application/json"}),
    ("/tags", b"tag=a&tag=b&note=n", URLENCODED),
    ("/tags", b"note=n", URLENCODED),
    ("/tags", *multipart([("tag", "x"), ("tag", "y")])),
    ("/upload", *multipart([("file", ("a.txt", b"hello", "text/plain")), ("title", "T")])),
    ("/upload", *multipart([("title", "T")])),
    ("/upload", *multipart([("file", "not a file")])),
    ("/bytes", *multipart([("file", ("b.bin", b"\x00\x01binary data", "application/octet-stream"))])),
    ("/bytes", *multipart([])),
    ("/many", *multipart([("files", ("1.txt", b"1", "text/plain")), ("files", ("2.txt", b"22", "text/plain"))])),
    ("/many", *multipart([("files", ("", b"", "application/octet-stream"))])),
    ("/optional-file", *multipart([("other", "x")])),
    ("/optional-file", *multipart([("file", ("c.txt", b"c", "text/plain"))])),
    ("/profile", b"username=ann&age=3&tags=a&tags=b", URLENCODED),
    ("/profile", b"username=a&age=old", URLENCODED),
    ("/profile", b"age=1", URLENCODED),
]


@pytest.mark.parametrize(("path", "body", "headers"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_same_as_fastapi(client: TestClient, fastapi_client: Any, path: str, body: bytes,
                         headers: dict[str, str]) -> None:
    ours = client.post(path, content=body, headers=headers)
    theirs = fastapi_client.post(path, content=body, headers=headers)
    assert (ours.status_code, ours.json()) == (theirs.status_code, theirs.json())


def test_urlencoded_values_and_missing_field(client: TestClient) -> None:
    r = client.post("/login", content=b"username=ann&age=30&remember=on", headers=URLENCODED)
    assert (r.status_code, r.json()) == (200, {"username": "ann", "age": 30, "remember": True})
    r = client.post("/login", content=b"age=3", headers=URLENCODED)
    assert r.status_code == 422
    assert r.json() == {"detail": [{"type": "missing", "loc": ["body", "username"], "msg": "Field required",
                                    "input": None}]}


def test_upload_file_attributes(client: TestClient) -> None:
    body, headers = multipart([("file", ("a.txt", b"hello", "text/plain")), ("title", "T")])
    r = client.post("/upload", content=body, headers=headers)
    assert r.json() == {"filename": "a.txt", "content_type": "text/plain", "size": 5, "data": "hello", "title": "T"}


def test_form_data_on_the_request() -> None:
    app = App()

    @app.post("/echo")
    def echo(request: slipstream.Request, a: Annotated[str, Form()]) -> dict[str, Any]:
        return {"a": a}

    with TestClient(app) as c:
        assert c.post("/echo", content=b"a=%2B1", headers=URLENCODED).json() == {"a": "+1"}


def test_large_upload_is_spooled_to_disk() -> None:
    app = App(form_limits={"spool_max_size": 1024})
    seen: dict[str, Any] = {}

    @app.post("/up")
    async def up(file: UploadFile) -> dict[str, Any]:
        seen["in_memory"] = file._in_memory
        data = await file.read()
        await file.seek(10)
        seen["after_seek"] = await file.read(5)
        return {"size": file.size, "ok": data == payload}

    payload = bytes(range(256)) * 64  # 16 KiB with CRs and LFs inside
    small = b"tiny"
    with TestClient(app) as c:
        body, headers = multipart([("file", ("big.bin", payload, "application/octet-stream"))])
        assert c.post("/up", content=body, headers=headers).json() == {"size": len(payload), "ok": True}
        assert seen == {"in_memory": False, "after_seek": payload[10:15]}
        body, headers = multipart([("file", ("small.bin", small, "application/octet-stream"))])
        assert c.post("/up", content=body, headers=headers).json() == {"size": 4, "ok": False}
        assert seen["in_memory"] is True


LIMIT_CASES = [
    ({"max_fields": 2}, b"a=1&b=2&c=3", URLENCODED, "Too many fields. Maximum number of fields is 2."),
    ({"max_part_size": 1024}, b"a=" + b"x" * 1025, URLENCODED, "Field exceeded maximum size of 1KB."),
    ({"max_files": 1}, *multipart([("f", ("1", b"1", "text/plain")), ("f", ("2", b"2", "text/plain"))]),
     "Too many files. Maximum number of files is 1."),
    ({"max_fields": 1}, *multipart([("a", "1"), ("b", "2")]), "Too many fields. Maximum number of fields is 1."),
    ({"max_part_size": 2048}, *multipart([("a", "x" * 2049)]), "Part exceeded maximum size of 2KB."),
    ({"max_file_size": 3}, *multipart([("f", ("1", b"1234", "text/plain"))]), "File exceeded maximum size of 3 bytes."),
    ({}, b"--b0undary\r\nContent-Type: text/plain\r\n\r\nx\r\n--b0undary--", multipart([])[1],
     'The Content-Disposition header field "name" must be provided.'),
    ({}, b"--b0undary\r\nContent-Disposition: form-data; name=a\r\n\r\nx", multipart([])[1],
     "Invalid multipart data: the body ended before the closing boundary."),
    ({}, b"--x--", {"content-type": "multipart/form-data"}, "Missing boundary in multipart."),
]


@pytest.mark.parametrize(("limits", "body", "headers", "detail"), LIMIT_CASES)
def test_limits_and_malformed_bodies_are_400(limits: dict[str, int], body: bytes, headers: dict[str, str],
                                             detail: str) -> None:
    app = App(form_limits=limits)

    @app.post("/f")
    def f(a: Annotated[str, Form()] = "", f: Annotated[list[UploadFile] | None, File()] = None) -> dict[str, Any]:
        return {"a": a}

    with TestClient(app) as c:
        r = c.post("/f", content=body, headers=headers)
    assert (r.status_code, r.json()) == (400, {"detail": detail})


def test_route_level_limits_win_over_app_ones() -> None:
    app = App(form_limits={"max_fields": 1})

    @app.post("/f", form_limits={"max_fields": 3})
    def f(a: Annotated[list[str], Form()]) -> dict[str, Any]:
        return {"a": a}

    with TestClient(app) as c:
        assert c.post("/f", content=b"a=1&a=2&a=3", headers=URLENCODED).json() == {"a": ["1", "2", "3"]}
        assert c.post("/f", content=b"a=1&a=2&a=3&a=4", headers=URLENCODED).status_code == 400


def test_bad_limits_are_refused_at_startup() -> None:
    with pytest.raises(TypeError, match="unknown form limit"):
        App(form_limits={"max_feilds": 1})
    app = App()
    with pytest.raises(ValueError, match="non-negative"):
        @app.post("/x", form_limits={"max_fields": -1})
        def x(a: Annotated[str, Form()]) -> None: ...


def test_over_a_real_socket_with_httpx() -> None:
    app = build(slipstream)
    native = app.build(access_log=False, threads=1)
    native.listen("127.0.0.1", 0)
    native.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{native.port}") as h:
            r = h.post("/upload", files={"file": ("x.csv", b"a,b\n1,2\n", "text/csv")}, data={"title": "csv"})
            assert r.json() == {"filename": "x.csv", "content_type": "text/csv", "size": 8, "data": "a,b\n1,2\n",
                                "title": "csv"}
            r = h.post("/many", files=[("files", ("1", b"a" * 100_000)), ("files", ("2", b"b"))])
            assert r.json() == {"names": ["1", "2"], "sizes": [100_000, 1]}
            r = h.post("/login", data={"username": "zed", "age": "5"})
            assert r.json() == {"username": "zed", "age": 5, "remember": False}
    finally:
        native.stop()
        native.wait()


def test_form_fields_leave_the_signature_seen_elsewhere() -> None:
    app = build(slipstream)
    route = next(r for r in app.routes if r.path == "/upload")
    assert "file" not in json.dumps([a[0] for a in route.shape.args])
    assert route.endpoint.__slipstream_form_fields__[0].name == "file"
