// SessionTable: create, find, remove, expire.
#include "agent/mcp/session_table.h"

#include "agent/mcp/http_rules.h"

namespace slipstream::mcp::detail {

std::shared_ptr<HttpSession> SessionTable::make(std::string id, const std::string& principal) const {
    auto s = std::make_shared<HttpSession>();
    s->session = std::make_shared<Session>(std::move(id), principal);
    s->stream = std::make_shared<ServerStream>(limits_.replay_events);
    s->posts = std::make_shared<PostStreams>(limits_.resumable_posts);
    s->last_used = std::chrono::steady_clock::now();
    return s;
}

bool SessionTable::insert_locked(const std::shared_ptr<HttpSession>& s, Outcome& outcome) {
    if (by_id_.size() >= limits_.max_sessions) {
        outcome = Outcome::kFull;
        return false;
    }
    const std::string& principal = s->session->principal();
    std::size_t& count = per_principal_[principal];
    if (count >= limits_.max_per_principal) {
        outcome = Outcome::kPrincipalFull;
        if (count == 0) per_principal_.erase(principal);
        return false;
    }
    ++count;
    by_id_.emplace(s->session->id(), s);
    outcome = Outcome::kOk;
    return true;
}

std::shared_ptr<HttpSession> SessionTable::create(const std::string& principal, Outcome& outcome) {
    std::string id = new_session_id();
    if (id.empty()) {
        outcome = Outcome::kNoRandom;
        return nullptr;
    }
    auto s = make(std::move(id), principal);
    std::lock_guard lock(mu_);
    return insert_locked(s, outcome) ? s : nullptr;
}

std::shared_ptr<HttpSession> SessionTable::adopt(const std::string& id, const std::string& principal, Outcome& outcome,
                                                 bool& fresh) {
    auto s = make(id, principal);
    std::lock_guard lock(mu_);
    fresh = false;
    if (auto it = by_id_.find(id); it != by_id_.end()) {
        if (it->second->session->principal() != principal) {
            outcome = Outcome::kFull;
            return nullptr;
        }
        outcome = Outcome::kOk;
        it->second->last_used = std::chrono::steady_clock::now();
        return it->second;
    }
    if (!insert_locked(s, outcome)) return nullptr;
    fresh = true;
    return s;
}

std::vector<std::shared_ptr<HttpSession>> SessionTable::snapshot() {
    std::vector<std::shared_ptr<HttpSession>> out;
    std::lock_guard lock(mu_);
    out.reserve(by_id_.size());
    for (const auto& [id, s] : by_id_)
        out.push_back(s);
    return out;
}

std::shared_ptr<HttpSession> SessionTable::find(std::string_view id, std::string_view principal) {
    std::lock_guard lock(mu_);
    auto it = by_id_.find(std::string(id));
    if (it == by_id_.end() || it->second->session->principal() != principal) return nullptr;
    const auto now = std::chrono::steady_clock::now();
    if (now - it->second->last_used > limits_.idle && !it->second->stream->live()) return nullptr;
    it->second->last_used = now;
    return it->second;
}

std::shared_ptr<HttpSession> SessionTable::remove(std::string_view id, std::string_view principal) {
    std::lock_guard lock(mu_);
    auto it = by_id_.find(std::string(id));
    if (it == by_id_.end() || it->second->session->principal() != principal) return nullptr;
    auto s = std::move(it->second);
    by_id_.erase(it);
    auto count = per_principal_.find(s->session->principal());
    if (count != per_principal_.end() && --count->second == 0) per_principal_.erase(count);
    return s;
}

std::vector<std::shared_ptr<HttpSession>> SessionTable::expire() {
    std::vector<std::shared_ptr<HttpSession>> out;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mu_);
    for (auto it = by_id_.begin(); it != by_id_.end();) {
        if (now - it->second->last_used > limits_.idle && !it->second->stream->live()) {
            auto count = per_principal_.find(it->second->session->principal());
            if (count != per_principal_.end() && --count->second == 0) per_principal_.erase(count);
            out.push_back(std::move(it->second));
            it = by_id_.erase(it);
        } else {
            ++it;
        }
    }
    return out;
}

std::vector<std::shared_ptr<HttpSession>> SessionTable::clear() {
    std::vector<std::shared_ptr<HttpSession>> out;
    std::lock_guard lock(mu_);
    for (auto& [id, s] : by_id_)
        out.push_back(std::move(s));
    by_id_.clear();
    per_principal_.clear();
    return out;
}

}  // namespace slipstream::mcp::detail
