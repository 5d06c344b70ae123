// RequestChecks: RFC 9113 §8 request validation with one byte-class table and per-stream flags.
#include "http/h2/request_checks.h"

#include <array>
#include <cstring>

namespace slipstream::http::h2::detail {
namespace {

constexpr std::uint8_t kNameChar = 1 << 0;    // lowercase token: a-z 0-9 !#$%&'*+-.^_`|~
constexpr std::uint8_t kTokenChar = 1 << 1;   // token (RFC 9110 §5.6.2): a method
constexpr std::uint8_t kValueChar = 1 << 2;   // field-value byte: VCHAR obs-text SP HTAB (RFC 9110 §5.5)
constexpr std::uint8_t kSchemeChar = 1 << 3;  // ALPHA DIGIT + - . (RFC 3986 §3.1)
constexpr std::uint8_t kHostChar = 1 << 4;    // authority: unreserved sub-delims % : @ [ ] (RFC 3986 §3.2)

constexpr bool in(std::string_view set, unsigned c) {
    return set.find(static_cast<char>(c)) != std::string_view::npos;
}

constexpr std::array<std::uint8_t, 256> make_classes() {
    std::array<std::uint8_t, 256> t{};
    for (unsigned c = 0; c < 256; ++c) {
        const bool lower = c >= 'a' && c <= 'z';
        const bool alpha = lower || (c >= 'A' && c <= 'Z');
        const bool digit = c >= '0' && c <= '9';
        const bool token_punct = in("!#$%&'*+-.^_`|~", c);
        std::uint8_t bits = 0;
        if (lower || digit || token_punct) bits |= kNameChar;
        if (alpha || digit || token_punct) bits |= kTokenChar;
        if ((c >= 0x20 && c != 0x7f) || c == '\t') bits |= kValueChar;
        if (alpha || digit || in("+-.", c)) bits |= kSchemeChar;
        if (alpha || digit || in("-._~!$&'()*+,;=%:@[]", c)) bits |= kHostChar;
        t[c] = bits;
    }
    return t;
}

constexpr std::array<std::uint8_t, 256> kClasses = make_classes();

// Every byte of `s` is in `cls` (one class bit): the bytes' classes are ANDed, with no branch per byte.
bool all_of(std::string_view s, std::uint8_t cls) {
    std::uint8_t common = 0xff;
    for (char c : s)
        common &= kClasses[static_cast<unsigned char>(c)];
    return (common & cls) != 0;
}

// True when no byte of `s` is below `below` (at most 0x80) or DEL (0x7f); bytes 0x80-0xff pass. Eight bytes
// at a time (the last eight overlapping), exact: a borrow spreads only upward from a byte that is below.
bool no_control_bytes(std::string_view s, std::uint8_t below) {
    if (s.size() < 8) {
        for (char ch : s) {
            auto c = static_cast<unsigned char>(ch);
            if (c < below || c == 0x7f) return false;
        }
        return true;
    }
    constexpr std::uint64_t kOnes = 0x0101010101010101u;
    constexpr std::uint64_t kHigh = 0x8080808080808080u;
    const std::uint64_t low = kOnes * below;
    auto clean = [&](std::size_t at) {
        std::uint64_t x;
        std::memcpy(&x, s.data() + at, 8);
        std::uint64_t del = x ^ (kOnes * 0x7f);
        return ((((x - low) & ~x) | ((del - kOnes) & ~del)) & kHigh) == 0;
    };
    for (std::size_t i = 0; i + 8 < s.size(); i += 8)
        if (!clean(i)) return false;
    return clean(s.size() - 8);
}

// A field value (RFC 9110 §5.5, RFC 9113 §8.2.1): VCHAR, obs-text, and SP/HTAB inside, not at either end.
bool valid_value(std::string_view v) {
    if (v.empty()) return true;
    auto blank = [](char c) { return c == ' ' || c == '\t'; };
    if (blank(v.front()) || blank(v.back())) return false;
    return no_control_bytes(v, 0x20) || all_of(v, kValueChar);  // a HTAB inside needs the byte-wise check
}

bool iequals(std::string_view s, std::string_view lower) {
    if (s.size() != lower.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] + 32) : s[i];
        if (c != lower[i]) return false;
    }
    return true;
}

// Flags: bits 0-4 one per Pseudo seen, then what the other rules need.
constexpr std::uint32_t kSeenRegular = 1u << 5;  // a regular field came: no pseudo-field after it
constexpr std::uint32_t kSeenHost = 1u << 6;
constexpr std::uint32_t kConnect = 1u << 7;  // :method CONNECT
constexpr std::uint32_t kOptions = 1u << 8;  // :method OPTIONS
constexpr std::uint32_t kHttpScheme = 1u << 9;
constexpr std::uint32_t kPathAsterisk = 1u << 10;
constexpr std::uint32_t kPathOrigin = 1u << 11;  // :path starts with '/'

constexpr std::uint32_t bit(Pseudo p) {
    return 1u << static_cast<unsigned>(p);
}

