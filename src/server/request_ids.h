// Request ids (accepted from X-Request-ID or generated) and W3C traceparent parsing.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::server {

/// True when a client-sent X-Request-ID may be used as is: 1..128 chars of [A-Za-z0-9._:-].
bool valid_request_id(std::string_view id);

/// Generates 32 lowercase hex ids: a random per-thread prefix and a counter. Not thread-safe: one per thread.
class RequestIdGenerator {
  public:
    RequestIdGenerator();
    /// Writes the next id into `out` (32 chars) and returns a view of it.
    std::string_view next(char (&out)[32]);

  private:
    std::uint64_t prefix_;
    std::uint64_t counter_ = 0;
};

/// The trace id of a valid W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>", not all-zero ids),
/// or an empty view.
std::string_view parse_traceparent(std::string_view value);

}  // namespace slipstream::server
