"""FileResponse (ETag, Last-Modified, 304, Range, HEAD, large files sent by the engine), StaticFiles mounts (html, 404.html,
path traversal refused) and cookies set on responses. Compared with FastAPI where it is installed."""


import email.utils
import hashlib
import importlib.util
import os
import re
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
import slipstream
from slipstream import App, FileResponse, Response, StaticFiles, TestClient

HAVE_FASTAPI = importlib.util.find_spec("fastapi") is not None
CONTENT = b"0123456789abcdefghij"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    (root / "public").mkdir()
    (root / "public" / "a.txt").write_bytes(CONTENT)
    (root / "public" / "index.html").write_text("<h1>home</h1>")
    (root / "public" / "404.html").write_text("<h1>missing</h1>")
    (root / "public" / "docs").mkdir()
    (root / "public" / "docs" / "index.html").write_text("<h1>docs</h1>")
    (root / "public" / "data.json").write_text('{"k": 1}')
    (root / "plain").mkdir()
    (root / "plain" / "b.css").write_text("body{}")
    (root / "secret.txt").write_text("top secret")
    (root / "public" / "escape").symlink_to(root / "secret.txt")
    (root / "big.bin").write_bytes(bytes(range(256)) * 8192)  # 2 MiB
    return root


def build(fw: Any, site: Path) -> Any:
    fastapi = fw.__name__ == "fastapi"
    app = fw.FastAPI() if fastapi else fw.App()
    if fastapi:
        from fastapi.responses import FileResponse as File
        from fastapi.responses import Response as Resp
        from fastapi.staticfiles import StaticFiles as Static
    else:
        File, Resp, Static = FileResponse, Response, StaticFiles

    @app.get("/file")
    def file() -> Any:
        return File(site / "public" / "a.txt")

    @app.get("/download")
    def download() -> Any:
        return File(site / "public" / "data.json", filename="résumé data.json")

    @app.get("/attach")
    def attach() -> Any:
        return File(site / "public" / "a.txt", filename="a.txt", headers={"x-extra": "1"})

    @app.get("/cookie")
    def cookie(response: Resp) -> dict[str, str]:
        response.set_cookie("session", "abc", max_age=60, httponly=True)
        response.set_cookie("theme", "dark", path="/ui", samesite="strict", secure=True)
        response.delete_cookie("old")
        response.headers["x-custom"] = "yes"
        return {"ok": "yes"}

    @app.get("/cookie-status", status_code=200)
    def cookie_status(response: Resp) -> dict[str, str]:
        response.status_code = 201
        response.set_cookie("a", "b c")
        return {"created": "yes"}

    @app.get("/cookie-response")
    def cookie_response() -> Any:
        r = Resp(content="hi", media_type="text/plain")
        r.set_cookie("direct", "1", expires=120)
        return r

    app.mount("/static", Static(directory=site / "public", html=True), name="static")
    app.mount("/plain", Static(directory=site / "plain"), name="plain")
    return app


@pytest.fixture(scope="module")
def client(site: Path) -> Any:
    with TestClient(build(slipstream, site), compression=False, follow_redirects=False) as c:
        yield c


@pytest.fixture(scope="module")
def fastapi_client(site: Path) -> Any:
    if not HAVE_FASTAPI:
        pytest.skip("fastapi is not installed")
    import fastapi
    from fastapi.testclient import TestClient as FastAPIClient

    return FastAPIClient(build(fastapi, site))


def etag_of(path: Path) -> str:
    st = os.stat(path)
    return '"' + hashlib.md5(f"{st.st_mtime}-{st.st_size}".encode(), usedforsecurity=False).hexdigest() + '"'


COMPARED_HEADERS = ("content-type", "etag", "last-modified", "accept-ranges", "content-disposition", "content-range",
                    "location", "x-extra", "x-custom")

