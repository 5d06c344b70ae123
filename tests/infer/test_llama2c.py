"""A llama2.c checkpoint (the legacy float32 .bin with tokenizer.bin beside it) holding the same weights as a GGUF
file gives the same logits through slipstream-infer, and generates through the engine."""
import json
import struct
import subprocess

import pytest

from tests.conftest import BUILD

np = pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")

from tests.infer.models import mtm

INFER = BUILD / "src/agent/infer/slipstream-infer"
TOKENS = [1, 17, 42, 99, 5, 250, 3, 77, 140, 12, 8, 201, 33, 64]


def write_llama2c(folder, cfg, w):
    """model.bin (header, then the tensors in llama2.c's order; a negative vocabulary: a separate classifier) and
    tokenizer.bin (max length, then score, length and bytes per token)."""
    head_dim = cfg.dim // cfg.heads
    layers = range(cfg.layers)
    with open(folder / "model.bin", "wb") as f:
        f.write(struct.pack("7i", cfg.dim, cfg.ffn, cfg.layers, cfg.heads, cfg.kv_heads, -cfg.vocab, cfg.context))
        parts = [w["token_embd.weight"]]
        for name in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_down",
                     "ffn_up"):
            parts += [w[f"blk.{i}.{name}.weight"] for i in layers]
        parts.append(w["output_norm.weight"])
        parts += [np.zeros(cfg.context * head_dim // 2, np.float32)] * 2  # freq_cis_real / imag, unused
        parts.append(w["output.weight"])
        f.writelines(np.ascontiguousarray(p, dtype=np.float32).tobytes() for p in parts)
    vocab = mtm.spm_vocab(cfg.vocab)
    pieces = [t.replace("\u2581", " ").encode() for t in vocab.tokens]
    with open(folder / "tokenizer.bin", "wb") as f:
        f.write(struct.pack("i", max(len(p) for p in pieces)))
        f.writelines(struct.pack("fi", score, len(piece)) + piece for piece, score in zip(pieces, vocab.scores, strict=True))


def logits(path):
    if not INFER.exists():
        pytest.skip(f"{INFER} is not built (ninja -C build slipstream-infer)")
    out = subprocess.run([str(INFER), "logits", str(path), "--all", *map(str, TOKENS)], check=False,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return np.array(json.loads(out.stdout))


def test_same_weights_same_logits_as_gguf(tmp_path):
    cfg = mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=96, vocab=300, seed=4)
    stored = mtm.write_model(str(tmp_path / "m.gguf"), cfg)
    write_llama2c(tmp_path, cfg, stored)
    from_gguf = logits(tmp_path / "m.gguf")
    from_bin = logits(tmp_path / "model.bin")
    assert from_bin.shape == (len(TOKENS), 300)
    assert np.abs(from_bin - from_gguf).max() <= 1e-5 * np.abs(from_gguf).max()


def test_a_checkpoint_generates_text(tmp_path):
    cfg = mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=96, vocab=300, seed=4)
    write_llama2c(tmp_path, cfg, mtm.random_weights(cfg))
    if not INFER.exists():
        pytest.skip(f"{INFER} is not built (ninja -C build slipstream-infer)")
    out = subprocess.run([str(INFER), "generate", str(tmp_path / "model.bin"), "the quick", "--max-tokens", "8"],
                         check=False, capture_output=True, timeout=120)  # a random model's bytes: not always UTF-8
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
