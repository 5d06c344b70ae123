// Session: negotiated state and the table of requests in flight.
#include "agent/mcp/session.h"

#include <algorithm>
#include <vector>

namespace slipstream::mcp::detail {

void Session::set_version(std::string_view version) {
    std::lock_guard lock(mu_);
    version_ = version;
    features_ = features_of(version);
}

std::string Session::version() const {
    std::lock_guard lock(mu_);
    return version_;
}

Features Session::features() const {
    std::lock_guard lock(mu_);
    return features_;
}

bool Session::initialized() const {
    std::lock_guard lock(mu_);
    return initialized_;
}

void Session::set_initialized() {
    std::lock_guard lock(mu_);
    initialized_ = true;
}

LogLevel Session::log_level() const {
    std::lock_guard lock(mu_);
    return log_level_;
}

void Session::set_log_level(LogLevel level) {
    std::lock_guard lock(mu_);
    log_level_ = level;
}

bool Session::subscribe(const std::string& uri, std::size_t max) {
    std::lock_guard lock(mu_);
    if (subscriptions_.count(uri) != 0) return true;
    if (subscriptions_.size() >= max) return false;
    subscriptions_.insert(uri);
    return true;
}

std::vector<std::string> Session::subscriptions() const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out(subscriptions_.begin(), subscriptions_.end());
    std::sort(out.begin(), out.end());
    return out;
}

void Session::restore(std::string_view version, std::string capabilities, LogLevel level,
                      const std::vector<std::string>& subscriptions) {
    std::lock_guard lock(mu_);
    version_ = version;
    features_ = features_of(version);
    client_capabilities_ = std::move(capabilities);
    log_level_ = level;
    subscriptions_ = std::unordered_set<std::string>(subscriptions.begin(), subscriptions.end());
    initialized_ = true;
}

void Session::set_saver(SaveFn saver) {
    std::lock_guard lock(mu_);
    saver_ = std::move(saver);
}

void Session::save(std::function<void(bool)> done) const {
    SaveFn saver;
    {
        std::lock_guard lock(mu_);
        saver = saver_;
    }
    if (!saver) return done(true);
    saver(*this, std::move(done));
}

void Session::unsubscribe(const std::string& uri) {
    std::lock_guard lock(mu_);
    subscriptions_.erase(uri);
}

bool Session::subscribed(const std::string& uri) const {
    std::lock_guard lock(mu_);
    return subscriptions_.count(uri) != 0;
}

Session::Admit Session::admit(const std::string& id_json, const std::shared_ptr<CallState>& call, std::size_t max) {
    std::lock_guard lock(mu_);
    auto it = calls_.find(id_json);
    if (it != calls_.end()) {
        if (!it->second.expired()) return Admit::kDuplicateId;
        calls_.erase(it);
    }
    if (calls_.size() >= max) return Admit::kFull;
    calls_.emplace(id_json, call);
    return Admit::kOk;
}

void Session::forget(const std::string& id_json, const CallState* call) {
    std::lock_guard lock(mu_);
    auto it = calls_.find(id_json);
    if (it == calls_.end()) return;
    auto held = it->second.lock();
    if (held == nullptr || held.get() == call) calls_.erase(it);
}

std::shared_ptr<CallState> Session::find(const std::string& id_json) const {
    std::lock_guard lock(mu_);
    auto it = calls_.find(id_json);
    return it == calls_.end() ? nullptr : it->second.lock();
}

std::vector<std::shared_ptr<CallState>> Session::calls() const {
    std::vector<std::shared_ptr<CallState>> out;
    std::lock_guard lock(mu_);
    for (const auto& [id, weak] : calls_)
        if (auto call = weak.lock()) out.push_back(std::move(call));
    return out;
}

void Session::set_client_capabilities(std::string json) {
    std::lock_guard lock(mu_);
    client_capabilities_ = std::move(json);
}

std::string Session::client_capabilities() const {
    std::lock_guard lock(mu_);
    return client_capabilities_;
}

void Session::set_answerable(bool on) {
    std::lock_guard lock(mu_);
    answerable_ = on;
}

bool Session::answerable() const {
    std::lock_guard lock(mu_);
    return answerable_;
}

void Session::set_forwarder(Forwarder forwarder) {
    std::lock_guard lock(mu_);
    forwarder_ = std::move(forwarder);
}

bool Session::forward(std::string_view kind, const std::string& target, std::string payload) const {
    Forwarder fn;
    {
        std::lock_guard lock(mu_);
        fn = forwarder_;
    }
    if (!fn) return false;
    fn(kind, target, std::move(payload));
    return true;
}

void Session::set_request_prefix(std::string prefix) {
    std::lock_guard lock(mu_);
    request_prefix_ = std::move(prefix);
}

std::optional<std::string> Session::add_pending(AnswerFn on_answer, std::size_t max) {
    std::lock_guard lock(mu_);
    if (pending_.size() >= max) return std::nullopt;
    std::string id = "\"s" + request_prefix_ + std::to_string(next_request_++) + "\"";
    pending_.emplace(id, std::make_pair(std::move(on_answer), 0));
    return id;
}

void Session::set_pending_timer(const std::string& id_json, std::uint64_t timer_id) {
    std::lock_guard lock(mu_);
    auto it = pending_.find(id_json);
    if (it != pending_.end()) it->second.second = timer_id;
}

Session::AnswerFn Session::take_pending(const std::string& id_json, std::uint64_t* timer_id) {
    std::lock_guard lock(mu_);
    auto it = pending_.find(id_json);
    if (it == pending_.end()) return {};
    AnswerFn fn = std::move(it->second.first);
    if (timer_id != nullptr) *timer_id = it->second.second;
    pending_.erase(it);
    return fn;
}

void Session::set_sink(std::function<void(std::string)> sink) {
    std::lock_guard lock(mu_);
    sink_ = std::move(sink);
}

void Session::push(std::string message) const {
    std::function<void(std::string)> sink;
    {
        std::lock_guard lock(mu_);
        sink = sink_;
    }
    if (sink) sink(std::move(message));
}

}  // namespace slipstream::mcp::detail