CASES: list[tuple[str, dict[str, str]]] = [
    ("/file", {}),
    ("/file", {"range": "bytes=2-5"}),
    ("/file", {"range": "bytes=-3"}),
    ("/file", {"range": "bytes=15-"}),
    ("/file", {"range": "bytes=50-60"}),
    ("/file", {"range": "bytes=5-2"}),
    ("/file", {"range": "items=1-2"}),
    ("/file", {"range": "bytes=1-2", "if-range": '"stale"'}),
    ("/download", {}),
    ("/attach", {}),
    ("/static/a.txt", {}),
    ("/static/a.txt", {"range": "bytes=0-0"}),
    ("/static/", {}),
    ("/static/docs/", {}),
    ("/static/data.json", {}),
    ("/static/nope.txt", {}),
    ("/plain/b.css", {}),
    ("/plain/nope.css", {}),
    ("/plain/", {}),
    ("/static/escape", {}),
]


@pytest.mark.parametrize(("path", "headers"), CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CASES)])
def test_same_as_fastapi(client: TestClient, fastapi_client: Any, path: str, headers: dict[str, str]) -> None:
    ours = client.get(path, headers=headers)
    theirs = fastapi_client.get(path, headers=headers)
    assert ours.status_code == theirs.status_code
    assert ours.content == theirs.content
    for name in COMPARED_HEADERS:
        assert ours.headers.get(name) == theirs.headers.get(name), name


def test_file_response_headers(client: TestClient, site: Path) -> None:
    r = client.get("/file")
    st = os.stat(site / "public" / "a.txt")
    assert (r.status_code, r.content) == (200, CONTENT)
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert r.headers["content-length"] == "20"
    assert r.headers["accept-ranges"] == "bytes"
    assert r.headers["etag"] == etag_of(site / "public" / "a.txt")
    assert r.headers["last-modified"] == email.utils.formatdate(st.st_mtime, usegmt=True)
    r = client.get("/download")
    assert r.headers["content-disposition"] == "attachment; filename*=utf-8''r%C3%A9sum%C3%A9%20data.json"
    assert r.headers["content-type"] == "application/json"


def test_conditional_requests_answer_304(client: TestClient, site: Path) -> None:
    etag = etag_of(site / "public" / "a.txt")
    last_modified = client.get("/file").headers["last-modified"]
    for path in ("/file", "/static/a.txt"):
        for headers in ({"if-none-match": etag}, {"if-none-match": f'"x", W/{etag}'},
                        {"if-modified-since": last_modified}):
            r = client.get(path, headers=headers)
            assert (r.status_code, r.content, r.headers["etag"]) == (304, b"", etag), (path, headers)
            assert "content-type" not in r.headers
        assert client.get(path, headers={"if-none-match": '"other"'}).status_code == 200
        old = email.utils.formatdate(0, usegmt=True)
        assert client.get(path, headers={"if-modified-since": old}).status_code == 200


def test_ranges(client: TestClient) -> None:
    r = client.get("/file", headers={"range": "bytes=2-5"})
    assert (r.status_code, r.content, r.headers["content-range"], r.headers["content-length"]) == \
        (206, b"2345", "bytes 2-5/20", "4")
    r = client.get("/file", headers={"range": "bytes=50-60"})
    assert (r.status_code, r.headers["content-range"]) == (416, "bytes */20")
    r = client.get("/file", headers={"range": "bytes=0-1", "if-range": client.get("/file").headers["etag"]})
    assert (r.status_code, r.content) == (206, b"01")


def test_head(client: TestClient) -> None:
    r = client.head("/static/a.txt")
    assert (r.status_code, r.content, r.headers["content-length"]) == (200, b"", "20")
    assert r.headers["etag"]


def test_large_files_are_sent_by_the_engine(site: Path) -> None:
    app = App()
    big = site / "big.bin"

    @app.api_route("/big", methods=["GET", "HEAD"])  # a GET route alone answers HEAD 405, as FastAPI
    def big_file() -> FileResponse:
        return FileResponse(big)

    data = big.read_bytes()
    with TestClient(app, compression=False) as c:
        r = c.get("/big")
        assert (r.status_code, r.headers["content-length"], r.content == data) == (200, str(len(data)), True)
        assert "transfer-encoding" not in r.headers
        r = c.get("/big", headers={"range": "bytes=1000000-1999999"})
        assert (r.status_code, r.headers["content-range"], r.content == data[1000000:2000000]) == \
            (206, f"bytes 1000000-1999999/{len(data)}", True)
        r = c.head("/big")
        assert (r.status_code, r.content, r.headers["content-length"]) == (200, b"", str(len(data)))


