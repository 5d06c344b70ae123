// The session store's /metrics series: its counters, the buffered queue and the append latency histogram.
#include "agent/sessions/session_metrics.h"

#include <atomic>
#include <functional>
#include <vector>

namespace slipstream::agent::sessions {

void register_session_metrics(App& app, const std::shared_ptr<SessionStore>& store) {
    // The store outlives no App it is mounted on (both are the owner's); a weak reference keeps scraping safe.
    std::weak_ptr<SessionStore> weak = store;
    auto read = [weak](std::function<double(const SessionStore&)> value) {
        return [weak, value = std::move(value)]() -> double {
            std::shared_ptr<SessionStore> s = weak.lock();
            return s ? value(*s) : 0.0;
        };
    };
    auto counter = [&](const char* name, const char* help, std::atomic<std::uint64_t> SessionStats::*field) {
        app.counter_metric(name, help, read([field](const SessionStore& s) {
                               return static_cast<double>((s.stats().*field).load(std::memory_order_relaxed));
                           }));
    };
    counter("slipstream_sessions_created_total", "Agent sessions created since start.",
            &SessionStats::sessions_created);
    counter("slipstream_sessions_appends_total", "Appends that added events since start (replays not counted).",
            &SessionStats::appends);
    counter("slipstream_sessions_events_total", "Events added by appends since start.", &SessionStats::events);
    counter("slipstream_sessions_replayed_appends_total",
            "Appends answered from their Idempotency-Key (nothing added) since start.", &SessionStats::replayed);
    counter("slipstream_sessions_state_writes_total", "State documents written (PUT and PATCH) since start.",
            &SessionStats::state_writes);
    counter("slipstream_sessions_conflicts_total", "State writes refused with 409: the If-Match version was stale.",
            &SessionStats::conflicts);
    counter("slipstream_sessions_grouped_appends_total",
            "PostgreSQL durable appends that went out with others in one statement (one commit for the group).",
            &SessionStats::grouped);
    counter("slipstream_sessions_refused_appends_total",
            "Buffered appends refused with 503 because the write queue was full.", &SessionStats::refused_busy);
    app.gauge_metric("slipstream_sessions_queued_events",
                     "Buffered events acknowledged and not yet committed (0 when durable).",
                     read([](const SessionStore& s) { return static_cast<double>(s.queued_events()); }));
    app.counter_metric("slipstream_sessions_dropped_events_total",
                       "Buffered events dropped at a flush because their session was gone or written elsewhere.",
                       read([](const SessionStore& s) { return static_cast<double>(s.dropped_events()); }));
    store->observe_appends(app.duration_histogram("slipstream_sessions_append_latency_seconds",
                                                  "Time from an append's call to its answer (durable: its COMMIT).",
                                                  {10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3,
                                                   10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1.0, 2.5}));
}

}  // namespace slipstream::agent::sessions
