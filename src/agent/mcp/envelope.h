// Envelope: the per-request `_meta` of protocol 2026-07-28 (its version, the client's capabilities and log level) and
// what an answer under it carries (`resultType`, the server's identity, caching hints).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "agent/mcp/jsonrpc.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

inline constexpr std::string_view kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kCapabilitiesMetaKey = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kLogLevelMetaKey = "io.modelcontextprotocol/logLevel";

struct Envelope {
    std::string version;
    std::string client_capabilities = "{}";  // compact JSON
    std::optional<LogLevel> log_level;       // nullopt: no notifications/message for this request (the spec's MUST)
    /// `"_meta":{"io.modelcontextprotocol/serverInfo":{...}}`, the member each result carries (the spec's SHOULD).
    std::string server_info_member;
};

struct EnvelopeRead {
    enum Status : unsigned char {
        kLegacy,       // no `io.modelcontextprotocol/protocolVersion` in params._meta: a handshake-era request
        kOk,           // `envelope` is set
        kUnsupported,  // a version we do not speak: -32022 with `requested`
        kInvalid,      // malformed (`error` says what): -32602
    };
    Status status = kLegacy;
    Envelope envelope;
    std::string requested;
    std::string error;
};

/// Reads the envelope of a request or notification. `server_info_member` is copied into the envelope.
EnvelopeRead read_envelope(const Message& message, std::string_view server_info_member);

/// The methods a 2026-07-28 client may call (server/discover, lists, calls, completion, subscriptions/listen); the
/// handshake-era ones it dropped (initialize, ping, logging/setLevel, resources/subscribe, ...) are not among them.
bool is_modern_method(std::string_view method);

/// The `data` of -32022: `{"supported":[every version we speak],"requested":...}`.
std::string unsupported_version_data(std::string_view requested);

/// `result_object` (a JSON object's text) with `"resultType":"complete"`, then `extra_members` (say the caching
/// hints, without surrounding commas), then `meta_member` (empty: none) inserted first.
std::string stamp_result(std::string_view result_object, std::string_view extra_members, std::string_view meta_member);

/// The caching hints of a cacheable result (`"ttlMs":N,"cacheScope":"public"`).
std::string cache_members(std::uint32_t ttl_ms, bool shared);

/// The `capabilities` object of server/discover and initialize for `version`.
std::string_view server_capabilities(std::string_view version);

}  // namespace slipstream::mcp::detail
