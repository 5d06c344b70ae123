"""Writes a small GGUF model (llama or qwen2) with seeded random weights, a small byte-level BPE or SentencePiece
vocabulary and a chat template, for tests of the inference module.

    make_test_model.py OUT.gguf --arch llama --dim 64 --layers 2 --heads 4 --kv-heads 2 --ffn 128 --vocab 300 \
        --type f32 --seed 1 --tokenizer spm

Weights are stored as the forward pass reads them: each matrix [out x in] row-major (GGUF dims {in, out}); llama
pairs RoPE dimensions (2i, 2i+1), qwen2 pairs (i, i + head_dim/2). Norms and biases are f32; the matrices and the
embedding use --type (f32, f16, q8_0, q4_0). write_model() returns the weights as float32 arrays, dequantized
when quantized, so a reference forward pass sees exactly what the file holds.

Needs numpy and the `gguf` package (pip install gguf numpy).
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import itertools
import sys

import numpy as np

SPIECE_SPACE = "\u2581"

CORPUS = (
    "the quick brown fox jumps over the lazy dog. a model reads the text and writes the next word. "
    "hello world! this is a small corpus for a small tokenizer: it has words, numbers like 12 and 345, "
    "and punctuation. the server streams tokens to the client; the client reads them one by one. "
    "where there is a will there is a way. they're here, we've seen it, I'm sure it'll work. "
    "tokens, merges and scores decide how text is split into pieces that the model knows."
)

CHAT_TEMPLATES = {
    "chatml": (
        "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
        "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
    ),
    "llama3": (
        "{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + "
        "message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}"
        "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
    ),
}

BPE_SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|im_start|>", "<|im_end|>"]


@dataclasses.dataclass
class Config:
    arch: str = "llama"
    dim: int = 64
    layers: int = 2
    heads: int = 4
    kv_heads: int = 2
    ffn: int = 128
    vocab: int = 300
    context: int = 256
    type: str = "f32"
    seed: int = 1
    tokenizer: str = "spm"
    pre: str = "llama-bpe"
    chat_template: str = "chatml"
    tied: bool = False
    rms_eps: float = 1e-5
    rope_theta: float = 10000.0


@dataclasses.dataclass
class Vocab:
    model: str  # "llama" (SentencePiece) or "gpt2" (byte-level BPE)
    tokens: list
    scores: list
    types: list  # 1 normal, 2 unknown, 3 control, 4 user-defined, 6 byte
    merges: list
    bos: int
    eos: int


def bytes_to_unicode() -> dict:
    """GPT-2's byte -> printable character map."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def _learn_merges(words: collections.Counter, n_merges: int) -> list:
    """Plain BPE training: repeatedly merge the most frequent adjacent pair (ties: first seen)."""
    seqs = {w: list(w) for w in words}
    merges = []
    while len(merges) < n_merges:
        pairs = collections.Counter()
        for w, count in words.items():
            s = seqs[w]
            for a, b in itertools.pairwise(s):
                pairs[(a, b)] += count
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: kv[1])[0]
        merges.append(best)
        for w, s in seqs.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(s[i] + s[i + 1])
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            seqs[w] = out
    return merges


