"""Train a tiny Llama-architecture model on the King James Bible and export it as a llama.cpp-style GGUF file.

The text: the King James Version of the Bible (1611), from Debian's `bible-kjv-text` package (the compressed
text) read with the `bible` program of Debian's `bible-kjv` package. The translation's copyright has expired
(Debian's copyright file for the package: "The copyright for the King James Version text of the Bible is
expired"); the text is in the public domain everywhere except the United Kingdom, where the Crown's letters
patent still cover its printing. The packages' own code (the reader) is GPL-2+, and is used only to read the
text, never shipped. Fetching it on a fresh Debian/Ubuntu amd64 machine (no install, no root needed for the
last two steps):

    apt-get update   # once, if apt-cache knows no package lists yet
    python scripts/infer/train_tiny_model.py --fetch /tmp/kjv   # writes /tmp/kjv/kjv.txt
    # which runs:
    #   cd /tmp/kjv && apt-get download bible-kjv bible-kjv-text
    #   dpkg-deb -x bible-kjv_*.deb root && dpkg-deb -x bible-kjv-text_*.deb root
    #   root/usr/bin/bible -p root/usr/lib -l10000 'Gen1:1-Rev22:21' > kjv.txt

The model (all that a Llama GGUF runtime reads): RMSNorm, rotary embeddings on adjacent pairs (x[2i], x[2i+1])
with inv_freq[i] = theta^(-2i/head_dim) (the pairing llama.cpp's "llama" architecture applies, so no permutation
at export), grouped-query attention (4 heads, 2 key/value heads), SwiGLU feed-forward, untied output matrix.
Trained with JAX on the CPU (AdamW, cosine schedule), stored in float32 (float16 with --f16).

The vocabulary is SentencePiece-style (tokenizer.ggml.model "llama"): <unk>, <s>, </s>, 256 byte-fallback
tokens <0x00>..<0xFF>, the text's characters, BPE merges learned on the text (score = -rank, so the
highest-score-bigram-first SentencePiece merge reproduces them), and <|im_start|>/<|im_end|> as control tokens
for the ChatML template. Spaces become U+2581 with a space prefix at the start of the text and after each
special token (llama.cpp's rule); "\\n" has no piece and goes to the byte token <0x0A>. The training stream is
every chapter as "<s>Book N\\nverse\\nverse...</s>" (half of them without the "Book N" line) plus ChatML
exchanges "user: John 3:16" -> "assistant: <the verse>" (for a tenth of the verses), so that chat replies end
with <|im_end|>. Every 25th chapter is held out for the validation loss (the BPE merges too are learned without
it).

    python3 -m venv /tmp/train-venv && /tmp/train-venv/bin/pip install "jax[cpu]" numpy gguf
    nice -n 19 /tmp/train-venv/bin/python scripts/infer/train_tiny_model.py --text /tmp/kjv/kjv.txt \\
        --out models/tiny-kjv.gguf
    /tmp/train-venv/bin/python scripts/infer/train_tiny_model.py --sample models/tiny-kjv.gguf

--sample needs only numpy and gguf: it reads the file with scripts/infer/reference_llama.py (an independent
NumPy forward pass), tokenizes prompts with the vocabulary stored in the file, and prints greedy continuations.
"""

from __future__ import annotations

import argparse
import glob
import heapq
import itertools
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter

SPACE = "\u2581"
UNK, BOS, EOS = 0, 1, 2
IM_START, IM_END = "<|im_start|>", "<|im_end|>"
CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
TYPE_NORMAL, TYPE_UNKNOWN, TYPE_CONTROL, TYPE_BYTE = 1, 2, 3, 6


# ----------------------------------------------------------------------------------------------------------------
# The text


def fetch_text(folder):
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["apt-get", "download", "bible-kjv", "bible-kjv-text"], cwd=folder, check=True)
    for deb in sorted(glob.glob(os.path.join(folder, "bible-kjv*.deb"))):
        subprocess.run(["dpkg-deb", "-x", deb, os.path.join(folder, "root")], check=True)
    out = os.path.join(folder, "kjv.txt")
    with open(out, "w") as f:
        subprocess.run(
            [
                os.path.join(folder, "root/usr/bin/bible"),
                "-p",
                os.path.join(folder, "root/usr/lib"),
                "-l10000",
                "Gen1:1-Rev22:21",
            ],
            stdout=f,
            check=True,
        )
    print(f"wrote {out}")


