// Protocol versions and their features (see each version's specification: basic/lifecycle, server/tools).
#include "agent/mcp/protocol.h"

#include <iterator>
#include <vector>

#include "slipstream/mcp.h"

namespace slipstream::mcp {

const std::vector<std::string>& supported_protocol_versions() {
    static const std::vector<std::string> versions = {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26",
                                                      "2024-11-05"};
    return versions;
}

namespace detail {

std::string_view latest_protocol_version() {
    return supported_protocol_versions().front();
}

bool is_supported_version(std::string_view version) {
    for (const std::string& v : supported_protocol_versions())
        if (v == version) return true;
    return false;
}

bool is_modern_version(std::string_view version) {
    return version >= kModernVersion && is_supported_version(version);
}

std::string_view negotiate_version(std::string_view requested) {
    std::string_view newest_handshake;
    for (const std::string& v : supported_protocol_versions()) {
        if (v >= kModernVersion) continue;
        if (v == requested) return v;
        if (newest_handshake.empty()) newest_handshake = v;
    }
    return newest_handshake;
}

Features features_of(std::string_view version) {
    // The dates are ISO 8601, so text order is time order.
    Features f;
    f.batches = version == "2025-03-26";
    f.annotations = version >= "2025-03-26";
    f.titles = version >= "2025-06-18";
    f.protocol_header = version >= "2025-06-18";
    f.priming_event = version >= "2025-11-25" && version < kModernVersion;
    f.stateless_requests = version >= kModernVersion;
    return f;
}

namespace {
constexpr std::string_view kLevelNames[] = {"debug", "info",     "notice", "warning",
                                            "error", "critical", "alert",  "emergency"};
}  // namespace

std::string_view level_name(LogLevel level) {
    return kLevelNames[static_cast<std::size_t>(level)];
}

std::optional<LogLevel> parse_level(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kLevelNames); ++i)
        if (kLevelNames[i] == name) return static_cast<LogLevel>(i);
    return std::nullopt;
}

}  // namespace detail
}  // namespace slipstream::mcp
