"""The package as a user gets it. `make wheel`'s manylinux wheel installed into a fresh venv that has no build tools
serves a smoke app on a real socket (a route, a 422, /openapi.json) and through the TestClient, with the native
libraries it bundles; the sdist holds what a build needs, and a build from it on a machine that lacks system
libraries stops with one error naming each of them and its package.

The wheel is built by scripts/build_wheel.sh into a temporary folder: with the editable install of scripts/setup.sh
up to date that relinks nothing (about a minute here, most of it auditwheel); from a cold build-pip/ it compiles the
extension (make test runs setup first, so it is warm there). The fresh venv installs pydantic from the package index.
"""

from __future__ import annotations

import http.client
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tarfile
import threading
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# make test runs tests/ a second time on io_uring (SLIPSTREAM_IO_URING=1): the wheel does not depend on the backend.
pytestmark = pytest.mark.skipif(
    os.environ.get("SLIPSTREAM_IO_URING", "") not in ("", "0"), reason="checked once, in the epoll pass of make test"
)
# The libraries a manylinux wheel may take from the system (the policy's list); every other one must be bundled.
SYSTEM_LIBRARIES = {
    "libc.so.6",
    "libm.so.6",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
    "libz.so.1",
}
BUILD_TOOLS = {"scikit-build-core", "scikit_build_core", "nanobind", "cmake", "ninja"}

SMOKE_APP = """
import sys

from pydantic import BaseModel

from slipstream import App, TestClient

app = App(title="smoke")


class Item(BaseModel):
    name: str
    price: float


@app.get("/hello/{name}")
def hello(name: str, times: int = 1) -> dict[str, str]:
    return {"hello": name * times}


@app.post("/items", status_code=201)
def create(item: Item) -> Item:
    return item


if __name__ == "__main__":
    with TestClient(app) as client:
        assert client.get("/hello/ab", params={"times": 2}).json() == {"hello": "abab"}
        created = client.post("/items", json={"name": "tea", "price": 2.5})
        assert (created.status_code, created.json()) == (201, {"name": "tea", "price": 2.5})
        missing = client.post("/items", json={"name": "tea"})
        assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "price"]
        assert set(client.get("/openapi.json").json()["paths"]) == {"/hello/{name}", "/items"}
    import slipstream
    print("testclient ok", slipstream.__file__)
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """make wheel's output for this interpreter (sdist and repaired wheel), in a folder of its own."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build_wheel.sh")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
        env={**os.environ, "PYTHON": sys.executable, "WHEEL_DIR": str(out)},
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return out


def the_wheel(dist: pathlib.Path) -> pathlib.Path:
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    (wheel,) = dist.glob(f"slipstream-*-{tag}-{tag}-*.whl")
    return wheel


@pytest.fixture(scope="module")
def fresh_venv(dist: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A new venv with the wheel installed from binaries only, no compiler reachable."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {**os.environ, "CC": "/bin/false", "CXX": "/bin/false", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    wheel = str(the_wheel(dist))
    installed = run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--only-binary=:all:", wheel], env=env, timeout=600
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """`argv` with its output captured as text; the caller checks the exit status."""
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]


