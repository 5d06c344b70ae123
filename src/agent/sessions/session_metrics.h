// register_session_metrics(): the session store's series on the App's /metrics page.
#pragma once

#include <memory>

#include "agent/sessions/session_store.h"
#include "slipstream/app.h"

namespace slipstream::agent::sessions {

/// Registers on `app` (before it starts; names under slipstream_sessions_*, so once per App), read from the store
/// at scrape time: created_total, appends_total, events_total, replayed_appends_total, state_writes_total,
/// conflicts_total, and for the buffered mode queued_events (a gauge), refused_appends_total (503, queue full)
/// and dropped_events_total; and the histogram append_latency_seconds (from the store's call to its answer, 10 us
/// to 2.5 s), which the store observes from then on. Throws std::invalid_argument when a name is taken.
void register_session_metrics(App& app, const std::shared_ptr<SessionStore>& store);

}  // namespace slipstream::agent::sessions
