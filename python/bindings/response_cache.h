// ResponseCache: a GET route's recent 200 responses by request target, served by I/O threads without the GIL.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "slipstream/response.h"

namespace slipstream::python {

/// Entries live `ttl` after they are stored; at most `max_entries` (a full cache first drops expired
/// entries, then stores nothing new until some expire). Thread-safe: I/O threads look up, the executor stores.
class ResponseCache {
  public:
    using Clock = std::chrono::steady_clock;

    ResponseCache(std::chrono::nanoseconds ttl, std::size_t max_entries) : ttl_(ttl), max_entries_(max_entries) {}

    /// A copy of the fresh response stored for `target`, or nullopt.
    std::optional<Response> lookup(std::string_view target, Clock::time_point now = Clock::now()) const;
    /// Stores `response` for `target` (only status 200 is worth caching; others are ignored).
    void store(std::string_view target, const Response& response, Clock::time_point now = Clock::now());
    std::size_t size() const;

  private:
    struct Entry {
        Response response;
        Clock::time_point expires;
    };

    std::chrono::nanoseconds ttl_;
    std::size_t max_entries_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace slipstream::python
