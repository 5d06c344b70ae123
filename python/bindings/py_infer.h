// NativeModel: a loaded model served through the engine's OpenAI routes, for the package's slipstream.infer.
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds to the module:
/// - `NativeModel(path: str, options: dict)`: loads a .gguf (or llama2.c .bin) model and starts its scheduler
///   (the GIL released while loading). Option keys: model_id, threads, kv_cache_bytes, block_size, max_context,
///   max_batch_tokens, max_running, prefill_chunk, max_waiting, preemption ("recompute" | "swap"), prefix_cache,
///   speculative_ngram, draft_model, speculative_draft, draft_kv_cache_bytes, max_choices, default_max_tokens;
///   an unknown key or a bad value raises ValueError, a model (or draft model) that cannot be loaded or does not
///   fit raises ValueError with the loader's message.
///   `mount(native_app, prefix)` serves /chat/completions, /completions and /models under prefix (before the
///   app starts); `model_id`; `stats()` (a dict of the scheduler's counters); `close()` stops the scheduler.
void register_infer(nanobind::module_& m);

}  // namespace slipstream::python