def test_static_files(client: TestClient) -> None:
    assert client.get("/static/a.txt").content == CONTENT
    r = client.get("/static/")
    assert (r.status_code, r.text, r.headers["content-type"]) == (200, "<h1>home</h1>", "text/html; charset=utf-8")
    r = client.get("/static/docs")
    assert (r.status_code, r.headers["location"]) == (307, "http://testserver/static/docs/")
    assert client.get("/static/docs/").text == "<h1>docs</h1>"
    r = client.get("/static/nothing-here")
    assert (r.status_code, r.text) == (404, "<h1>missing</h1>")
    r = client.get("/plain/nothing")
    assert (r.status_code, r.json()) == (404, {"detail": "Not Found"})
    r = client.get("/static")
    assert (r.status_code, r.headers["location"]) == (307, "http://testserver/static/")
    assert client.post("/static/a.txt").status_code == 405


def test_static_files_refuse_path_traversal(site: Path, client: TestClient) -> None:
    for path in ("/static/escape", "/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/..%2fsecret.txt",
                 "/plain/%2e%2e/public/a.txt/../../secret.txt", "/static//etc/passwd"):
        r = client.get(path)
        assert b"top secret" not in r.content and b"root:" not in r.content, path
        assert r.status_code in (400, 404), path
    # Over a raw socket too: the target is sent exactly as written (no client-side normalization).
    native_port = client.port
    for target in (b"/static/../secret.txt", b"/static/..%2f..%2fsecret.txt", b"/plain/../../secret.txt"):
        with socket.create_connection(("127.0.0.1", native_port)) as s:
            s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        assert b"top secret" not in reply, target
        assert reply.split(b" ", 2)[1] in (b"400", b"404"), (target, reply[:80])


def test_static_directory_must_exist(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="does not exist"):
        StaticFiles(directory=tmp_path / "missing")


def test_cookies_and_injected_response(client: TestClient) -> None:
    r = client.get("/cookie")
    assert r.json() == {"ok": "yes"}
    cookies = r.headers.getlist("set-cookie")
    assert cookies[:2] == ["session=abc; HttpOnly; Max-Age=60; Path=/; SameSite=lax",
                           "theme=dark; Path=/ui; SameSite=strict; Secure"]
    # expires=0 is "now" in http.cookies (as in Starlette); Max-Age=0 deletes the cookie.
    assert cookies[2].startswith('old=""; expires=') and cookies[2].endswith(" GMT; Max-Age=0; Path=/; SameSite=lax")
    assert len(cookies) == 3
    assert r.headers["x-custom"] == "yes"
    r = client.get("/cookie-status")
    assert (r.status_code, r.headers["set-cookie"]) == (201, 'a="b c"; Path=/; SameSite=lax')


@pytest.mark.parametrize("path", ["/cookie", "/cookie-status", "/cookie-response"])
def test_cookies_same_as_fastapi(client: TestClient, fastapi_client: Any, path: str) -> None:
    ours, theirs = client.get(path), fastapi_client.get(path)
    assert (ours.status_code, ours.content) == (theirs.status_code, theirs.content)
    # A deleted cookie's `expires` is the current second, which may tick between the two requests.
    def cookies(values: list[str]) -> list[str]:
        return [re.sub(r"expires=[^;]*", "expires=NOW", v) for v in values]

    assert cookies(ours.headers.getlist("set-cookie")) == cookies(theirs.headers.get_list("set-cookie"))
    assert ours.headers.get("x-custom") == theirs.headers.get("x-custom")


def test_file_over_a_real_socket(site: Path) -> None:
    app = build(slipstream, site)
    native = app.build(access_log=False, threads=1)
    native.listen("127.0.0.1", 0)
    native.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{native.port}") as h:
            assert h.get("/static/a.txt").content == CONTENT
            r = h.get("/static/a.txt", headers={"range": "bytes=3-4"})
            assert (r.status_code, r.content) == (206, b"34")
    finally:
        native.stop()
        native.wait()
