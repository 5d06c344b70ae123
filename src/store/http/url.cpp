// parse_url: scheme, authority (host, port) and target of an absolute http(s) URL, strictly.
#include "store/http/url.h"

#include <arpa/inet.h>

namespace slipstream::store::http {
namespace {

bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// RFC 3986 pchar / query characters (percent-encoded triplets checked separately).
bool is_target_char(char c) {
    if (is_alnum(c)) return true;
    switch (c) {
        case '-':
        case '.':
        case '_':
        case '~':
        case '!':
        case '$':
        case '&':
        case '\'':
        case '(':
        case ')':
        case '*':
        case '+':
        case ',':
        case ';':
        case '=':
        case ':':
        case '@':
        case '/':
        case '?':
        case '%':
            return true;
        default:
            return false;
    }
}

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

std::string Url::origin() const {
    std::string out = tls ? "https://" : "http://";
    out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
    out += ":" + std::to_string(port);
    return out;
}

std::string Url::authority() const {
    std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    if (port != (tls ? 443 : 80)) out += ":" + std::to_string(port);
    return out;
}

base::Result<Url> parse_url(std::string_view text) {
    Url url;
    std::string_view rest;
    if (text.substr(0, 8) == "https://") {
        url.tls = true;
        rest = text.substr(8);
    } else if (text.substr(0, 7) == "http://") {
        rest = text.substr(7);
    } else {
        return base::Status::invalid_argument("url: '" + std::string(text) + "' is not an http:// or https:// URL");
    }
    for (char c : rest) {
        if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
            return base::Status::invalid_argument("url: whitespace, control or non-ASCII byte in '" +
                                                  std::string(text) + "' (percent-encode it)");
    }
    if (std::size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
    std::size_t slash = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, slash);
    std::string_view target = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    if (authority.find('@') != std::string_view::npos)
        return base::Status::invalid_argument("url: user information is not allowed (send credentials as headers)");
    std::string_view host;
    std::string_view port;
    if (!authority.empty() && authority[0] == '[') {
        std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return base::Status::invalid_argument("url: unclosed '[' in host");
        host = authority.substr(1, close - 1);
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') return base::Status::invalid_argument("url: junk after the IPv6 address");
            port = after.substr(1);
            if (port.empty()) return base::Status::invalid_argument("url: empty port");
        }
        unsigned char buf[16];
        if (inet_pton(AF_INET6, std::string(host).c_str(), buf) != 1)
            return base::Status::invalid_argument("url: bad IPv6 address '" + std::string(host) + "'");
    } else {
        std::size_t colon = authority.rfind(':');
        host = authority.substr(0, colon);
        if (colon != std::string_view::npos) {
            port = authority.substr(colon + 1);
            if (port.empty()) return base::Status::invalid_argument("url: empty port");
        }
        for (char c : host) {
            if (!is_alnum(c) && c != '-' && c != '.' && c != '_')
                return base::Status::invalid_argument("url: bad character in host '" + std::string(host) + "'");
        }
    }
    if (host.empty()) return base::Status::invalid_argument("url: no host in '" + std::string(text) + "'");
    url.host.reserve(host.size());
    for (char c : host)
        url.host.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    url.port = url.tls ? 443 : 80;
    if (!port.empty()) {
        unsigned v = 0;
        if (port.size() > 5) return base::Status::invalid_argument("url: bad port '" + std::string(port) + "'");
        for (char c : port) {
            if (c < '0' || c > '9') return base::Status::invalid_argument("url: bad port '" + std::string(port) + "'");
            v = v * 10 + static_cast<unsigned>(c - '0');
        }
        if (v == 0 || v > 65535)
            return base::Status::invalid_argument("url: port out of range '" + std::string(port) + "'");
        url.port = static_cast<std::uint16_t>(v);
    }
    for (std::size_t i = 0; i < target.size(); ++i) {
        char c = target[i];
        if (!is_target_char(c))
            return base::Status::invalid_argument(std::string("url: character '") + c + "' must be percent-encoded");
        if (c == '%' && (i + 2 >= target.size() || !is_hex(target[i + 1]) || !is_hex(target[i + 2])))
            return base::Status::invalid_argument("url: '%' not followed by two hex digits");
    }
    url.target = target.empty() ? "/" : target[0] == '?' ? "/" + std::string(target) : std::string(target);
    return url;
}

std::string join_url(std::string_view base, std::string_view path) {
    std::string out(base);
    while (!out.empty() && out.back() == '/')
        out.pop_back();
    while (!path.empty() && path.front() == '/')
        path.remove_prefix(1);
    out += '/';
    out += path;
    return out;
}

}  // namespace slipstream::store::http
