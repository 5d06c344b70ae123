// decode_settings_header: base64url to bytes, with the checks RFC 7540 §3.2.1 asks of an HTTP2-Settings value.
#include "http/h2/settings_header.h"

#include <cstddef>
#include <cstdint>

namespace slipstream::http::h2 {
namespace {

int sextet(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

std::string_view trim(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
        v.remove_suffix(1);
    return v;
}

}  // namespace

base::Result<std::string> decode_settings_header(std::string_view value) {
    value = trim(value);
    while (!value.empty() && value.back() == '=')
        value.remove_suffix(1);
    if (value.size() % 4 == 1) return base::Status::invalid_argument("HTTP2-Settings: bad base64url length");
    std::string out;
    out.reserve(value.size() * 3 / 4);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : value) {
        int v = sextet(c);
        if (v < 0) return base::Status::invalid_argument("HTTP2-Settings: not base64url");
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    if (out.size() % 6 != 0) return base::Status::invalid_argument("HTTP2-Settings: not a list of settings");
    // Values RFC 9113 §6.5.2 forbids (a connection error in a SETTINGS frame): refused before any upgrade.
    for (std::size_t i = 0; i < out.size(); i += 6) {
        auto byte = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(out[i + k])); };
        std::uint32_t id = byte(0) << 8 | byte(1);
        std::uint32_t v = byte(2) << 24 | byte(3) << 16 | byte(4) << 8 | byte(5);
        bool bad =
            (id == 0x2 && v > 1) || (id == 0x4 && v > 0x7FFFFFFFu) || (id == 0x5 && (v < 16384 || v > 0xFFFFFFu));
        if (bad) return base::Status::invalid_argument("HTTP2-Settings: a setting out of its range");
    }
    return out;
}

}  // namespace slipstream::http::h2
