"""`slipstream serve-model MODEL`: an OpenAI-compatible server for one model file."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_command(commands: Any) -> None:
    cmd = commands.add_parser(
        "serve-model", help="serve a .gguf model with the OpenAI API (/v1/chat/completions, /v1/completions)",
        description="Serve one model file (.gguf: llama or qwen2; f32/f16/bf16/q8_0/q4_0; or a llama2.c .bin) "
                    "with the OpenAI API under /v1, until SIGINT/SIGTERM.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    cmd.add_argument("model", help="the model file")
    cmd.add_argument("--host", default="127.0.0.1")
    cmd.add_argument("--port", type=int, default=8000)
    cmd.add_argument("--model-id", default=None, help="the name clients send as model (default: the file's stem)")
    cmd.add_argument("--threads", type=int, default=0, help="kernel threads; 0: one per core")
    cmd.add_argument("--kv-cache-mib", type=int, default=256, help="memory of the paged KV cache")
    cmd.add_argument("--block-size", type=int, default=16, help="positions per KV block")
    cmd.add_argument("--max-context", type=int, default=0, help="0: the model's context length")
    cmd.add_argument("--max-batch-tokens", type=int, default=512, help="tokens one scheduler step computes")
    cmd.add_argument("--max-running", type=int, default=64, help="sequences in the running batch")
    cmd.add_argument("--prefill-chunk", type=int, default=256, help="prompt tokens of one sequence per step")
    cmd.add_argument("--max-waiting", type=int, default=1024, help="queued sequences; then 503")
    cmd.add_argument("--preemption", choices=("recompute", "swap"), default="recompute")
    cmd.add_argument("--no-prefix-cache", action="store_true", help="do not share KV blocks of common prefixes")
    cmd.add_argument("--speculative-ngram", type=int, default=0, help="prompt-lookup draft tokens per step")
    cmd.add_argument("--draft-model", default=None,
                     help="a smaller .gguf with the same vocabulary and tokenizer for speculative decoding")
    cmd.add_argument("--speculative-draft", type=int, default=4, help="draft-model tokens per step (0: off)")
    cmd.add_argument("--draft-kv-cache-mib", type=int, default=64, help="memory of the draft model's KV cache")
    cmd.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error", "critical"))


def run(args: argparse.Namespace, configure_logs: Callable[..., None]) -> int:
    from slipstream import App
    from slipstream.infer import Model

    configure_logs(args.log_level, "text")
    try:
        model = Model(args.model, model_id=args.model_id, threads=args.threads,
                      kv_cache_bytes=args.kv_cache_mib << 20, block_size=args.block_size,
                      max_context=args.max_context, max_batch_tokens=args.max_batch_tokens,
                      max_running=args.max_running, prefill_chunk=args.prefill_chunk,
                      max_waiting=args.max_waiting, preemption=args.preemption,
                      prefix_cache=not args.no_prefix_cache, speculative_ngram=args.speculative_ngram,
                      draft_model=args.draft_model, speculative_draft=args.speculative_draft,
                      draft_kv_cache_bytes=args.draft_kv_cache_mib << 20)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    app = App(openapi_url=None)
    app.mount("/v1", model)
    try:
        return app.run(host=args.host, port=args.port) or 0
    finally:
        model.close()
