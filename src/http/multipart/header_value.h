// HeaderValue: a parameterized header value ("form-data; name=\"a\"", "multipart/form-data; boundary=x") parsed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace slipstream::http::multipart {

/// The main token (lowercased, trimmed) and the parameters in order. Parameter names are lowercased; values
/// are unquoted, where only a backslash before a backslash or a quote escapes (as Python's email.utils.unquote).
/// An RFC 2231/5987 extended parameter (`filename*=utf-8''%e2%82%ac`) is percent-decoded and stored under its
/// plain name (`filename`), winning over a plain one. A repeated parameter: the last wins. Lenient like Python's
/// email parser: a parameter without '=' is skipped, an unterminated quote runs to the end. Never fails.
struct HeaderValue {
    std::string token;
    std::vector<std::pair<std::string, std::string>> params;

    /// The value of parameter `name` (lowercase), or nullptr.
    const std::string* find(std::string_view name) const;
};

HeaderValue parse_header_value(std::string_view text);

}  // namespace slipstream::http::multipart
