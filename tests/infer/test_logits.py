"""The C++ forward pass against an independent NumPy one (scripts/infer/reference_llama.py, which reads the file
with the `gguf` package): seeded random weights at several shapes (multi-head, grouped-query and multi-query
attention, qwen2's biases and paired-halves RoPE, tied embeddings), every weight type; and the invariances of the
paged forward pass: chunked prefill equals one prefill."""
import json
import subprocess

import pytest

from tests.conftest import BUILD

np = pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")

from tests.infer.models import mtm, ref

INFER = BUILD / "src/agent/infer/slipstream-infer"


TOKENS = [1, 17, 42, 99, 5, 250, 3, 77, 140, 12, 8, 201, 33, 64, 2, 180, 45, 9, 111, 222, 15, 6]


def run_logits(path, tokens, *extra):
    if not INFER.exists():
        pytest.skip(f"{INFER} is not built (ninja -C build slipstream-infer)")
    out = subprocess.run([str(INFER), "logits", str(path), "--all", *extra, *map(str, tokens)], check=False,
                         capture_output=True, text=True, timeout=120, env={"SLIPSTREAM_INFER_THREADS": "2"})
    assert out.returncode == 0, out.stderr
    return np.array(json.loads(out.stdout))


SHAPES = [
    # arch, type, dim, layers, heads, kv_heads, ffn, tied
    ("llama", "f32", 64, 2, 4, 4, 128, False),   # multi-head
    ("llama", "f32", 64, 3, 8, 2, 96, False),    # grouped-query, 4 heads per kv head
    ("llama", "f32", 96, 2, 6, 1, 160, True),    # multi-query, tied embeddings
    ("qwen2", "f32", 64, 2, 4, 2, 128, False),   # q/k/v biases, paired-halves RoPE
    ("llama", "f16", 64, 2, 4, 2, 128, False),
    ("qwen2", "q8_0", 64, 2, 4, 2, 128, False),
    ("llama", "q4_0", 64, 2, 4, 2, 128, False),
]


@pytest.mark.parametrize("arch,qtype,dim,layers,heads,kv_heads,ffn,tied", SHAPES)
def test_logits_match_the_numpy_reference(tmp_path, arch, qtype, dim, layers, heads, kv_heads, ffn, tied):
    path = tmp_path / "m.gguf"
    cfg = mtm.Config(arch=arch, type=qtype, dim=dim, layers=layers, heads=heads, kv_heads=kv_heads, ffn=ffn,
                     vocab=300, tied=tied, seed=7)
    mtm.write_model(str(path), cfg)
    got = run_logits(path, TOKENS)
    config, tensors = ref.load(str(path))
    want = ref.forward(config, tensors, TOKENS)
    assert got.shape == want.shape == (len(TOKENS), 300)
    scale = np.abs(want).max()
    # Float weights: float32 arithmetic against float64. Quantized weights meet activations quantized to 8 bits
    # per 32-element block (as GGUF runtimes do), which the reference does not.
    tolerance = 1e-4 if qtype in ("f32", "f16") else 5e-2
    assert np.abs(got - want).max() <= tolerance * scale
    if qtype in ("f32", "f16"):
        assert (got.argmax(axis=1) == want.argmax(axis=1)).all()


@pytest.mark.parametrize("chunk", [1, 3, 16])
def test_chunked_prefill_equals_one_prefill(tmp_path, chunk):
    path = tmp_path / "m.gguf"
    mtm.write_model(str(path), mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=128,
                                          vocab=300, seed=3))
    whole = run_logits(path, TOKENS)
    chunked = run_logits(path, TOKENS, "--chunk", str(chunk))
    assert np.abs(whole - chunked).max() <= 1e-5 * np.abs(whole).max()
