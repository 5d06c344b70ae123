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
};

/// The newest version we speak.
std::string_view latest_protocol_version();
bool is_supported_version(std::string_view version);
/// The client's version when we speak it, else our newest.
std::string_view negotiate_version(std::string_view requested);
Features features_of(std::string_view version);

/// "debug" ... "emergency" (RFC 5424 names, as logging/setLevel and notifications/message spell them).
std::string_view level_name(LogLevel level);
std::optional<LogLevel> parse_level(std::string_view name);

}  // namespace slipstream::mcp::detail
