// SharedStateSettings: state replicas share through --store: the rate limit's buckets and scoped API tokens.
#pragma once

#include <cstdint>
#include <string>

namespace slipstream::app {

/// Read like every other option (flags > SLIPSTREAM_* > config file > defaults); opened by open_shared_state().
struct SharedStateSettings {
    std::string rate_limit_store = "memory";          // or "store": the buckets in --store (PostgreSQL)
    std::uint32_t rate_limit_store_timeout_ms = 250;  // one batch's statement; then rate-limit-store-failure
    bool tokens = false;                              // --tokens: scoped API tokens in --store and /admin/tokens
    std::string admin_token;                          // the bootstrap admin credential (prefer SLIPSTREAM_ADMIN_TOKEN)
    std::uint32_t token_refresh_ms = 1'000;        // how often the token table is read again (other replicas' changes)
    std::uint64_t token_max = 10'000;              // live tokens
    std::uint64_t token_max_ttl_s = 366 * 86'400;  // the longest expiresIn
    std::uint64_t token_keep_revoked_s = 86'400;   // revoked and expired tokens stay listed this long
    std::string token_openapi_path = "/openapi/tokens.json";  // the token routes' OpenAPI document; "off": not served
};

}  // namespace slipstream::app
