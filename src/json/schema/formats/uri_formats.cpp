// RFC 3986 uri / uri-reference, RFC 6901 json-pointer and relative-json-pointer checkers.
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
bool unreserved(char c) {
    return alpha(c) || digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
bool sub_delim(char c) {
    return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos;
}

// Every byte is unreserved, a sub-delim, in `extra`, a %XX escape, or (IRIs) part of a non-ASCII
// UTF-8 sequence.
bool chars_ok(std::string_view s, std::string_view extra, bool iri) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size() || !hex(s[i + 1]) || !hex(s[i + 2])) return false;
            i += 2;
            continue;
        }
        if (iri && static_cast<unsigned char>(c) >= 0x80) continue;
        if (!unreserved(c) && !sub_delim(c) && extra.find(c) == std::string_view::npos) return false;
    }
    return true;
}

bool ip_literal(std::string_view host) {
    // "[" ( IPv6address / IPvFuture ) "]": checked loosely for hex, ':' and '.'.
    if (host.size() < 2 || host.front() != '[' || host.back() != ']') return false;
    std::string_view inner = host.substr(1, host.size() - 2);
    if (inner.empty()) return false;
    if (inner[0] == 'v' || inner[0] == 'V') {
        auto dot = inner.find('.');
        if (dot == std::string_view::npos || dot < 2 || dot + 1 == inner.size()) return false;
        for (char c : inner.substr(1, dot - 1))
            if (!hex(c)) return false;
        return chars_ok(inner.substr(dot + 1), ":", false);
    }
    return check_ipv6(inner, nullptr);
}

bool authority_ok(std::string_view a, bool iri) {
    auto at = a.rfind('@');
    if (at != std::string_view::npos) {
        if (!chars_ok(a.substr(0, at), ":", iri)) return false;
        a = a.substr(at + 1);
    }
    std::string_view host = a;
    if (!a.empty() && a[0] == '[') {
        auto close = a.find(']');
        if (close == std::string_view::npos) return false;
        host = a.substr(0, close + 1);
        a = a.substr(close + 1);
        if (!ip_literal(host)) return false;
    } else {
        auto colon = a.find(':');
        host = a.substr(0, colon);
        a = colon == std::string_view::npos ? std::string_view() : a.substr(colon);
        if (!chars_ok(host, "", iri)) return false;
    }
    if (!a.empty()) {
        if (a[0] != ':') return false;
        for (char c : a.substr(1))
            if (!digit(c)) return false;
    }
    return true;
}

// relative-part / hier-part followed by [ "?" query ] [ "#" fragment ].
bool rest_ok(std::string_view s, bool has_scheme, bool iri, std::string* error) {
    auto hash = s.find('#');
    if (hash != std::string_view::npos) {
        if (!chars_ok(s.substr(hash + 1), ":@/?", iri)) return fail(error, "invalid character in fragment");
        s = s.substr(0, hash);
    }
    auto q = s.find('?');
    if (q != std::string_view::npos) {
        if (!chars_ok(s.substr(q + 1), ":@/?", iri)) return fail(error, "invalid character in query");
        s = s.substr(0, q);
    }
    if (s.substr(0, 2) == "//") {
        s.remove_prefix(2);
        auto slash = s.find('/');
        if (!authority_ok(s.substr(0, slash), iri)) return fail(error, "invalid authority");
        s = slash == std::string_view::npos ? std::string_view() : s.substr(slash);
    } else if (!has_scheme) {
        // A relative path's first segment must not contain ':' (it would read as a scheme).
        auto slash = s.find('/');
        if (s.substr(0, slash).find(':') != std::string_view::npos) return fail(error, "invalid character in path");
    }
    if (!chars_ok(s, ":@/", iri)) return fail(error, "invalid character in path");
    return true;
}

