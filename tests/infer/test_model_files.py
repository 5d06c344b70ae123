"""slipstream-gguf-dump against independent references: the `gguf` package's GGUFReader (metadata, tensors), HF
`tokenizers` (byte-level BPE with the gpt2, llama3 and qwen2 pre-tokenizers), `sentencepiece` (SentencePiece BPE
with byte fallback) and jinja2 (chat templates). Each reference missing skips its tests with the reason."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import BUILD, ROOT

gguf = pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")
np = pytest.importorskip("numpy", reason="numpy is not installed")

DUMP = BUILD / "src/agent/infer/slipstream-gguf-dump"

_spec = importlib.util.spec_from_file_location("make_test_model", ROOT / "scripts/infer/make_test_model.py")
mtm = importlib.util.module_from_spec(_spec)
sys.modules["make_test_model"] = mtm  # dataclasses look their module up there
_spec.loader.exec_module(mtm)

TEXTS = [
    "hello world",
    "Hello World! The QUICK brown fox, they're here; I'M sure we'LL see.",
    "  leading spaces and trailing   ",
    "tabs\tand\nnewlines\r\n\r\n end \n\n\n",
    "numbers 1234567 and 3.14159 and 12",
    "H\u00e9llo w\u00f6rld \u00c0\u00c9\u00ce \u4f60\u597d \u043c\u0438\u0440 \u03b1\u03b2\u03b3",
    "emoji \U0001f600 ok \u2003 em\u00a0nbsp \u2167 \u00b2",
    "<|im_start|>user\nhi there<|im_end|>\n",
    "a",
    "",
    "'s 'S ''' !!! ... ---\n",
]


def dump(path, *args):
    if not DUMP.exists():
        pytest.skip(f"{DUMP} is not built (ninja -C build slipstream-gguf-dump)")
    out = subprocess.run([str(DUMP), str(path), *args], check=False, capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout), out.returncode


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@pytest.mark.parametrize("arch,qtype,tok", [
    ("llama", "f32", "spm"), ("llama", "f16", "bpe"), ("qwen2", "q8_0", "bpe"), ("qwen2", "q4_0", "spm"),
])
def test_metadata_tensors_and_config_match_gguf_reader(tmp_path, arch, qtype, tok):
    path = tmp_path / "m.gguf"
    cfg = mtm.Config(arch=arch, type=qtype, tokenizer=tok, dim=64, layers=2, heads=4, kv_heads=2, ffn=96,
                     vocab=320, tied=(qtype == "f16"))
    mtm.write_model(str(path), cfg)
    got, rc = dump(path)
    assert rc == 0
    reader = gguf.GGUFReader(str(path))

    expected_meta = {name: field.contents() for name, field in reader.fields.items() if not name.startswith("GGUF.")}
    assert got["metadata"] == expected_meta

    assert [t["name"] for t in got["tensors"]] == [t.name for t in reader.tensors]
    for mine, ref in zip(got["tensors"], reader.tensors):
        assert mine["type"] == ref.tensor_type.name.lower(), ref.name
        assert mine["dims"] == [int(d) for d in ref.shape], ref.name
        assert mine["bytes"] == int(ref.n_bytes), ref.name
        assert mine["fnv1a"] == fnv1a(np.ascontiguousarray(ref.data).tobytes()), ref.name

    model = got["model"]
    assert (model["architecture"], model["vocab_size"], model["dim"], model["n_layers"]) == (arch, 320, 64, 2)
    assert (model["n_heads"], model["n_kv_heads"], model["head_dim"], model["ffn_dim"]) == (4, 2, 16, 96)
    assert model["rope_neox"] == (arch == "qwen2")
    assert model["context_length"] == 256


def test_loader_errors_name_the_tensor(tmp_path):
    path = tmp_path / "bad.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_embedding_length(8)
    w.add_block_count(1)
    w.add_head_count(2)
    w.add_feed_forward_length(16)
    w.add_tensor("token_embd.weight", np.zeros((10, 8), np.float32))
    w.add_tensor("blk.0.attn_norm.weight", np.ones(8, np.float32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((8, 6), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    got, rc = dump(path)
    assert rc == 0
    assert got["model_error"] == ("gguf model: tensor blk.0.attn_q.weight has shape [8 x 6], expected [8 x 8] "
                                  "(rows x cols)")


def test_truncated_file_is_an_error(tmp_path):
    src = tmp_path / "m.gguf"
    mtm.write_model(str(src), mtm.Config(layers=1, vocab=300))
    data = src.read_bytes()
    for cut in (10, 100, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.gguf").write_bytes(data[:cut])
        got, rc = dump(tmp_path / "cut.gguf")
        assert rc == 1
        assert got["error"].startswith("gguf: ")


PRE_REGEX = {
    "llama-bpe": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                 r"\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
             r"\s*[\r\n]+|\s+(?!\S)|\s+",
}


def hf_tokenizer(vocab, pre):
    tokenizers = pytest.importorskip("tokenizers", reason="HF tokenizers is not installed")
    from tokenizers import Regex, decoders, models, pre_tokenizers

    merges = [tuple(m.split(" ")) for m in vocab.merges]
    model = models.BPE({t: i for i, t in enumerate(vocab.tokens)}, merges, ignore_merges=(pre == "llama-bpe"))
    tok = tokenizers.Tokenizer(model)
    if pre == "gpt2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(PRE_REGEX[pre]), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(mtm.BPE_SPECIALS)
    return tok


@pytest.mark.parametrize("pre", ["llama-bpe", "qwen2", "gpt2"])
def test_bpe_tokens_match_hf_tokenizers(tmp_path, pre):
    vocab = mtm.bpe_vocab(400)
    ref = hf_tokenizer(vocab, pre)
    path = tmp_path / "bpe.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    mtm.write_vocab(w, vocab, pre)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()
    for text in TEXTS:
        got, rc = dump(path, "--tokenize", text, "--parse-special", "--no-bos")
        assert rc == 0
        assert got["tokens"] == ref.encode(text, add_special_tokens=False).ids, repr(text)


def test_spm_tokens_match_sentencepiece(tmp_path):
    spm = pytest.importorskip("sentencepiece", reason="sentencepiece is not installed")
    import io

    model = io.BytesIO()
    lines = [s.strip() + "." for s in mtm.CORPUS.split(". ") if s.strip()]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, model_type="bpe", vocab_size=340, byte_fallback=True,
        normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=True,
        character_coverage=1.0, unk_id=0, bos_id=1, eos_id=2, pad_id=-1, hard_vocab_limit=False,
        minloglevel=2)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i))
        scores.append(sp.get_score(i))
        types.append(2 if sp.is_unknown(i) else 3 if sp.is_control(i) else 6 if sp.is_byte(i)
                     else 5 if sp.is_unused(i) else 1)
    vocab = mtm.Vocab("llama", tokens, scores, types, [], 1, 2)
    path = tmp_path / "spm.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    mtm.write_vocab(w, vocab)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()
    for text in TEXTS:
        if "<|" in text:
            continue  # sentencepiece has no such specials in this vocabulary
        got, rc = dump(path, "--tokenize", text, "--no-bos")
        assert rc == 0
        assert got["tokens"] == sp.encode(text), repr(text)


@pytest.mark.parametrize("family", ["chatml", "llama3"])
def test_chat_template_matches_jinja(tmp_path, family):
    jinja2 = pytest.importorskip("jinja2", reason="jinja2 is not installed")
    path = tmp_path / "chat.gguf"
    mtm.write_model(str(path), mtm.Config(layers=1, vocab=300, chat_template=family))
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": " Hi there "},
                {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Bye"}]
    args = [a for m in messages for a in ("--chat", f"{m['role']}={m['content']}")]
    got, rc = dump(path, *args)
    assert rc == 0
    assert got["chat_family"] == "jinja"
    assert got["chat_fallback_family"] == family
    expected = jinja2.Template(mtm.CHAT_TEMPLATES[family]).render(messages=messages, add_generation_prompt=True)
    assert got["chat"] == expected
