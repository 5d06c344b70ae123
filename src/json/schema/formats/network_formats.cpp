// email, hostname, ipv4 and ipv6 checkers (ASCII only: non-ASCII digits and letters are invalid).
#include <cstdint>

#include "json/schema/formats/formats.h"

namespace slipstream::json::schema::formats {
namespace {

bool fail(std::string* error, std::string_view reason) {
    if (error) *error = reason;
    return false;
}
bool digit(char c) {
    return c >= '0' && c <= '9';
}
bool alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool hex(char c) {
    return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// RFC 3492 punycode decoding of an A-label's tail (after "xn--"); false when malformed.
bool punycode_decode(std::string_view in, std::u32string* out) {
    constexpr std::uint32_t kBase = 36, kTmin = 1, kTmax = 26, kSkew = 38, kDamp = 700;
    out->clear();
    auto delim = in.rfind('-');
    if (delim != std::string_view::npos) {
        for (char c : in.substr(0, delim)) {
            if (static_cast<unsigned char>(c) >= 0x80) return false;
            out->push_back(static_cast<char32_t>(c));
        }
        in = in.substr(delim + 1);
    }
    std::uint32_t n = 128, i = 0, bias = 72;
    std::size_t pos = 0;
    while (pos < in.size()) {
        std::uint32_t old_i = i, w = 1;
        for (std::uint32_t k = kBase;; k += kBase) {
            if (pos >= in.size()) return false;
            char c = in[pos++];
            std::uint32_t d = digit(c)                 ? static_cast<std::uint32_t>(c - '0' + 26)
                              : (c >= 'a' && c <= 'z') ? static_cast<std::uint32_t>(c - 'a')
                              : (c >= 'A' && c <= 'Z') ? static_cast<std::uint32_t>(c - 'A')
                                                       : kBase;
            if (d >= kBase || d > (0xFFFFFFFFu - i) / w) return false;
            i += d * w;
            std::uint32_t t = k <= bias ? kTmin : k >= bias + kTmax ? kTmax : k - bias;
            if (d < t) break;
            if (w > 0xFFFFFFFFu / (kBase - t)) return false;
            w *= kBase - t;
        }
        std::uint32_t len = static_cast<std::uint32_t>(out->size()) + 1;
        std::uint32_t delta = old_i == 0 ? (i - old_i) / kDamp : (i - old_i) / 2;
        delta += delta / len;
        std::uint32_t k = 0;
        while (delta > ((kBase - kTmin) * kTmax) / 2) {
            delta /= kBase - kTmin;
            k += kBase;
        }
        bias = k + (kBase - kTmin + 1) * delta / (delta + kSkew);
        if (i / len > 0x10FFFF - n) return false;
        n += i / len;
        i %= len;
        if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return false;
        out->insert(out->begin() + i, static_cast<char32_t>(n));
        ++i;
    }
    return true;
}

bool check_label(std::string_view label, bool idn, std::string* error) {
    if (label.empty()) return fail(error, "empty label");
    if (label.size() > 63) return fail(error, "label longer than 63 characters");
    for (char c : label)
        if (!alpha(c) && !digit(c) && c != '-' && !(idn && static_cast<unsigned char>(c) >= 0x80))
            return fail(error, "invalid character in label");
    if (label.front() == '-' || label.back() == '-') return fail(error, "label starts or ends with a hyphen");
    if (label.size() >= 4 && label[2] == '-' && label[3] == '-') {
        bool xn = (label[0] | 0x20) == 'x' && (label[1] | 0x20) == 'n';
        if (!xn) return fail(error, "label has '--' in the 3rd and 4th positions");
        std::u32string decoded;
        if (!punycode_decode(label.substr(4), &decoded) || decoded.empty())
            return fail(error, "label is not valid punycode");
        if (decoded.size() >= 4 && decoded[2] == U'-' && decoded[3] == U'-')
            return fail(error, "label has '--' in the 3rd and 4th positions");
    }
    return true;
}

bool dotted_quad(std::string_view s) {
    int parts = 0;
    std::size_t pos = 0;
    while (true) {
        std::size_t start = pos;
        int value = 0;
        while (pos < s.size() && digit(s[pos]) && pos - start < 3)
            value = value * 10 + (s[pos++] - '0');
        std::size_t len = pos - start;
        if (len == 0 || value > 255 || (len > 1 && s[start] == '0')) return false;
        ++parts;
        if (pos == s.size()) return parts == 4;
        if (s[pos] != '.' || parts == 4) return false;
        ++pos;
    }
}

bool ipv6(std::string_view s) {
    if (s.empty()) return false;
    int groups = 0;
    bool compressed = false;
    std::size_t pos = 0;
    if (s.substr(0, 2) == "::") {
        compressed = true;
        pos = 2;
        if (pos == s.size()) return true;
    } else if (s[0] == ':') {
        return false;
    }
    while (pos < s.size()) {
        std::size_t start = pos;
        while (pos < s.size() && hex(s[pos]))
            ++pos;
        if (pos < s.size() && s[pos] == '.') {  // trailing IPv4 = two groups
            if (!dotted_quad(s.substr(start))) return false;
            groups += 2;
            pos = s.size();
            break;
        }
        std::size_t len = pos - start;
        if (len == 0 || len > 4) return false;
        ++groups;
        if (pos == s.size()) break;
        if (s[pos] != ':') return false;
        ++pos;
        if (pos < s.size() && s[pos] == ':') {
            if (compressed) return false;
            compressed = true;
            ++pos;
            if (pos == s.size()) break;
        } else if (pos == s.size()) {
            return false;  // trailing single ':'
        }
    }
    return compressed ? groups <= 7 : groups == 8;
}

bool atext(char c, bool idn) {
    return (idn && static_cast<unsigned char>(c) >= 0x80) || alpha(c) || digit(c) ||
           std::string_view("!#$%&'*+-/=?^_`{|}~").find(c) != std::string_view::npos;
}

bool hostname(std::string_view s, bool idn, std::string* error) {
    if (s.empty()) return fail(error, "empty hostname");
    if (s.size() > 253) return fail(error, "hostname longer than 253 characters");
    std::size_t start = 0;
    while (true) {
        auto dot = s.find('.', start);
        std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (!check_label(label, idn, error)) return false;
        if (dot == std::string_view::npos) return true;
        start = dot + 1;
    }
}

bool email(std::string_view s, bool idn, std::string* error) {
    auto at = s.rfind('@');
    if (at == std::string_view::npos || at == 0 || at + 1 == s.size())
        return fail(error, "An email address must have an @-sign.");
    std::string_view local = s.substr(0, at), domain = s.substr(at + 1);
    if (local.front() == '"') {
        if (local.size() < 2 || local.back() != '"') return fail(error, "The quoted local part is not closed.");
        for (std::size_t i = 1; i + 1 < local.size(); ++i) {
            char c = local[i];
            if (c == '\\') {
                ++i;
                continue;
            }
            if (c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f ||
                (!idn && static_cast<unsigned char>(c) >= 0x80))
                return fail(error, "The quoted local part contains an invalid character.");
        }
    } else {
        if (local.front() == '.' || local.back() == '.')
            return fail(error, "The email address cannot start or end with a period.");
        if (local.find("..") != std::string_view::npos)
            return fail(error, "The email address cannot have two periods in a row.");
        for (char c : local)
            if (c != '.' && !atext(c, idn))
                return fail(error, "The part before the @-sign contains an invalid character.");
    }
    if (domain.front() == '[') {
        if (domain.back() != ']') return fail(error, "The domain literal is not closed.");
        std::string_view literal = domain.substr(1, domain.size() - 2);
        if (literal.substr(0, 5) == "IPv6:") {
            if (!ipv6(literal.substr(5))) return fail(error, "The domain literal is not a valid IPv6 address.");
        } else if (!dotted_quad(literal)) {
            return fail(error, "The domain literal is not a valid IPv4 address.");
        }
        return true;
    }
    std::string reason;
    if (!hostname(domain, idn, &reason)) return fail(error, "The domain name is not valid: " + reason + ".");
    return true;
}

}  // namespace

bool check_hostname(std::string_view s, std::string* error) {
    return hostname(s, false, error);
}
bool check_email(std::string_view s, std::string* error) {
    return email(s, false, error);
}
bool check_idn_email(std::string_view s, std::string* error) {
    return email(s, true, error);
}

bool check_ipv4(std::string_view s, std::string* error) {
    return dotted_quad(s) || fail(error, "not a dotted-quad IPv4 address");
}

bool check_ipv6(std::string_view s, std::string* error) {
    return ipv6(s) || fail(error, "not an IPv6 address");
}

}  // namespace slipstream::json::schema::formats
