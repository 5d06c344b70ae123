"""The Dockerfile against the build: its runtime stage installs the package of every library the built extension
links, and its build stage installs only packages scripts/setup.sh also installs (no container engine runs here)."""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Present in debian:*-slim without being asked for: the C library, libgcc and libstdc++ (apt links them).
BASE_IMAGE = {"libc6", "libgcc-s1", "libstdc++6"}


def stage_packages(stage: str) -> set[str]:
    """The packages of the `apt-get install` in the Dockerfile stage named `stage`."""
    text = (ROOT / "Dockerfile").read_text()
    body = re.split(r"^FROM \S+ AS (\w+)\n", text, flags=re.MULTILINE)
    stages = dict(zip(body[1::2], body[2::2], strict=True))
    joined = re.sub(r"\\\n", " ", re.sub(r"^\s*#.*\n", "", stages[stage], flags=re.MULTILINE))
    (command,) = [line for line in joined.splitlines() if "apt-get install" in line]
    words = shlex.split(command)
    packages = words[words.index("--no-install-recommends") + 1:]
    return set(packages[:packages.index("&&")])


def package_of(soname: str) -> str:
    """The Debian package that ships the library `soname` as the dynamic loader finds it."""
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    match = re.search(rf"^\s*{re.escape(soname)} \(libc6,x86-64[^)]*\) => (\S+)$", cache, flags=re.MULTILINE)
    assert match, soname
    path = os.path.realpath(match.group(1))
    for candidate in (path, "/usr" + path, path.removeprefix("/usr")):
        found = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, check=False)
        if found.returncode == 0:
            return found.stdout.split(":")[0]
    raise AssertionError(f"no package ships {path}")


def test_the_runtime_stage_installs_every_library_the_extension_links() -> None:
    native = pytest.importorskip("slipstream._native")
    dynamic = subprocess.run(["readelf", "-d", native.__file__], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic)
    assert "libssl.so.3" in needed  # the extension was read
    packages = {package_of(soname) for soname in needed}
    assert packages - BASE_IMAGE - stage_packages("runtime") == set()


def test_the_build_stage_installs_what_scripts_setup_installs() -> None:
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    listed = re.search(r"^APT_PACKAGES=\((.*?)^\)", setup, flags=re.MULTILINE | re.DOTALL)
    assert listed
    known = {word for line in listed.group(1).splitlines() for word in line.split("#")[0].split()}
    build = stage_packages("build")
    assert {"libpq-dev", "libsqlite3-dev", "python3-dev"} <= build
    assert build - known == {"ca-certificates"}  # pip's HTTPS downloads in the build
