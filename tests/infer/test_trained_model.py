"""The committed trained model (models/tiny-kjv.gguf, made by scripts/infer/train_tiny_model.py; models/README.md):
its tokenizer gives the ids the training script's tokenizer gave, and greedy text through the OpenAI routes is the
text the NumPy reference produced when the model was exported (models/README.md's samples)."""
import json
import subprocess

import pytest

from tests.conftest import BUILD, ROOT, Server

openai = pytest.importorskip("openai", reason="the openai client is not installed (pip install openai)")

MODEL = ROOT / "models/tiny-kjv.gguf"
SERVE = BUILD / "src/app/slipstream-serve"
DUMP = BUILD / "src/agent/infer/slipstream-gguf-dump"
CHAT = "<|im_start|>user\nGenesis 1:1<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def client():
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built (ninja -C build slipstream-serve)")
    s = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(MODEL), "--model-threads", "2",
                "--model-kv-cache", "16m"])
    yield openai.OpenAI(base_url=s.url + "/v1", api_key="unused", max_retries=0, timeout=60)
    s.stop()


@pytest.mark.parametrize("text,special,ids", [
    ("In the beginning", False, [1, 377, 265, 333, 887, 339, 265, 363]),
    (CHAT, True, [1, 1022, 714, 341, 13, 294, 352, 356, 351, 949, 286, 312, 1023, 259, 13, 1022, 459, 266, 351, 261,
                  548, 13]),
])
def test_tokens_equal_the_training_tokenizer(text, special, ids):
    if not DUMP.exists():
        pytest.skip(f"{DUMP} is not built (ninja -C build slipstream-gguf-dump)")
    args = [str(DUMP), str(MODEL), "--tokenize", text, *(["--parse-special"] if special else [])]
    out = subprocess.run(args, check=True, capture_output=True, text=True, timeout=60)
    assert json.loads(out.stdout)["tokens"] == ids


@pytest.mark.parametrize("prompt,continuation", [
    ("In the beginning", " of the chronicles of the kingdoms of the kingdom of God:"),
    ("And the LORD said unto Moses,", " What is the LORD God of Israel?"),
])
def test_greedy_text_is_the_reference_text(client, prompt, continuation):
    r = client.completions.create(model="tiny-kjv", prompt=prompt, max_tokens=24, temperature=0)
    assert r.choices[0].text.startswith(continuation)


def test_chat_answers_in_english(client):
    r = client.chat.completions.create(model="tiny-kjv", messages=[{"role": "user", "content": "Genesis 1:1"}],
                                       max_tokens=24, temperature=0)
    words = r.choices[0].message.content.split()
    assert len(words) >= 5
    assert sum(w.strip(",.:;?").lower() in {"the", "and", "of", "lord", "unto", "god", "said"} for w in words) >= 2