Pseudo pseudo_of(std::string_view name) {
    switch (name.size()) {  // one comparison per name
        case 5:
            return name == ":path" ? Pseudo::kPath : Pseudo::kRegular;
        case 7:
            return name == ":method" ? Pseudo::kMethod : name == ":scheme" ? Pseudo::kScheme : Pseudo::kRegular;
        case 9:
            return name == ":protocol" ? Pseudo::kProtocol : Pseudo::kRegular;
        case 10:
            return name == ":authority" ? Pseudo::kAuthority : Pseudo::kRegular;
        default:
            return Pseudo::kRegular;
    }
}

// A content-length value: digits only, at most 18 of them (no overflow). -1 otherwise.
std::int64_t parse_length(std::string_view v) {
    if (v.empty() || v.size() > 18) return -1;
    std::int64_t n = 0;
    for (char c : v) {
        if (c < '0' || c > '9') return -1;
        n = n * 10 + (c - '0');
    }
    return n;
}

}  // namespace

bool RequestChecks::field(std::string_view name, std::string_view value, Pseudo* which) {
    *which = Pseudo::kRegular;
    if (name.empty() || name[0] != ':') return regular_field(name, value);
    Pseudo p = pseudo_of(name);
    if (p == Pseudo::kRegular || has(kSeenRegular) || has(bit(p))) return false;
    switch (p) {
        case Pseudo::kMethod:
            if (value.empty() || !all_of(value, kTokenChar)) return false;
            if (value == "CONNECT") flags_ |= kConnect;
            if (value == "OPTIONS") flags_ |= kOptions;
            break;
        case Pseudo::kScheme: {
            const bool letter = !value.empty() && ((value[0] | 0x20) >= 'a' && (value[0] | 0x20) <= 'z');
            if (!letter || !all_of(value, kSchemeChar)) return false;
            if (iequals(value, "http") || iequals(value, "https")) flags_ |= kHttpScheme;
            break;
        }
        case Pseudo::kAuthority:
            if (!all_of(value, kHostChar)) return false;
            break;
        case Pseudo::kPath:
            if (value.empty() || !no_control_bytes(value, 0x21)) return false;
            if (value == "*") flags_ |= kPathAsterisk;
            if (value[0] == '/') flags_ |= kPathOrigin;
            break;
        case Pseudo::kProtocol:
            if (value.empty() || !all_of(value, kTokenChar)) return false;
            break;
        case Pseudo::kRegular:
            break;
    }
    flags_ |= bit(p);
    *which = p;
    return true;
}

bool RequestChecks::regular_field(std::string_view name, std::string_view value) {
    if (name.empty() || !all_of(name, kNameChar) || !valid_value(value)) return false;
    flags_ |= kSeenRegular;
    switch (name.size()) {
        case 2:
            return name != "te" || iequals(value, "trailers");
        case 4:
            if (name != "host") return true;
            if (has(kSeenHost) || !all_of(value, kHostChar)) return false;
            flags_ |= kSeenHost;
            return true;
        case 7:
            return name != "upgrade";
        case 10:
            return name != "connection" && name != "keep-alive";
        case 14:
            if (name != "content-length") return true;
            if (content_length_ >= 0) return false;
            content_length_ = parse_length(value);
            return content_length_ >= 0;
        case 16:
            return name != "proxy-connection";
        case 17:
            return name != "transfer-encoding";
        default:
            return true;
    }
}

bool RequestChecks::trailer_field(std::string_view name, std::string_view value) {
    if (!name.empty() && name[0] == ':') return false;
    // Framing fields mean nothing in a trailer section (RFC 9110 §6.5.1): its content-length is not checked.
    std::int64_t declared = content_length_;
    content_length_ = -1;
    bool ok = regular_field(name, value);
    content_length_ = declared;
    return ok;
}

bool RequestChecks::head_complete() {
    constexpr std::uint32_t kAll = bit(Pseudo::kMethod) | bit(Pseudo::kScheme) | bit(Pseudo::kPath);
    if (has(bit(Pseudo::kProtocol))) {
        // Extended CONNECT (RFC 8441 §4): CONNECT with :scheme, :path and :authority.
        return has(kConnect) && (flags_ & kAll) == kAll && has(bit(Pseudo::kAuthority));
    }
    if (has(kConnect)) {
        // CONNECT (§8.5): :authority, no :scheme or :path; its DATA is a tunnel's bytes, not a sized body.
        content_length_ = -1;
        return has(bit(Pseudo::kAuthority)) && !has(bit(Pseudo::kScheme)) && !has(bit(Pseudo::kPath));
    }
    if ((flags_ & kAll) != kAll || !(has(bit(Pseudo::kAuthority)) || has(kSeenHost))) return false;
    // An http(s) target is origin-form ("/...") or "*" for OPTIONS (§8.3.1).
    if (!has(kHttpScheme)) return true;
    return has(kPathOrigin) || (has(kPathAsterisk) && has(kOptions));
}

bool RequestChecks::data(std::size_t n) {
    received_ += n;
    return content_length_ < 0 || received_ <= static_cast<std::uint64_t>(content_length_);
}

bool RequestChecks::end() const {
    return content_length_ < 0 || received_ == static_cast<std::uint64_t>(content_length_);
}

}  // namespace slipstream::http::h2::detail
