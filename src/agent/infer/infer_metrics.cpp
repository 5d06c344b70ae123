// The model server's metrics: histograms the requests observe, gauges and counters read from the scheduler.
#include "agent/infer/infer_metrics.h"

#include <stdexcept>

namespace slipstream::agent::infer {

std::shared_ptr<const InferMetrics> register_infer_metrics(App& app, std::shared_ptr<InferenceEngine> engine) {
    auto m = std::make_shared<InferMetrics>();
    try {
        // 1 ms .. 60 s, roughly 2.5x apart: first tokens wait for prefill and the queue.
        const std::vector<double> wide = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                          0.5,   1,      2.5,   5,    10,    20,   40,  60};
        // 0.5 ms .. 5 s: one decode step of the batch.
        const std::vector<double> step = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
        m->time_to_first_token = app.duration_histogram("slipstream_model_time_to_first_token_seconds",
                                                        "Time from a request's arrival to its first token", wide);
        m->time_per_output_token = app.duration_histogram("slipstream_model_time_per_output_token_seconds",
                                                          "Mean time between a request's output tokens", step);
        m->queue_time = app.duration_histogram("slipstream_model_queue_time_seconds",
                                               "Time from a request's arrival to its first scheduled step", wide);
        m->request_latency = app.duration_histogram("slipstream_model_request_latency_seconds",
                                                    "Time from a request's arrival to its last token", wide);
        using Field = double (*)(const SchedulerStats&);
        struct Metric {
            const char* name;
            const char* help;
            bool counter;
            Field field;
        };
        const Metric metrics[] = {
            {"slipstream_model_requests_running", "Sequences in the running batch", false,
             [](const SchedulerStats& s) { return double(s.running); }},
            {"slipstream_model_requests_waiting", "Sequences waiting to be admitted", false,
             [](const SchedulerStats& s) { return double(s.waiting); }},
            {"slipstream_model_requests_swapped", "Preempted sequences whose KV blocks are in host memory", false,
             [](const SchedulerStats& s) { return double(s.swapped); }},
            {"slipstream_model_kv_blocks_total", "KV-cache blocks", false,
             [](const SchedulerStats& s) { return double(s.blocks_total); }},
            {"slipstream_model_kv_blocks_used", "KV-cache blocks held by sequences", false,
             [](const SchedulerStats& s) { return double(s.blocks_used); }},
            {"slipstream_model_kv_blocks_cached", "KV-cache blocks indexed by the prefix cache", false,
             [](const SchedulerStats& s) { return double(s.blocks_cached); }},
            {"slipstream_model_batch_tokens", "Tokens the last scheduler step computed", false,
             [](const SchedulerStats& s) { return double(s.batch_tokens_last_step); }},
            {"slipstream_model_steps_total", "Scheduler steps that ran the model", true,
             [](const SchedulerStats& s) { return double(s.steps); }},
            {"slipstream_model_forwarded_tokens_total", "Tokens computed by the model (prompts and outputs)", true,
             [](const SchedulerStats& s) { return double(s.tokens_forwarded); }},
            {"slipstream_model_generated_tokens_total", "Tokens generated", true,
             [](const SchedulerStats& s) { return double(s.tokens_generated); }},
            {"slipstream_model_prefix_cache_queried_tokens_total", "Prompt tokens looked up in the prefix cache", true,
             [](const SchedulerStats& s) { return double(s.prefix_queried_tokens); }},
            {"slipstream_model_prefix_cache_hit_tokens_total", "Prompt tokens whose KV came from the prefix cache",
             true, [](const SchedulerStats& s) { return double(s.prefix_hit_tokens); }},
            {"slipstream_model_preemptions_total", "Sequences preempted when KV blocks ran out", true,
             [](const SchedulerStats& s) { return double(s.preemptions); }},
            {"slipstream_model_spec_draft_tokens_total", "Speculative draft tokens proposed", true,
             [](const SchedulerStats& s) { return double(s.spec_proposed); }},
            {"slipstream_model_spec_accepted_tokens_total", "Speculative draft tokens accepted", true,
             [](const SchedulerStats& s) { return double(s.spec_accepted); }},
            {"slipstream_model_kv_blocks_copied_total",
             "KV blocks copied before a write (copy-on-write of blocks n choices share)", true,
             [](const SchedulerStats& s) { return double(s.blocks_copied); }},
            {"slipstream_model_constrained_refused_total",
             "Tokens drawn for a constrained output (response_format, a required tool call) that it refused", true,
             [](const SchedulerStats& s) { return double(s.constrained_refused); }},
            {"slipstream_model_constrained_masks_total",
             "Constrained draws that needed the full mask of allowed tokens", true,
             [](const SchedulerStats& s) { return double(s.constrained_masks); }},
        };
        for (const Metric& metric : metrics) {
            auto read = [engine, field = metric.field] { return field(engine->scheduler().stats()); };
            if (metric.counter) {
                app.counter_metric(metric.name, metric.help, read);
            } else {
                app.gauge_metric(metric.name, metric.help, read);
            }
        }
    } catch (const std::invalid_argument&) {
        return nullptr;
    }
    return m;
}

}  // namespace slipstream::agent::infer
