"""Builds and runs json_schema_compare_bench (Google Benchmark) and reads its JSON report."""
from __future__ import annotations

import json
import os
import re
import subprocess

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(BENCH_DIR)
TARGET = "json_schema_compare_bench"
BINARY = os.path.join("src", "json", "schema", TARGET)

# Benchmark name prefix -> contender name in the tables.
CONTENDERS = {
    "slipstream": "slipstream",
    "valijson_rapidjson": "valijson (rapidjson)",
    "valijson_nlohmann": "valijson (nlohmann)",
    "slipstream_parse_only": "slipstream parse only",
}
_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class BenchError(RuntimeError):
    """The C++ benchmark could not be built or run, or reported an error."""


def binary_path(build_dir: str) -> str:
    return os.path.join(build_dir, BINARY)


def cache_value(build_dir: str, key: str) -> str | None:
    """A CMakeCache.txt entry of the build folder, or None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(rf"^{re.escape(key)}:[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    return m.group(1)
    except OSError:
        return None
    return None


def build(build_dir: str) -> None:
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        raise BenchError(f"{build_dir} is not a configured build folder (run `make build` first)")
    out = subprocess.run(["cmake", "--build", build_dir, "--target", TARGET, "--", "-j2"], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        raise BenchError(f"building {TARGET} failed (valijson/rapidjson/nlohmann headers and Google Benchmark are "
                         f"needed):\n{out.stdout[-2000:]}{out.stderr[-2000:]}")


def command(build_dir: str, min_time_s: float) -> list[str]:
    return [binary_path(build_dir), "--benchmark_format=json", f"--benchmark_min_time={min_time_s}"]


def parse_report(text: str) -> dict[tuple[str, str], float]:
    """(contender, document) -> CPU ns per document, from Google Benchmark's JSON output."""
    out = {}
    for b in json.loads(text).get("benchmarks", []):
        prefix, _, document = b["name"].partition("/")
        if b.get("error_occurred"):
            raise BenchError(f"{b['name']}: {b.get('error_message', 'error')}")
        if prefix not in CONTENDERS or b.get("run_type", "iteration") != "iteration":
            continue
        out[(CONTENDERS[prefix], document)] = float(b["cpu_time"]) * _UNIT_NS[b.get("time_unit", "ns")]
    return out


def run(build_dir: str, min_time_s: float) -> dict[tuple[str, str], float]:
    path = binary_path(build_dir)
    if not os.access(path, os.X_OK):
        raise BenchError(f"{path} is missing: build it (drop --no-build) or install libvalijson-dev")
    out = subprocess.run(command(build_dir, min_time_s), capture_output=True, text=True, cwd=REPO_DIR,
                         check=False)
    if out.returncode != 0:
        raise BenchError(f"{TARGET} exited {out.returncode}: {out.stderr[-2000:]}")
    return parse_report(out.stdout)
