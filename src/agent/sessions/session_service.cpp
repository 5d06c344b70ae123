// SessionService (include/slipstream/sessions.h): SessionsOptions to a SessionStore, its routes, its sweeper, and
// the store's operations answered as the routes answer them.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "agent/sessions/session_json.h"
#include "agent/sessions/session_problem.h"
#include "agent/sessions/session_routes.h"
#include "agent/sessions/session_service.h"
#include "agent/sessions/session_store.h"
#include "agent/sessions/session_sweeper.h"
#include "slipstream/sessions.h"

namespace slipstream {

namespace agent::sessions {

SessionStoreOptions store_options(const SessionsOptions& o) {
    SessionStoreOptions out;
    out.limits.max_events_per_session = o.max_events;
    out.limits.max_event_bytes = o.max_event_bytes;
    out.limits.max_state_bytes = o.max_state_bytes;
    out.limits.max_sessions_per_principal = o.max_per_principal;
    out.limits.default_ttl_ms = o.ttl_ms;
    out.limits.max_ttl_ms = std::max(out.limits.max_ttl_ms, o.ttl_ms);
    if (o.buffered) out.durability = Durability::kBuffered;
    out.buffer.flush_ms = o.flush_ms;
    out.buffer.max_queued_events = o.max_queued_events;
    out.append_in_flight = o.append_in_flight;
    out.append_batch = o.append_batch;
    return out;
}

}  // namespace agent::sessions

using agent::sessions::SessionCallback;
using agent::sessions::SessionResult;

namespace {

void check_bounds(const SessionsOptions& o) {
    auto need = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("SessionsOptions: ") + what);
    };
    need(!o.store_url.empty(), "store_url is required");
    need(o.flush_ms >= 1 && o.flush_ms <= 60'000, "flush_ms must be in 1..60000");
    need(o.max_queued_events >= 1 && o.max_events >= 1 && o.max_per_principal >= 1 && o.max_page >= 1,
         "max_queued_events, max_events, max_per_principal and max_page must be at least 1");
    need(o.append_in_flight >= 1 && o.append_in_flight <= 1'000, "append_in_flight must be in 1..1000");
    need(o.append_batch >= 1 && o.append_batch <= 10'000, "append_batch must be in 1..10000");
    need(o.max_event_bytes >= 16 && o.max_state_bytes >= 16, "max_event_bytes and max_state_bytes must be >= 16");
    need(o.ttl_ms >= 1 && o.ttl_ms <= 30LL * 24 * 3'600'000, "ttl_ms must be in 1..2592000000 (30 days)");
    need(o.sweep_interval_ms >= 10 && o.sweep_interval_ms <= 86'400'000, "sweep_interval_ms must be in 10..86400000");
}

// The answer of `r`: `ok(value)` as the routes give it, or the error's problem document.
template <typename T, typename Ok>
SessionCallback<T> reply(SessionReplyCallback done, Ok ok) {
    return [done = std::move(done), ok](SessionResult<T> r) {
        if (r.is_ok()) return done(ok(r.value()));
        Response problem = agent::sessions::problem_for(r.error());
        done(SessionReply{problem.status, std::string(problem.body_bytes()), r.error().current_version});
    };
}

SessionReply state_reply(const agent::sessions::StateDocument& doc) {
    return SessionReply{200, doc.state_json, doc.version};
}

SessionReply closed() {
    Response problem = agent::sessions::problem(503, "the session store is closed");
    return SessionReply{503, std::string(problem.body_bytes()), 0};
}

}  // namespace

struct SessionService::Impl {
    std::mutex mutex;
    std::shared_ptr<agent::sessions::SessionStore> store;
    std::unique_ptr<agent::sessions::SessionSweeper> sweeper;
    SessionsOptions options;

    std::shared_ptr<agent::sessions::SessionStore> open_store() {
        std::lock_guard<std::mutex> lock(mutex);
        return store;
    }
};

SessionService::SessionService(SessionsOptions options) : impl_(std::make_unique<Impl>()) {
    check_bounds(options);
    store::DatabaseConfig config;
    config.url = options.store_url;
    base::Result<std::unique_ptr<store::Database>> opened = store::Database::open(std::move(config));
    if (!opened.is_ok()) throw std::runtime_error("the session store: " + opened.status().message());
    std::shared_ptr<store::Database> db(std::move(opened).value());
    base::Result<std::shared_ptr<agent::sessions::SessionStore>> store =
        agent::sessions::SessionStore::open(std::move(db), agent::sessions::store_options(options));
    if (!store.is_ok()) throw std::runtime_error("the session store: " + store.status().message());
    impl_->store = std::move(store).value();
    impl_->sweeper = std::make_unique<agent::sessions::SessionSweeper>(impl_->store, options.sweep_interval_ms);
    impl_->options = std::move(options);
}

SessionService::~SessionService() {
    close();
}

std::string SessionService::mount(App& app, std::string_view prefix, std::string_view openapi_path) {
    std::shared_ptr<agent::sessions::SessionStore> store = impl_->open_store();
    if (!store) throw std::invalid_argument("the session service is closed");
    if (prefix.empty() || prefix.front() != '/' || prefix.back() == '/')
        throw std::invalid_argument("the prefix must start with '/' and not end with '/'");
    agent::sessions::SessionRoutesOptions routes;
    routes.prefix = std::string(prefix);
    routes.openapi_path = std::string(openapi_path);
    routes.max_page = impl_->options.max_page;
    routes.metrics = impl_->options.metrics;
    return agent::sessions::mount_session_routes(app, std::move(store), std::move(routes));
}

void SessionService::create(std::string principal, std::string metadata_json, std::string state_json,
                            std::int64_t ttl_ms, SessionReplyCallback done) {
    auto store = impl_->open_store();
    if (!store) return done(closed());
    store->create(std::move(principal), {std::move(metadata_json), std::move(state_json), ttl_ms},
                  reply<agent::sessions::SessionInfo>(std::move(done), [](const agent::sessions::SessionInfo& i) {
                      return SessionReply{201, agent::sessions::session_json(i), i.state_version};
                  }));
}

void SessionService::append(std::string principal, std::string id, std::vector<SessionEventInput> events,
                            std::string idempotency_key, SessionReplyCallback done) {
    auto store = impl_->open_store();
    if (!store) return done(closed());
    std::vector<agent::sessions::NewEvent> batch;
    batch.reserve(events.size());
    for (SessionEventInput& e : events)
        batch.push_back({std::move(e.role), std::move(e.content_json)});
    store->append(std::move(principal), std::move(id), std::move(batch), std::move(idempotency_key),
                  reply<agent::sessions::AppendResult>(std::move(done), [](const agent::sessions::AppendResult& r) {
                      return SessionReply{r.replayed ? 200 : 201, agent::sessions::append_json(r), 0};
                  }));
}

void SessionService::events(std::string principal, std::string id, std::int64_t after, std::size_t limit,
                            SessionReplyCallback done) {
    auto store = impl_->open_store();
    if (!store) return done(closed());
    limit = std::min(std::max<std::size_t>(limit, 1), impl_->options.max_page);
    store->events(std::move(principal), std::move(id), after, limit,
                  reply<agent::sessions::EventPage>(std::move(done), [after](const agent::sessions::EventPage& p) {
                      return SessionReply{200, agent::sessions::event_page_json(p, after), 0};
                  }));
}

void SessionService::state(std::string principal, std::string id, SessionReplyCallback done) {
    auto store = impl_->open_store();
    if (!store) return done(closed());
    store->get_state(std::move(principal), std::move(id),
                     reply<agent::sessions::StateDocument>(std::move(done), state_reply));
}

void SessionService::update_state(std::string principal, std::string id, std::string state_json,
                                  std::optional<std::int64_t> expected_version, SessionReplyCallback done) {
    auto store = impl_->open_store();
    if (!store) return done(closed());
    store->put_state(std::move(principal), std::move(id), std::move(state_json), expected_version,
                     reply<agent::sessions::StateDocument>(std::move(done), state_reply));
}

void SessionService::patch_state(std::string principal, std::string id, std::string patch_json,
                                 std::optional<std::int64_t> expected_version, SessionReplyCallback done) {
    auto store = impl_->open_store();
    if (!store) return done(closed());
    store->patch_state(std::move(principal), std::move(id), std::move(patch_json), expected_version,
                       reply<agent::sessions::StateDocument>(std::move(done), state_reply));
}

void SessionService::close() {
    std::shared_ptr<agent::sessions::SessionStore> store;
    std::unique_ptr<agent::sessions::SessionSweeper> sweeper;
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        store = std::move(impl_->store);
        sweeper = std::move(impl_->sweeper);
    }
    sweeper.reset();
    if (!store) return;
    store->close();
    // Answers that just ran may hold the store for a moment on a database thread: the last reference is dropped
    // here, where closing the database (it joins those threads) is safe.
    for (int i = 0; i < 500 && store.use_count() > 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

}  // namespace slipstream
