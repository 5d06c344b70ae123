"""slipstream.infer: a model served with the OpenAI API by the engine (C++ kernels, paged KV cache, continuous
batching), mounted on an App:

    from slipstream import App
    from slipstream.infer import Model

    app = App()
    app.mount("/v1", Model("model.gguf"))   # POST /v1/chat/completions, /v1/completions; GET /v1/models

Requests never take the GIL: parsing, the chat template, tokenization, scheduling, sampling and the SSE stream
all run in C++. Any OpenAI client works against it (`openai.OpenAI(base_url="http://host:port/v1", api_key="-")`).
"""

from __future__ import annotations

from typing import Any, Literal

from slipstream import _native


class Model:
    """A loaded model (a .gguf file of architecture llama or qwen2, f32/f16/bf16/q8_0/q4_0, or a llama2.c .bin
    with its tokenizer.bin beside it). Loading happens here; a file that cannot be served raises ValueError."""

    def __init__(self, path: str, *, model_id: str | None = None, threads: int = 0,
                 kv_cache_bytes: int = 256 << 20, block_size: int = 16, max_context: int = 0,
                 max_batch_tokens: int = 512, max_running: int = 64, prefill_chunk: int = 256,
                 max_waiting: int = 1024, preemption: Literal["recompute", "swap"] = "recompute",
                 prefix_cache: bool = True, speculative_ngram: int = 0, draft_model: str | None = None,
                 speculative_draft: int = 4, draft_kv_cache_bytes: int = 64 << 20, max_choices: int = 16,
                 default_max_tokens: int = 0) -> None:
        options: dict[str, Any] = {
            "threads": threads, "kv_cache_bytes": kv_cache_bytes, "block_size": block_size,
            "max_context": max_context, "max_batch_tokens": max_batch_tokens, "max_running": max_running,
            "prefill_chunk": prefill_chunk, "max_waiting": max_waiting, "preemption": preemption,
            "prefix_cache": prefix_cache, "speculative_ngram": speculative_ngram, "max_choices": max_choices,
            "default_max_tokens": default_max_tokens, "speculative_draft": speculative_draft,
            "draft_kv_cache_bytes": draft_kv_cache_bytes,
        }
        if model_id:
            options["model_id"] = model_id
        if draft_model:
            # A smaller model with the same vocabulary and tokenizer proposes speculative_draft tokens per step.
            options["draft_model"] = draft_model
        self.path = path
        self.native = _native.NativeModel(path, options)

    @property
    def model_id(self) -> str:
        return self.native.model_id

    def stats(self) -> dict[str, int]:
        """The scheduler's counters: waiting, running, KV blocks, prefix-cache tokens, tokens computed."""
        return dict(self.native.stats())

    def close(self) -> None:
        """Stops the scheduler: requests in flight end (their streams close)."""
        self.native.close()

    def install_native(self, native_app: Any, runtime: Any, path: str) -> None:
        """App.mount's hook: the OpenAI routes under `path` on the native app."""
        self.native.mount(native_app, path)


__all__ = ["Model"]
