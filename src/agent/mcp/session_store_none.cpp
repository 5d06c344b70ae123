// SessionStore in a build without store/database: opening says so; nothing else is ever reached.
#include "agent/mcp/session_store.h"

#include <chrono>

namespace slipstream::mcp::detail {

std::int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

base::Result<std::shared_ptr<SessionStore>> SessionStore::open(Options) {
    return base::Status::invalid_argument("this build has no database drivers (store/database was not built)");
}

SessionStore::~SessionStore() = default;
void SessionStore::insert(const SessionRecord&, std::function<void(Outcome)> done) {
    done(Outcome::kUnavailable);
}
void SessionStore::update(const SessionRecord&, std::function<void(Outcome)> done) {
    done(Outcome::kUnavailable);
}
void SessionStore::load(const std::string&, std::function<void(Outcome, std::optional<SessionRecord>)> done) {
    done(Outcome::kUnavailable, std::nullopt);
}
void SessionStore::touch(const std::string&, std::function<void()>) {}
void SessionStore::remove(const std::string&, const std::string&, std::function<void(Outcome)> done) {
    done(Outcome::kUnavailable);
}
void SessionStore::remove_if_idle(const std::string&, std::function<void()>) {}
void SessionStore::post_signal(const Signal&, std::function<void(Outcome)> done) {
    if (done) done(Outcome::kUnavailable);
}
bool SessionStore::watch_signals(std::function<void()>) {
    return false;
}
void SessionStore::signals_since(std::int64_t, std::size_t, std::function<void(Outcome, std::vector<Signal>)> done) {
    done(Outcome::kUnavailable, {});
}
void SessionStore::append_events(const std::string&, const std::string&, std::vector<StoredEvent>, std::uint64_t,
                                 std::function<void(Outcome)> done) {
    if (done) done(Outcome::kUnavailable);
}
void SessionStore::read_events(const std::string&, const std::string&, std::uint64_t, std::size_t,
                               std::function<void(Outcome, std::vector<StoredEvent>)> done) {
    done(Outcome::kUnavailable, {});
}
void SessionStore::stream_known(const std::string&, const std::string&,
                                std::function<void(Outcome, bool, std::int64_t)> done) {
    done(Outcome::kUnavailable, false, 0);
}
bool SessionStore::watch_events(std::function<void()>) {
    return false;
}
void SessionStore::sweep(std::size_t, std::function<void(std::int64_t)> done) {
    if (done) done(-1);
}

}  // namespace slipstream::mcp::detail
