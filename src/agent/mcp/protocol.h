// Protocol versions: which ones we speak, negotiation at initialize, and what each version's messages may carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

/// What differs between the versions we speak, for writing answers and reading requests.
struct Features {
    bool batches = false;          // JSON-RPC batches (2025-03-26 only)
    bool annotations = false;      // tool annotations, completions capability, progress `message` (2025-03-26+)
    bool titles = false;           // `title`, `outputSchema`, `structuredContent`, `_meta` (2025-06-18+)
    bool protocol_header = false;  // MCP-Protocol-Version on every HTTP request (2025-06-18+)
    bool priming_event = false;    // an empty SSE event with an id opens each stream (2025-11-25+)
    /// 2026-07-28+: no initialize, each request carries its version and capabilities in `_meta`; results carry
    /// `resultType` (and caching hints where cacheable); no sessions, GET streams or resumption; requests to the
    /// client become input_required results (MRTR); an unknown resource is -32602.
    bool stateless_requests = false;
};

/// The first version whose requests carry their own envelope (`_meta`) instead of an initialize handshake.
inline constexpr std::string_view kModernVersion = "2026-07-28";

/// The newest version we speak.
std::string_view latest_protocol_version();
bool is_supported_version(std::string_view version);
/// A version of the per-request era (2026-07-28 and later) that we speak.
bool is_modern_version(std::string_view version);
/// The client's version at initialize when it is a handshake version we speak, else our newest handshake version
/// (a version of the per-request era is never negotiated by initialize).
std::string_view negotiate_version(std::string_view requested);
Features features_of(std::string_view version);

/// "debug" ... "emergency" (RFC 5424 names, as logging/setLevel and notifications/message spell them).
std::string_view level_name(LogLevel level);
std::optional<LogLevel> parse_level(std::string_view name);

}  // namespace slipstream::mcp::detail