def spm_vocab(size: int) -> Vocab:
    """<unk> <s> </s>, 256 byte pieces <0xNN> (3..258), the corpus characters, then merged pieces scored in merge
    order (earlier = higher score), as llama2.c's and sentencepiece's BPE vocabularies are laid out."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256
    chars = sorted(set(CORPUS.replace(" ", SPIECE_SPACE)))
    if size < len(tokens) + len(chars):
        raise ValueError(f"spm vocabulary needs at least {len(tokens) + len(chars)} tokens")
    words = collections.Counter(SPIECE_SPACE + w for w in CORPUS.split(" "))
    merges = _learn_merges(words, size - len(tokens) - len(chars))
    pieces = chars + [a + b for a, b in merges]
    seen = set()
    for p in pieces:
        if p not in seen and len(tokens) < size:
            seen.add(p)
            tokens.append(p)
            types.append(1)
    while len(tokens) < size:
        tokens.append(f"<unused{len(tokens)}>")
        types.append(5)
    scores = [0.0] * 259 + [-float(i) for i in range(len(tokens) - 259)]
    return Vocab("llama", tokens, scores, types, [], 1, 2)


def bpe_vocab(size: int) -> Vocab:
    """256 byte tokens (id = byte value, in GPT-2's alphabet), merges learned from the corpus, then the specials
    <|begin_of_text|> <|end_of_text|> <|im_start|> <|im_end|> as the last four ids."""
    b2u = bytes_to_unicode()
    n_merges = size - 256 - len(BPE_SPECIALS)
    if n_merges < 0:
        raise ValueError(f"bpe vocabulary needs at least {256 + len(BPE_SPECIALS)} tokens")
    words = collections.Counter()
    for i, w in enumerate(CORPUS.split(" ")):
        words["".join(b2u[b] for b in ((" " if i else "") + w).encode())] += 1
    merges = _learn_merges(words, n_merges)
    tokens = [b2u[b] for b in range(256)] + [a + b for a, b in merges]
    while len(tokens) < size - len(BPE_SPECIALS):  # a corpus too small for the requested merges
        tokens.append(f"<|reserved_{len(tokens)}|>")
    tokens += BPE_SPECIALS
    types = [1] * (size - len(BPE_SPECIALS)) + [3] * len(BPE_SPECIALS)
    return Vocab("gpt2", tokens, [0.0] * size, types, [f"{a} {b}" for a, b in merges], size - 4, size - 3)


def _store(qtype_name: str, a: np.ndarray):
    """(array to write, raw dtype or None, float32 values as stored)."""
    import gguf

    if qtype_name == "f32":
        return a.astype(np.float32), None, a.astype(np.float32)
    if qtype_name == "f16":
        h = a.astype(np.float16)
        return h, None, h.astype(np.float32)
    qtype = {"q8_0": gguf.GGMLQuantizationType.Q8_0, "q4_0": gguf.GGMLQuantizationType.Q4_0}[qtype_name]
    q = gguf.quants.quantize(a.astype(np.float32), qtype)
    return q, qtype, gguf.quants.dequantize(q, qtype).reshape(a.shape).astype(np.float32)


def random_weights(cfg: Config) -> dict:
    """Tensor name -> float32 array ([out, in] for matrices), seeded by cfg.seed."""
    rng = np.random.default_rng(cfg.seed)
    head_dim = cfg.dim // cfg.heads
    q_dim, kv_dim = cfg.heads * head_dim, cfg.kv_heads * head_dim

    def mat(rows, cols):
        return (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w = {"token_embd.weight": mat(cfg.vocab, cfg.dim)}
    for i in range(cfg.layers):
        p = f"blk.{i}."
        w[p + "attn_norm.weight"] = norm(cfg.dim)
        w[p + "attn_q.weight"] = mat(q_dim, cfg.dim)
        w[p + "attn_k.weight"] = mat(kv_dim, cfg.dim)
        w[p + "attn_v.weight"] = mat(kv_dim, cfg.dim)
        w[p + "attn_output.weight"] = mat(cfg.dim, q_dim)
        if cfg.arch == "qwen2":
            w[p + "attn_q.bias"] = (0.1 * rng.standard_normal(q_dim)).astype(np.float32)
            w[p + "attn_k.bias"] = (0.1 * rng.standard_normal(kv_dim)).astype(np.float32)
            w[p + "attn_v.bias"] = (0.1 * rng.standard_normal(kv_dim)).astype(np.float32)
        w[p + "ffn_norm.weight"] = norm(cfg.dim)
        w[p + "ffn_gate.weight"] = mat(cfg.ffn, cfg.dim)
        w[p + "ffn_up.weight"] = mat(cfg.ffn, cfg.dim)
        w[p + "ffn_down.weight"] = mat(cfg.dim, cfg.ffn)
    w["output_norm.weight"] = norm(cfg.dim)
    if not cfg.tied:
        w["output.weight"] = mat(cfg.vocab, cfg.dim)
    return w


def write_vocab(writer, vocab: Vocab, pre: str = "llama-bpe") -> None:
    writer.add_tokenizer_model(vocab.model)
    if vocab.model == "gpt2":
        writer.add_tokenizer_pre(pre)
        writer.add_token_merges(vocab.merges)
    writer.add_token_list(vocab.tokens)
    writer.add_token_scores(vocab.scores)
    writer.add_token_types(vocab.types)
    writer.add_bos_token_id(vocab.bos)
    writer.add_eos_token_id(vocab.eos)
    writer.add_add_bos_token(True)


def write_model(path: str, cfg: Config) -> dict:
    """Writes the model; returns {name: float32 array as stored} (quantized tensors dequantized)."""
    import gguf

    vocab = spm_vocab(cfg.vocab) if cfg.tokenizer == "spm" else bpe_vocab(cfg.vocab)
    head_dim = cfg.dim // cfg.heads
    w = gguf.GGUFWriter(path, cfg.arch)
    w.add_name(f"test-{cfg.arch}-{cfg.type}")
    w.add_context_length(cfg.context)
    w.add_embedding_length(cfg.dim)
    w.add_block_count(cfg.layers)
    w.add_feed_forward_length(cfg.ffn)
    w.add_head_count(cfg.heads)
    w.add_head_count_kv(cfg.kv_heads)
    w.add_layer_norm_rms_eps(cfg.rms_eps)
    w.add_rope_freq_base(cfg.rope_theta)
    w.add_rope_dimension_count(head_dim)
    write_vocab(w, vocab, cfg.pre)
    if cfg.chat_template:
        w.add_chat_template(CHAT_TEMPLATES.get(cfg.chat_template, cfg.chat_template))
    stored = {}
    for name, a in random_weights(cfg).items():
        quantizable = a.ndim == 2
        data, raw, values = _store(cfg.type if quantizable else "f32", a)
        w.add_tensor(name, data, raw_dtype=raw)
        stored[name] = values
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return stored


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--arch", choices=["llama", "qwen2"], default="llama")
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--ffn", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=300)
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--type", choices=["f32", "f16", "q8_0", "q4_0"], default="f32")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tokenizer", choices=["spm", "bpe"], default="spm")
    ap.add_argument("--pre", default="llama-bpe", help="tokenizer.ggml.pre for --tokenizer bpe")
    ap.add_argument("--chat-template", default="chatml", help="chatml, llama3, a Jinja string, or '' for none")
    ap.add_argument("--tied", action="store_true", help="no output.weight: the classifier is token_embd")
    ap.add_argument("--rms-eps", type=float, default=1e-5)
    ap.add_argument("--rope-theta", type=float, default=10000.0)
    a = ap.parse_args(argv)
    cfg = Config(arch=a.arch, dim=a.dim, layers=a.layers, heads=a.heads, kv_heads=a.kv_heads, ffn=a.ffn,
                 vocab=a.vocab, context=a.context, type=a.type, seed=a.seed, tokenizer=a.tokenizer, pre=a.pre,
                 chat_template=a.chat_template, tied=a.tied, rms_eps=a.rms_eps, rope_theta=a.rope_theta)
    write_model(a.out, cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
