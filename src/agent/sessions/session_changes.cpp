// SessionChanges: subscribe, unsubscribe, publish; callbacks run outside the lock.
#include "agent/sessions/session_changes.h"

#include <vector>

namespace slipstream::agent::sessions {

std::uint64_t SessionChanges::subscribe(const std::string& id, Wake wake) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uint64_t token = next_token_++;
    by_session_[id].emplace(token, std::move(wake));
    return token;
}

void SessionChanges::unsubscribe(const std::string& id, std::uint64_t token) {
    Wake gone;  // destroyed after the lock is released: it may hold the last reference to its follower
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_session_.find(id);
    if (it == by_session_.end()) return;
    auto found = it->second.find(token);
    if (found == it->second.end()) return;
    gone = std::move(found->second);
    it->second.erase(found);
    if (it->second.empty()) by_session_.erase(it);
}

void SessionChanges::publish(const std::string& id) {
    std::vector<Wake> wakes;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = by_session_.find(id);
        if (it == by_session_.end()) return;
        for (const auto& [token, wake] : it->second)
            wakes.push_back(wake);
    }
    for (const Wake& wake : wakes)
        wake();
}

void SessionChanges::publish_all() {
    std::vector<Wake> wakes;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [id, followers] : by_session_)
            for (const auto& [token, wake] : followers)
                wakes.push_back(wake);
    }
    for (const Wake& wake : wakes)
        wake();
}

void SessionChanges::clear() {
    std::unordered_map<std::string, std::unordered_map<std::uint64_t, Wake>> gone;
    std::lock_guard<std::mutex> lock(mutex_);
    gone.swap(by_session_);
}

std::size_t SessionChanges::followers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t n = 0;
    for (const auto& [id, followers] : by_session_)
        n += followers.size();
    return n;
}

}  // namespace slipstream::agent::sessions
