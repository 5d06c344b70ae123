// Request id validation and generation; traceparent parsing.
#include "server/observe/request_ids.h"

#include <cstring>
#include <random>

namespace slipstream::server {
namespace {

bool is_lower_hex(std::string_view s) {
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

bool all_zero(std::string_view s) {
    return s.find_first_not_of('0') == std::string_view::npos;
}

void put_hex(char* out, std::uint64_t v) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
        out[i] = kHex[v & 0xF];
        v >>= 4;
    }
}

std::uint64_t random_prefix() {
    std::random_device rd;
    return (std::uint64_t{rd()} << 32) ^ rd();
}

}  // namespace

bool valid_request_id(std::string_view id) {
    if (id.empty() || id.size() > 128) return false;
    for (char c : id) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == ':' || c == '-';
        if (!ok) return false;
    }
    return true;
}

RequestIdGenerator::RequestIdGenerator() : RequestIdGenerator(random_prefix()) {}

RequestIdGenerator::RequestIdGenerator(std::uint64_t prefix) {
    put_hex(text_, prefix);
    put_hex(text_ + 16, 0);
}

std::string_view RequestIdGenerator::next(char (&out)[32]) {
    // Hex increment of the counter's text, from its last digit (wraps to all zeros after 2^64 - 1).
    for (int i = 31; i >= 16; --i) {
        char& c = text_[i];
        if (c == 'f') {
            c = '0';
            continue;
        }
        c = c == '9' ? 'a' : static_cast<char>(c + 1);
        break;
    }
    std::memcpy(out, text_, sizeof text_);
    return {out, 32};
}

std::string_view parse_traceparent(std::string_view v) {
    // version(2) - trace-id(32) - parent-id(16) - flags(2)
    if (v.size() < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-') return {};
    if (v.size() > 55 && v[55] != '-') return {};
    std::string_view version = v.substr(0, 2), trace = v.substr(3, 32), parent = v.substr(36, 16),
                     flags = v.substr(53, 2);
    if (!is_lower_hex(version) || version == "ff" || !is_lower_hex(trace) || !is_lower_hex(parent) ||
        !is_lower_hex(flags))
        return {};
    if (version == "00" && v.size() != 55) return {};
    if (all_zero(trace) || all_zero(parent)) return {};
    return trace;
}

}  // namespace slipstream::server
