"""An independent NumPy forward pass of a Llama/Qwen2 GGUF model: the golden logits tests compare against.

Reads the file with the `gguf` package (not our loader), dequantizes with its `gguf.quants`, and computes in
float64, position by position, with a plain causal attention: nothing shared with the C++ code.

    python scripts/infer/reference_llama.py model.gguf 1 2 3   # prints the last position's logits as JSON
"""

from __future__ import annotations

import json
import sys

import numpy as np


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    v = f.parts[f.data[0]]
    if f.types and f.types[0].name == "STRING":
        return bytes(v).decode()
    return v.tolist()[0] if hasattr(v, "tolist") else v


def load(path):
    import gguf

    reader = gguf.GGUFReader(path)
    arch = _field(reader, "general.architecture")
    tensors = {}
    for t in reader.tensors:
        data = gguf.quants.dequantize(t.data, t.tensor_type)
        shape = [int(d) for d in reversed(t.shape.tolist())]
        tensors[t.name] = np.asarray(data, dtype=np.float64).reshape(shape)
    cfg = {
        "arch": arch,
        "dim": _field(reader, f"{arch}.embedding_length"),
        "layers": _field(reader, f"{arch}.block_count"),
        "heads": _field(reader, f"{arch}.attention.head_count"),
        "kv_heads": _field(reader, f"{arch}.attention.head_count_kv"),
        "eps": _field(reader, f"{arch}.attention.layer_norm_rms_epsilon", 1e-5),
        "theta": _field(reader, f"{arch}.rope.freq_base", 10000.0),
        "scaling": _field(reader, f"{arch}.rope.scaling.type", "none"),
        "factor": _field(reader, f"{arch}.rope.scaling.factor", 1.0),
    }
    cfg["kv_heads"] = cfg["kv_heads"] or cfg["heads"]
    return cfg, tensors


def _rms(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def _rope(x, pos, theta, neox, factor):
    # x: [heads, head_dim]
    d = x.shape[-1]
    inv = theta ** (-np.arange(0, d // 2, dtype=np.float64) * 2.0 / d) / factor
    ang = pos * inv
    cos, sin = np.cos(ang), np.sin(ang)
    out = x.copy()
    if neox:
        a, b = x[:, : d // 2], x[:, d // 2 :]
        out[:, : d // 2] = a * cos - b * sin
        out[:, d // 2 :] = a * sin + b * cos
    else:
        a, b = x[:, 0::2], x[:, 1::2]
        out[:, 0::2] = a * cos - b * sin
        out[:, 1::2] = a * sin + b * cos
    return out


def forward(cfg, t, tokens):
    """Logits [len(tokens), vocab] for every position."""
    dim, nh, nkv = cfg["dim"], cfg["heads"], cfg["kv_heads"]
    hd = dim // nh if "blk.0.attn_q.weight" not in t else t["blk.0.attn_q.weight"].shape[0] // nh
    neox = cfg["arch"] == "qwen2"
    factor = cfg["factor"] if cfg["scaling"] == "linear" else 1.0
    x = t["token_embd.weight"][tokens]
    n = len(tokens)
    for layer in range(cfg["layers"]):
        p = f"blk.{layer}."
        h = _rms(x, t[p + "attn_norm.weight"], cfg["eps"])
        q = h @ t[p + "attn_q.weight"].T + t.get(p + "attn_q.bias", 0)
        k = h @ t[p + "attn_k.weight"].T + t.get(p + "attn_k.bias", 0)
        v = h @ t[p + "attn_v.weight"].T + t.get(p + "attn_v.bias", 0)
        q = np.stack([_rope(q[i].reshape(nh, hd), i, cfg["theta"], neox, factor) for i in range(n)])
        k = np.stack([_rope(k[i].reshape(nkv, hd), i, cfg["theta"], neox, factor) for i in range(n)])
        v = v.reshape(n, nkv, hd)
        att = np.zeros((n, nh, hd))
        for i in range(n):
            for head in range(nh):
                kvh = head // (nh // nkv)
                s = k[: i + 1, kvh] @ q[i, head] / np.sqrt(hd)
                s = np.exp(s - s.max())
                s /= s.sum()
                att[i, head] = s @ v[: i + 1, kvh]
        x = x + att.reshape(n, nh * hd) @ t[p + "attn_output.weight"].T
        h = _rms(x, t[p + "ffn_norm.weight"], cfg["eps"])
        g = h @ t[p + "ffn_gate.weight"].T
        u = h @ t[p + "ffn_up.weight"].T
        x = x + (g / (1 + np.exp(-g)) * u) @ t[p + "ffn_down.weight"].T
    x = _rms(x, t["output_norm.weight"], cfg["eps"])
    out = t.get("output.weight", t["token_embd.weight"])
    return x @ out.T


def main(argv):
    cfg, tensors = load(argv[1])
    tokens = [int(a) for a in argv[2:]]
    logits = forward(cfg, tensors, tokens)
    json.dump(logits[-1].tolist(), sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
