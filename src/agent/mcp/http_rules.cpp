// accepts(), origin_allowed(), host_allowed(), decode_mirrored_header(), new_session_id().
#include "agent/mcp/http_rules.h"

#include "agent/mcp/base64.h"

#include <openssl/rand.h>

#include <array>
#include <cstdlib>

namespace slipstream::mcp::detail {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
        const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] + 32) : b[i];
        if (x != y) return false;
    }
    return true;
}

// q=0 in a media range's parameters refuses it.
bool refused(std::string_view params) {
    while (!params.empty()) {
        const std::size_t semi = params.find(';');
        std::string_view p = trim(params.substr(0, semi));
        if (p.size() >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            const std::string value(p.substr(2));
            return std::strtod(value.c_str(), nullptr) <= 0.0;
        }
        if (semi == std::string_view::npos) break;
        params.remove_prefix(semi + 1);
    }
    return false;
}

// "scheme://host[:port]" -> (scheme://host, port or "").
std::pair<std::string_view, std::string_view> split_port(std::string_view origin) {
    const std::size_t scheme_end = origin.find("://");
    const std::size_t colon = origin.rfind(':');
    if (colon == std::string_view::npos || scheme_end == std::string_view::npos || colon <= scheme_end + 2 ||
        origin.find(']', colon) != std::string_view::npos)
        return {origin, {}};
    return {origin.substr(0, colon), origin.substr(colon + 1)};
}

}  // namespace

bool accepts(std::string_view accept, std::string_view type) {
    const std::size_t slash = type.find('/');
    const std::string_view major = type.substr(0, slash);
    while (!accept.empty()) {
        const std::size_t comma = accept.find(',');
        std::string_view range = accept.substr(0, comma);
        accept.remove_prefix(comma == std::string_view::npos ? accept.size() : comma + 1);
        const std::size_t semi = range.find(';');
        const std::string_view media = trim(range.substr(0, semi));
        const std::string_view params = semi == std::string_view::npos ? std::string_view() : range.substr(semi + 1);
        const bool match = iequals(media, type) || media == "*/*" ||
                           (media.size() == major.size() + 2 && iequals(media.substr(0, major.size()), major) &&
                            media.substr(major.size()) == "/*");
        if (match && !refused(params)) return true;
    }
    return false;
}

bool origin_allowed(std::optional<std::string_view> origin, std::optional<std::string_view> host,
                    const std::vector<std::string>& allowed) {
    if (!origin) return true;
    const std::string_view o = trim(*origin);
    const std::size_t scheme_end = o.find("://");
    if (host && scheme_end != std::string_view::npos && iequals(o.substr(scheme_end + 3), trim(*host))) return true;
    for (const std::string& a : allowed) {
        if (a == "*" || iequals(a, o)) return true;
        const auto [base, port] = split_port(a);
        if (port == "*" && iequals(split_port(o).first, base)) return true;
    }
    return false;
}

bool host_allowed(std::optional<std::string_view> host, std::string_view peer,
                  const std::vector<std::string>& allowed) {
    const bool loopback_peer =
        peer.starts_with("127.") || peer.starts_with("[::1]") || peer.starts_with("[::ffff:127.");
    if (!loopback_peer) return true;
    if (!host) return false;
    const std::string_view h = trim(*host);
    // The name without the port ("[::1]:8000" -> "[::1]", "localhost:8000" -> "localhost").
    std::string_view name = h;
    if (const std::size_t colon = h.rfind(':');
        colon != std::string_view::npos && h.find(']', colon) == std::string_view::npos)
        name = h.substr(0, colon);
    if (name.empty() || name.front() == '[') return !name.empty();  // an IPv6 literal
    // An IPv4 literal (digits and dots only) or a single label cannot be a rebinding attacker's domain.
    if (name.find('.') == std::string_view::npos || name.find_first_not_of("0123456789.") == std::string_view::npos)
        return true;
    for (const std::string& a : allowed)
        if (a == "*" || iequals(a, h) || iequals(a, name)) return true;
    return false;
}

std::optional<std::string> decode_mirrored_header(std::string_view value) {
    for (const char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if (!(u == '\t' || (u >= 0x20 && u <= 0x7e))) return std::nullopt;
    }
    constexpr std::string_view kPrefix = "=?base64?", kSuffix = "?=";
    if (value.size() < kPrefix.size() + kSuffix.size() || !value.starts_with(kPrefix) || !value.ends_with(kSuffix))
        return std::string(value);
    return decode_base64(value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size()));
}

std::string new_session_id() {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::array<unsigned char, 24> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return {};
    std::string id;
    id.reserve(32);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const unsigned v = (unsigned{bytes[i]} << 16) | (unsigned{bytes[i + 1]} << 8) | bytes[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6)
            id.push_back(kAlphabet[(v >> shift) & 63]);
    }
    return id;
}

}  // namespace slipstream::mcp::detail