def clean_env() -> dict[str, str]:
    """The environment without anything that would point Python at the repository's checkout or build."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "SLIPSTREAM_BUILD_DIR")
    }


def test_the_wheel_is_manylinux_and_bundles_what_the_extension_links(dist: pathlib.Path) -> None:
    wheel = the_wheel(dist)
    assert re.search(r"-manylinux_2_\d+_x86_64\.whl$", wheel.name), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    bundled = {pathlib.PurePath(n).name for n in names if n.startswith("slipstream.libs/")}
    # zlib is on the policy's list of libraries every manylinux system has: not bundled.
    for library in (
        "libssl",
        "libcrypto",
        "libre2",
        "libsimdjson",
        "libzstd",
        "libbrotlienc",
        "libpq",
        "libsqlite3",
        "liburing",
    ):
        assert any(name.startswith(library + "-") for name in bundled), (library, sorted(bundled))
    assert any(re.fullmatch(r"slipstream/_native\.cpython-\d+-x86_64-linux-gnu\.so", n) for n in names)
    assert not [n for n in names if n.startswith(("tests/", "python/tests", "bench/"))]


def test_a_fresh_venv_without_build_tools_runs_the_wheel(fresh_venv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    python = fresh_venv / "bin" / "python"
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"],
        capture_output=True,
        text=True,
        check=True,
        env=clean_env(),
        timeout=120,
    ).stdout
    packages = {p["name"].lower() for p in json.loads(listed)}
    assert "slipstream" in packages and "pydantic" in packages
    assert packages & BUILD_TOOLS == set()

    # The extension's libraries come from the wheel's slipstream.libs/, not from the system.
    probe = "import slipstream._native as n, sys; print(n.__file__); sys.stdout.write(open('/proc/self/maps').read())"
    where = run([str(python), "-c", probe], cwd=tmp_path, env=clean_env(), timeout=120)
    assert where.returncode == 0, where.stderr
    native, maps = where.stdout.split("\n", 1)
    assert native.startswith(str(fresh_venv)), native
    mapped = set(re.findall(r"(/\S+\.so[.\d]*)$", maps, flags=re.MULTILINE))
    for library in ("libssl", "libre2", "libsimdjson", "libpq"):
        (path,) = {p for p in mapped if pathlib.Path(p).name.startswith(library + "-")}
        assert "/slipstream.libs/" in path, path
    dynamic = subprocess.run(["readelf", "-d", native], capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic))
    libs = {p.name for p in (pathlib.Path(native).parents[1] / "slipstream.libs").iterdir()}
    assert needed - SYSTEM_LIBRARIES - libs == set() and needed & libs

    (tmp_path / "smoke.py").write_text(SMOKE_APP)
    tested = run([str(python), "smoke.py"], cwd=tmp_path, env=clean_env(), timeout=120)
    assert tested.returncode == 0 and tested.stdout.startswith(f"testclient ok {fresh_venv}"), tested.stderr

    server = subprocess.Popen(
        [str(fresh_venv / "bin" / "slipstream"), "run", "smoke:app", "--port", "0", "--threads", "1"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        assert server.stderr is not None
        # The log's first lines: notices (the [docs] extra is not installed), then the address it serves on.
        seen = ""
        watchdog = threading.Timer(120, server.kill)  # a server that never says where it listens ends the wait
        watchdog.start()
        try:
            while not (match := re.search(r"serving smoke on http://127\.0\.0\.1:(\d+)", seen)):
                line = server.stderr.readline()
                assert line and len(seen) < 10_000, seen
                seen += line
        finally:
            watchdog.cancel()
        port = int(match.group(1))

        def call(method: str, path: str, body: object = None) -> tuple[int, object]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                payload = None if body is None else json.dumps(body)
                conn.request(method, path, body=payload, headers={"content-type": "application/json"})
                response = conn.getresponse()
                return response.status, json.loads(response.read())
            finally:
                conn.close()

        assert call("GET", "/hello/ab?times=3") == (200, {"hello": "ababab"})
        assert call("POST", "/items", {"name": "tea", "price": 2.5}) == (201, {"name": "tea", "price": 2.5})
        status, body = call("POST", "/items", {"name": "tea", "price": "free"})
        assert status == 422 and isinstance(body, dict)
        assert [(e["loc"], e["type"]) for e in body["detail"]] == [(["body", "price"], "float_parsing")]
        status, document = call("GET", "/openapi.json")
        assert status == 200 and isinstance(document, dict)
        assert document["info"]["title"] == "smoke"
        assert set(document["paths"]) == {"/hello/{name}", "/items"}
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert server.returncode == 0


def test_the_sdist_holds_the_sources_a_build_needs(dist: pathlib.Path) -> None:
    (sdist,) = dist.glob("slipstream-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in (
        "pyproject.toml",
        "CMakeLists.txt",
        "cmake/SystemLibraries.cmake",
        "PKG-INFO",
        "python/bindings/CMakeLists.txt",
        "python/slipstream/app.py",
        "src/server/CMakeLists.txt",
        "include/slipstream/app.h",
        "examples/CMakeLists.txt",
        "python/README.md",
    ):
        assert needed in names, needed
    for left_out in ("tests/", "python/tests/", "bench/", "models/", "fuzz/corpus/", "deploy/", "build"):
        assert not [n for n in names if n.startswith(left_out)], left_out


def test_a_build_from_the_sdist_names_every_missing_system_library(dist: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """pkg-config loses re2, zstd and nghttp2 and CMake simdjson: the build stops at configure, the error lists the
    first three with their packages, and not nghttp2 (a build from the sdist has no tests)."""
    (sdist,) = dist.glob("slipstream-*.tar.gz")
    pc_dirs = (
        subprocess.run(
            ["pkg-config", "--variable", "pc_path", "pkg-config"], capture_output=True, text=True, check=True
        )
        .stdout.strip()
        .split(":")
    )
    fake = tmp_path / "pkgconfig"
    fake.mkdir()
    for folder in map(pathlib.Path, pc_dirs):
        for pc in folder.glob("*.pc") if folder.is_dir() else ():
            if pc.name not in ("re2.pc", "libzstd.pc", "libnghttp2.pc") and not (fake / pc.name).exists():
                (fake / pc.name).symlink_to(pc)
    env = {**clean_env(), "PKG_CONFIG_LIBDIR": str(fake), "CMAKE_ARGS": "-DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON"}
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-w",
            str(tmp_path / "out"),
            str(sdist),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    output = built.stdout + built.stderr
    assert built.returncode != 0
    assert "- simdjson (Debian/Ubuntu: libsimdjson-dev, Fedora: simdjson-devel)" in output, output[-3000:]
    assert "- RE2 (re2) (Debian/Ubuntu: libre2-dev, Fedora: re2-devel)" in output
    assert "- zstd (libzstd) (Debian/Ubuntu: libzstd-dev, Fedora: libzstd-devel)" in output
    assert "nghttp2" not in output and "OpenSSL (" not in output
    prose = " ".join(output.split())
    assert "Slipstream cannot be built: these system libraries (their development packages) are missing:" in prose
    assert "Slipstream's C++ engine could not be built from source." in prose
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