def parse_kjv(path):
    """[(book, chapter, [verse text, ...])] from the `bible` program's output."""
    chapters = []
    heading = re.compile(r"^(\S.*) (\d+)$")
    verse = re.compile(r"^\s+(\d+) (.*)$")
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            m = heading.match(line)
            if m:
                chapters.append((m.group(1), int(m.group(2)), []))
                continue
            m = verse.match(line)
            if not m or not chapters:
                raise ValueError(f"unexpected line: {line!r}")
            chapters[-1][2].append(" ".join(m.group(2).split()))
    if len(chapters) != 1189 or sum(len(c[2]) for c in chapters) != 31102:
        raise ValueError("expected the 1189 chapters and 31102 verses of the KJV")
    return chapters


# ----------------------------------------------------------------------------------------------------------------
# SentencePiece-style vocabulary


CHUNK = re.compile(SPACE + "[^" + SPACE + "\n]*|[^" + SPACE + "\n]+|\n")


def escape(text, space_prefix):
    return (" " + text if space_prefix else text).replace(" ", SPACE)


def train_bpe(texts, n_pieces):
    """Learn merges on the chunks of the texts (no piece can span a chunk boundary, so merging the whole text
    bigram by bigram gives the same result as merging chunk by chunk). Returns the pieces, characters first."""
    words = Counter()
    for t in texts:
        words.update(CHUNK.findall(escape(t, True)))
    words.pop("\n", None)
    chars = Counter()
    for w, c in words.items():
        for ch in w:
            chars[ch] += c
    pieces = [ch for ch, _ in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0]))]
    syms = [list(w) for w in words]
    counts = list(words.values())
    pair_counts = Counter()
    where = {}
    for i, s in enumerate(syms):
        for a, b in itertools.pairwise(s):
            pair_counts[(a, b)] += counts[i]
            where.setdefault((a, b), set()).add(i)
    while len(pieces) < n_pieces and pair_counts:
        best = max(pair_counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merged = best[0] + best[1]
        pieces.append(merged)
        for i in list(where.get(best, ())):
            s, c = syms[i], counts[i]
            for a, b in itertools.pairwise(s):
                pair_counts[(a, b)] -= c
                if pair_counts[(a, b)] <= 0:
                    del pair_counts[(a, b)]
            out, j = [], 0
            while j < len(s):
                if j + 1 < len(s) and s[j] == best[0] and s[j + 1] == best[1]:
                    out.append(merged)
                    j += 2
                else:
                    out.append(s[j])
                    j += 1
            syms[i] = out
            for a, b in itertools.pairwise(out):
                pair_counts[(a, b)] += c
                where.setdefault((a, b), set()).add(i)
        where.pop(best, None)
    return pieces


class Vocab:
    """tokens/scores/types as stored in the GGUF file; encode() follows llama.cpp's SentencePiece tokenizer."""

    def __init__(self, tokens, scores, types, add_space_prefix=True):
        self.tokens, self.scores, self.types = list(tokens), list(scores), list(types)
        self.add_space_prefix = add_space_prefix
        self.ids = {t: i for i, t in enumerate(self.tokens) if self.types[i] in (TYPE_NORMAL, TYPE_UNKNOWN)}
        self.special = {t: i for i, t in enumerate(self.tokens) if self.types[i] == TYPE_CONTROL}
        self.byte_ids = {int(t[3:5], 16): i for i, t in enumerate(self.tokens) if self.types[i] == TYPE_BYTE}
        self._cache = {}

    @staticmethod
    def build(pieces):
        specials = ["<unk>", "<s>", "</s>"]
        tokens = specials + [f"<0x{b:02X}>" for b in range(256)] + pieces + [IM_START, IM_END]
        types = [TYPE_UNKNOWN, TYPE_CONTROL, TYPE_CONTROL] + [TYPE_BYTE] * 256 + [TYPE_NORMAL] * len(pieces)
        types += [TYPE_CONTROL, TYPE_CONTROL]
        scores = [0.0] * len(tokens)
        for i in range(259, 259 + len(pieces)):
            scores[i] = float(-(i - 259))
        return Vocab(tokens, scores, types)

    def _chunk(self, chunk):
        hit = self._cache.get(chunk)
        if hit is not None:
            return hit
        sym = list(chunk)
        prev = list(range(-1, len(sym) - 1))
        nxt = list(range(1, len(sym) + 1))
        heap = []

        def push(left, right):
            if left < 0 or right >= len(sym):
                return
            t = sym[left] + sym[right]
            i = self.ids.get(t)
            if i is not None:
                heapq.heappush(heap, (-self.scores[i], left, right, t))

        for k in range(len(sym) - 1):
            push(k, k + 1)
        while heap:
            _, left, right, t = heapq.heappop(heap)
            if not sym[left] or not sym[right] or sym[left] + sym[right] != t or nxt[left] != right:
                continue
            sym[left], sym[right] = t, ""
            nxt[left] = nxt[right]
            if nxt[left] < len(sym):
                prev[nxt[left]] = left
            push(prev[left], left)
            push(left, nxt[left])
        out = []
        k = 0
        while k < len(sym):
            i = self.ids.get(sym[k])
            if i is not None:
                out.append(i)
            else:
                out.extend(self.byte_ids[b] for b in sym[k].encode("utf-8"))
            k = nxt[k]
        self._cache[chunk] = out
        return out

    def encode(self, text, add_bos=False, parse_special=False):
        out = [BOS] if add_bos else []
        parts = [text]
        if parse_special and self.special:
            pat = "(" + "|".join(re.escape(s) for s in sorted(self.special, key=len, reverse=True)) + ")"
            parts = re.split(pat, text)
        prev_special = True
        for p in parts:
            if p in self.special and parse_special:
                out.append(self.special[p])
                prev_special = True
                continue
            if not p:
                continue
            for c in CHUNK.findall(escape(p, self.add_space_prefix and prev_special)):
                out.extend(self._chunk(c))
            prev_special = False
        return out

    def decode(self, ids):
        raw = b""
        for i in ids:
            if self.types[i] == TYPE_BYTE:
                raw += bytes([int(self.tokens[i][3:5], 16)])
            elif self.types[i] == TYPE_NORMAL:
                raw += self.tokens[i].replace(SPACE, " ").encode("utf-8")
            elif self.tokens[i] in (IM_START, IM_END):
                raw += self.tokens[i].encode()
        text = raw.decode("utf-8", errors="replace")
        return text[1:] if self.add_space_prefix and text.startswith(" ") else text


def chapter_text(book, chapter, verses, heading=True):
    return (f"{book} {chapter}\n" if heading else "") + "\n".join(verses)


def chat_text(book, chapter, n, verse):
    return f"{IM_START}user\n{book} {chapter}:{n}{IM_END}\n{IM_START}assistant\n{verse}{IM_END}\n"


def build_streams(chapters, vocab, chat_fraction, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    train, val = [], []
    for idx, (book, ch, verses) in enumerate(chapters):
        dst = val if idx % 25 == 12 else train
        heading = rng.random() < 0.5
        dst += vocab.encode(chapter_text(book, ch, verses, heading), add_bos=True) + [EOS]
        for n, v in enumerate(verses, 1):
            if rng.random() < chat_fraction:
                dst += vocab.encode(chat_text(book, ch, n, v), add_bos=True, parse_special=True)
    return np.array(train, dtype=np.int32), np.array(val, dtype=np.int32)


# ----------------------------------------------------------------------------------------------------------------
# The model (JAX)


def init_params(cfg, seed):
    import jax
    import jax.numpy as jnp

    d, hd, f, v = cfg["dim"], cfg["head_dim"], cfg["ffn"], cfg["vocab"]
    nh, nkv, nl = cfg["heads"], cfg["kv_heads"], cfg["layers"]
    keys = iter(jax.random.split(jax.random.PRNGKey(seed), 4 + 8 * nl))

    def normal(shape, std):
        return std * jax.random.normal(next(keys), shape, dtype=jnp.float32)

    proj = 0.02 / math.sqrt(2 * nl)
    p = {"token_embd": normal((v, d), 0.02), "output_norm": jnp.ones((d,)), "output": normal((v, d), 0.02)}
    p["layers"] = [
        {
            "attn_norm": jnp.ones((d,)),
            "attn_q": normal((nh * hd, d), 0.02),
            "attn_k": normal((nkv * hd, d), 0.02),
            "attn_v": normal((nkv * hd, d), 0.02),
            "attn_output": normal((d, nh * hd), proj),
            "ffn_norm": jnp.ones((d,)),
            "ffn_gate": normal((f, d), 0.02),
            "ffn_up": normal((f, d), 0.02),
            "ffn_down": normal((d, f), proj),
        }
        for _ in range(nl)
    ]
    return p


def forward(cfg, p, tokens):
    """Logits [B, T, vocab] for tokens [B, T]: the computation llama.cpp does for general.architecture llama."""
    import jax
    import jax.numpy as jnp

    nh, nkv, hd, eps = cfg["heads"], cfg["kv_heads"], cfg["head_dim"], cfg["eps"]
    b, t = tokens.shape
    inv = cfg["theta"] ** (-jnp.arange(0, hd // 2, dtype=jnp.float32) * 2.0 / hd)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * inv[None, :]
    cos, sin = jnp.cos(ang)[None, :, None, :], jnp.sin(ang)[None, :, None, :]

    def rms(x, w):
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * w

    def rope(x):  # [B, T, H, hd], pairs (x[2i], x[2i+1])
        a, c = x[..., 0::2], x[..., 1::2]
        return jnp.stack([a * cos - c * sin, a * sin + c * cos], axis=-1).reshape(x.shape)

    mask = jnp.tril(jnp.ones((t, t), dtype=bool))
    x = p["token_embd"][tokens]
    for lp in p["layers"]:
        h = rms(x, lp["attn_norm"])
        q = rope((h @ lp["attn_q"].T).reshape(b, t, nh, hd))
        k = rope((h @ lp["attn_k"].T).reshape(b, t, nkv, hd))
        v = (h @ lp["attn_v"].T).reshape(b, t, nkv, hd)
        q = q.reshape(b, t, nkv, nh // nkv, hd)
        s = jnp.einsum("bqkgd,bskd->bkgqs", q, k) / math.sqrt(hd)
        s = jnp.where(mask, s, -1e30)
        a = jnp.einsum("bkgqs,bskd->bqkgd", jax.nn.softmax(s, axis=-1), v).reshape(b, t, nh * hd)
        x = x + a @ lp["attn_output"].T
        h = rms(x, lp["ffn_norm"])
        x = x + (jax.nn.silu(h @ lp["ffn_gate"].T) * (h @ lp["ffn_up"].T)) @ lp["ffn_down"].T
    return rms(x, p["output_norm"]) @ p["output"].T


def train(args):
    import jax
    import jax.numpy as jnp
    import numpy as np

    t0 = time.time()
    chapters = parse_kjv(args.text)
    train_chapters = [c for i, c in enumerate(chapters) if i % 25 != 12]
    pieces = train_bpe([chapter_text(*c) for c in train_chapters], args.vocab - 259 - 2)
    vocab = Vocab.build(pieces)
    assert len(vocab.tokens) == args.vocab, len(vocab.tokens)
    train_ids, val_ids = build_streams(chapters, vocab, args.chat_fraction, args.seed)
    n_chars = sum(len(chapter_text(*c)) for c in chapters)
    print(
        f"vocabulary {len(vocab.tokens)} tokens; {len(train_ids)} train / {len(val_ids)} val tokens "
        f"({n_chars / (len(train_ids) + len(val_ids)):.2f} chars per token); {time.time() - t0:.0f}s",
        flush=True,
    )

    cfg = {
        "dim": args.dim,
        "layers": args.layers,
        "heads": args.heads,
        "kv_heads": args.kv_heads,
        "head_dim": args.dim // args.heads,
        "ffn": args.ffn,
        "vocab": args.vocab,
        "ctx": args.ctx,
        "eps": 1e-5,
        "theta": 10000.0,
    }
    params = init_params(cfg, args.seed)
    n_params = sum(x.size for x in jax.tree_util.tree_leaves(params))
    print(f"model: {cfg}; {n_params} parameters", flush=True)

    def loss_fn(p, batch):
        logits = forward(cfg, p, batch[:, :-1])
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, batch[:, 1:, None], axis=-1))

    def lr_at(step):
        warm = jnp.minimum(1.0, (step + 1) / args.warmup)
        prog = jnp.clip((step - args.warmup) / max(1, args.steps - args.warmup), 0.0, 1.0)
        return args.lr * warm * (0.1 + 0.9 * 0.5 * (1 + jnp.cos(math.pi * prog)))

    b1, b2, wd = 0.9, 0.95, 0.1

    @jax.jit
    def step_fn(p, m, v, step, batch):
        loss, g = jax.value_and_grad(loss_fn)(p, batch)
        gnorm = jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree_util.tree_leaves(g)))
        g = jax.tree_util.tree_map(lambda x: x * jnp.minimum(1.0, 1.0 / (gnorm + 1e-6)), g)
        m = jax.tree_util.tree_map(lambda a, x: b1 * a + (1 - b1) * x, m, g)
        v = jax.tree_util.tree_map(lambda a, x: b2 * a + (1 - b2) * x * x, v, g)
        lr = lr_at(step)
        c1, c2 = 1 - b1 ** (step + 1), 1 - b2 ** (step + 1)

        def upd(x, a, s):
            decay = wd if x.ndim == 2 else 0.0
            return x - lr * (a / c1 / (jnp.sqrt(s / c2) + 1e-8) + decay * x)

        return jax.tree_util.tree_map(upd, p, m, v), m, v, loss

    eval_loss = jax.jit(loss_fn)
    rng = np.random.default_rng(args.seed)
    n_val = min(32, (len(val_ids) - 1) // (args.ctx + 1))
    val_batch = np.stack([val_ids[i * (args.ctx + 1) : (i + 1) * (args.ctx + 1)] for i in range(n_val)])

    def val_loss(p):
        return float(np.mean([eval_loss(p, val_batch[i : i + 8]) for i in range(0, n_val, 8)]))

    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    t_train = time.time()
    recent = []
    step = 0
    for step in range(args.steps):
        starts = rng.integers(0, len(train_ids) - args.ctx - 1, size=args.batch)
        batch = np.stack([train_ids[s : s + args.ctx + 1] for s in starts])
        params, m, v, loss = step_fn(params, m, v, jnp.asarray(step, jnp.float32), batch)
        recent.append(loss)
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            tl = float(np.mean([float(x) for x in recent]))
            recent = []
            el = time.time() - t_train
            msg = f"step {step + 1}/{args.steps} train {tl:.3f}"
            if (step + 1) % (args.log_every * 5) == 0 or step + 1 == args.steps:
                msg += f" val {val_loss(params):.3f}"
            print(f"{msg} lr {float(lr_at(step)):.2e} {el:.0f}s", flush=True)
            if el > args.max_minutes * 60:
                print(f"stopping at step {step + 1}: past {args.max_minutes} minutes", flush=True)
                break
    final_val = val_loss(params)
    print(
        f"final val loss {final_val:.4f} (perplexity {math.exp(final_val):.2f}) after {step + 1} steps, "
        f"{time.time() - t_train:.0f}s training, {time.time() - t0:.0f}s in all",
        flush=True,
    )

    params = jax.tree_util.tree_map(lambda x: np.asarray(x, dtype=np.float32), params)
    export(args.out, cfg, params, vocab, args.f16)
    print(f"wrote {args.out}: {os.path.getsize(args.out)} bytes", flush=True)

    # The exported file, read back by the independent NumPy pass, must give the logits JAX gives.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import reference_llama

    rcfg, rt = reference_llama.load(args.out)
    probe = val_ids[:48]
    ref = reference_llama.forward(rcfg, rt, [int(x) for x in probe])
    ours = np.asarray(forward(cfg, params, jnp.asarray(probe[None, :])))[0]
    print(f"reference_llama vs JAX logits on {len(probe)} val tokens: max |diff| {np.max(np.abs(ref - ours)):.2e}")


# ----------------------------------------------------------------------------------------------------------------
# GGUF export (the layout llama.cpp's convert_hf_to_gguf.py writes for a LlamaForCausalLM)


def export(path, cfg, params, vocab, f16):
    import gguf
    import numpy as np

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("tiny-kjv")
    w.add_description("A tiny Llama-architecture model trained on the King James Version of the Bible")
    w.add_license("public-domain")
    w.add_context_length(cfg["ctx"])
    w.add_embedding_length(cfg["dim"])
    w.add_block_count(cfg["layers"])
    w.add_feed_forward_length(cfg["ffn"])
    w.add_head_count(cfg["heads"])
    w.add_head_count_kv(cfg["kv_heads"])
    w.add_layer_norm_rms_eps(cfg["eps"])
    w.add_rope_freq_base(cfg["theta"])
    w.add_rope_dimension_count(cfg["head_dim"])
    w.add_vocab_size(len(vocab.tokens))
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if f16 else gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(vocab.tokens)
    w.add_token_scores(vocab.scores)
    w.add_token_types(vocab.types)
    w.add_bos_token_id(BOS)
    w.add_eos_token_id(EOS)
    w.add_unk_token_id(UNK)
    w.add_eot_token_id(vocab.special[IM_END])
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_add_space_prefix(True)
    w.add_chat_template(CHAT_TEMPLATE)

    def put(name, x):
        x = np.ascontiguousarray(x, dtype=np.float16 if (f16 and x.ndim == 2) else np.float32)
        w.add_tensor(name, x)

    put("token_embd.weight", params["token_embd"])
    for i, lp in enumerate(params["layers"]):
        for k in (
            "attn_norm",
            "attn_q",
            "attn_k",
            "attn_v",
            "attn_output",
            "ffn_norm",
            "ffn_gate",
            "ffn_up",
            "ffn_down",
        ):
            put(f"blk.{i}.{k}.weight", lp[k])
    put("output_norm.weight", params["output_norm"])
    put("output.weight", params["output"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ----------------------------------------------------------------------------------------------------------------
# --sample: greedy continuations through the independent NumPy forward pass


def vocab_from_gguf(path):
    import gguf

    r = gguf.GGUFReader(path)

    def arr(key):
        f = r.fields[key]
        return [f.parts[i] for i in f.data]

    tokens = [bytes(x).decode("utf-8") for x in arr("tokenizer.ggml.tokens")]
    scores = [float(x[0]) for x in arr("tokenizer.ggml.scores")]
    types = [int(x[0]) for x in arr("tokenizer.ggml.token_type")]
    f = r.fields.get("tokenizer.ggml.add_space_prefix")
    prefix = bool(f.parts[f.data[0]][0]) if f else True
    return Vocab(tokens, scores, types, prefix)


def sample(path, prompts, n_tokens):
    import numpy as np

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import reference_llama

    cfg, tensors = reference_llama.load(path)
    vocab = vocab_from_gguf(path)
    stops = {EOS, vocab.special.get(IM_END, -1)}
    for prompt in prompts:
        chat = prompt.startswith(IM_START)
        ids = vocab.encode(prompt, add_bos=True, parse_special=chat)
        logits = reference_llama.forward(cfg, tensors, ids)
        # mean negative log-likelihood of the prompt's own tokens
        lp = logits - logits.max(-1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
        nll = -np.mean([lp[i, ids[i + 1]] for i in range(len(ids) - 1)]) if len(ids) > 1 else float("nan")
        out = []
        for _ in range(n_tokens):
            nxt = int(np.argmax(logits[-1]))
            if nxt in stops:
                out.append(nxt)
                break
            out.append(nxt)
            logits = reference_llama.forward(cfg, tensors, ids + out)
        print(f"--- prompt {prompt!r} ({len(ids)} tokens, prompt NLL {nll:.3f})")
        print(vocab.decode(ids[1:]) + " >>> " + vocab.decode(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fetch", metavar="DIR", help="download the text into DIR (see the docstring) and exit")
    ap.add_argument("--text", default="/tmp/kjv/kjv.txt", help="the `bible` program's output")
    ap.add_argument("--out", default="models/tiny-kjv.gguf")
    ap.add_argument("--sample", metavar="GGUF", help="print greedy continuations of a few prompts and exit")
    ap.add_argument("--prompt", action="append", help="with --sample: a prompt (repeatable)")
    ap.add_argument("--tokens", type=int, default=40, help="with --sample: tokens to generate")
    ap.add_argument("--vocab", type=int, default=1024)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--ffn", type=int, default=320)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--chat-fraction", type=float, default=0.1)
    ap.add_argument("--max-minutes", type=float, default=25.0, help="stop early (and export) past this")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--f16", action="store_true", help="store the matrices as float16")
    args = ap.parse_args()
    if args.fetch:
        fetch_text(args.fetch)
    elif args.sample:
        prompts = args.prompt or [
            "In the beginning",
            "And the LORD said unto Moses,",
            "Blessed are the",
            "Psalms 23\n",
            f"{IM_START}user\nJohn 3:16{IM_END}\n{IM_START}assistant\n",
        ]
        sample(args.sample, prompts, args.tokens)
    else:
        train(args)


if __name__ == "__main__":
    main()
