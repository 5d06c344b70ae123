// Url: an absolute http:// or https:// URL split into what a request needs (origin, target).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::store::http {

/// scheme://host[:port][/path][?query]. No user information (refused: credentials go in headers), no fragment
/// (dropped, as clients do). Host: a DNS name (letters, digits, '-', '.', '_'), an IPv4 literal or a bracketed
/// IPv6 literal; kept lower-cased.
struct Url {
    bool tls = false;  // https
    std::string host;  // without brackets ("::1", "api.example.com")
    std::uint16_t port = 0;
    std::string target;  // origin-form: "/path?query", "/" when the URL has no path

    /// "https://host:port": the pool key of the connection pool (one set of connections per origin).
    std::string origin() const;
    /// The Host field: host, bracketed when IPv6, with ":port" unless it is the scheme's default.
    std::string authority() const;
};

/// Parses an absolute URL. kInvalidArgument naming the problem: another scheme, no host, a bad port, user
/// information, whitespace or control bytes, or a character not allowed in a request target.
base::Result<Url> parse_url(std::string_view text);

/// `base` (an absolute URL, possibly with a path prefix such as "https://host/openai") joined with `path`
/// ("/v1/chat/completions"): one slash between them, whatever their ends.
std::string join_url(std::string_view base, std::string_view path);

}  // namespace slipstream::store::http
