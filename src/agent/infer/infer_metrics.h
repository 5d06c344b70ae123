// InferMetrics: the model server's Prometheus metrics (latencies, batch, KV cache, prefix cache) on an App.
#pragma once

#include <memory>

#include "agent/infer/inference_engine.h"
#include "slipstream/app.h"

namespace slipstream::agent::infer {

/// Per-request latencies, observed by CompletionJob; the scheduler's counters are read at scrape time.
struct InferMetrics {
    DurationHistogram time_to_first_token;    // submit to the first token
    DurationHistogram time_per_output_token;  // (end - first token) / (tokens - 1), per request
    DurationHistogram queue_time;             // submit to first scheduled
    DurationHistogram request_latency;        // submit to the last token
};

/// Registers slipstream_model_* metrics on the app's /metrics page. Null when the names are taken (a second
/// model on the same App): that model is served without metrics.
std::shared_ptr<const InferMetrics> register_infer_metrics(App& app, std::shared_ptr<InferenceEngine> engine);

}  // namespace slipstream::agent::infer