// Length of a valid scheme followed by ':' at the start of `s`, or 0.
std::size_t scheme_length(std::string_view s) {
    if (s.empty() || !alpha(s[0])) return 0;
    std::size_t i = 1;
    while (i < s.size() && (alpha(s[i]) || digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
        ++i;
    return i < s.size() && s[i] == ':' ? i : 0;
}

bool absolute(std::string_view s, bool iri, std::string* error) {
    std::size_t n = scheme_length(s);
    if (n == 0) return fail(error, "relative URL without a base");
    return rest_ok(s.substr(n + 1), true, iri, error);
}

bool reference(std::string_view s, bool iri, std::string* error) {
    std::size_t n = scheme_length(s);
    if (n != 0) return rest_ok(s.substr(n + 1), true, iri, error);
    return rest_ok(s, false, iri, error);
}

bool varchar(std::string_view s, std::size_t* i) {
    char c = s[*i];
    if (alpha(c) || digit(c) || c == '_') return ++*i, true;
    if (c == '%' && *i + 2 < s.size() && hex(s[*i + 1]) && hex(s[*i + 2])) return *i += 3, true;
    return false;
}

// RFC 6570: varspec = varname [ ":" max-length | "*" ]; varname = varchar *( ["."] varchar ).
bool varspec(std::string_view s, std::size_t* i) {
    if (*i >= s.size() || !varchar(s, i)) return false;
    while (*i < s.size()) {
        if (s[*i] == '.') {
            ++*i;
            if (*i >= s.size() || !varchar(s, i)) return false;
        } else if (!varchar(s, i)) {
            break;
        }
    }
    if (*i < s.size() && s[*i] == '*') {
        ++*i;
    } else if (*i < s.size() && s[*i] == ':') {
        std::size_t start = ++*i;
        while (*i < s.size() && digit(s[*i]))
            ++*i;
        std::size_t len = *i - start;
        if (len == 0 || len > 4 || s[start] == '0') return false;
    }
    return true;
}

}  // namespace

bool check_uri(std::string_view s, std::string* error) {
    return absolute(s, false, error);
}
bool check_uri_reference(std::string_view s, std::string* error) {
    return reference(s, false, error);
}
bool check_iri(std::string_view s, std::string* error) {
    return absolute(s, true, error);
}
bool check_iri_reference(std::string_view s, std::string* error) {
    return reference(s, true, error);
}

bool check_uri_template(std::string_view s, std::string* error) {
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '{') {
            ++i;
            if (i < s.size() && std::string_view("+#./;?&=,!@|").find(s[i]) != std::string_view::npos) ++i;
            for (;;) {
                if (!varspec(s, &i)) return fail(error, "invalid variable in expression");
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                break;
            }
            if (i >= s.size() || s[i] != '}') return fail(error, "unterminated expression");
            ++i;
            continue;
        }
        if (c == '%') {
            if (i + 2 >= s.size() || !hex(s[i + 1]) || !hex(s[i + 2])) return fail(error, "invalid percent-encoding");
            i += 3;
            continue;
        }
        if (c <= 0x20 || c == 0x7f ||
            std::string_view("\"<>\\^`|}").find(static_cast<char>(c)) != std::string_view::npos)
            return fail(error, "invalid character in literal");
        ++i;
    }
    return true;
}

bool check_json_pointer(std::string_view s, std::string* error) {
    if (s.empty()) return true;
    if (s[0] != '/') return fail(error, "must be empty or start with '/'");
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1')))
            return fail(error, "'~' must be followed by '0' or '1'");
    return true;
}

bool check_relative_json_pointer(std::string_view s, std::string* error) {
    std::size_t i = 0;
    while (i < s.size() && digit(s[i]))
        ++i;
    if (i == 0) return fail(error, "must start with a non-negative integer");
    if (i > 1 && s[0] == '0') return fail(error, "the integer must not have leading zeros");
    std::string_view rest = s.substr(i);
    if (rest == "#") return true;
    return check_json_pointer(rest, error);
}

}  // namespace slipstream::json::schema::formats
