// The cors_* options as checked lists.
#include "policy/cors/cors_config.h"

#include <stdexcept>
#include <string_view>

#include "base/ows.h"
#include "http/h1/header.h"

namespace slipstream::policy::cors {
namespace {

using base::trim_ows;

std::vector<std::string> split(std::string_view list) {
    std::vector<std::string> items;
    while (true) {
        std::size_t cut = list.find(',');
        std::string_view item = trim_ows(list.substr(0, cut));
        if (!item.empty()) items.emplace_back(item);
        if (cut == std::string_view::npos) break;
        list.remove_prefix(cut + 1);
    }
    return items;
}

[[noreturn]] void fail(std::string_view option, const std::string& why) {
    throw std::invalid_argument(std::string(option) + ": " + why);
}

// Methods and header names are tokens (RFC 9110 §5.1): anything else could never match a request.
std::vector<std::string> tokens(std::string_view option, std::string_view list, std::string_view what) {
    std::vector<std::string> items = split(list);
    for (const std::string& item : items) {
        if (!http::h1::is_valid_field_name(item))
            fail(option, "'" + item + "' is not " + std::string(what) + " (an HTTP token)");
    }
    return items;
}

bool plausible_origin(std::string_view origin) {
    for (char ch : origin) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c == 0x7f) return false;
    }
    return true;
}

}  // namespace

bool cors_enabled(const ServerOptions& o) {
    return !o.cors_allow_origins.empty() || !o.cors_allow_origin_regex.empty();
}

CorsConfig parse_cors_config(const ServerOptions& o) {
    CorsConfig c;
    c.allow_origins = split(o.cors_allow_origins);
    if (c.allow_origins.empty() && !o.cors_allow_origins.empty())
        fail("cors_allow_origins", "'" + o.cors_allow_origins + "' names no origin");
    for (const std::string& origin : c.allow_origins) {
        if (!plausible_origin(origin))
            fail("cors_allow_origins", "'" + origin + "' is not an origin (it holds whitespace or control characters)");
    }
    c.allow_origin_regex = o.cors_allow_origin_regex;
    c.allow_methods = tokens("cors_allow_methods", o.cors_allow_methods, "a method");
    for (const std::string& m : c.allow_methods) {
        if (m == "*") {
            c.allow_methods.assign(std::begin(kAllMethods), std::end(kAllMethods));
            break;
        }
    }
    c.allow_headers = tokens("cors_allow_headers", o.cors_allow_headers, "a header name");
    c.expose_headers = tokens("cors_expose_headers", o.cors_expose_headers, "a header name");
    c.allow_credentials = o.cors_allow_credentials;
    c.allow_private_network = o.cors_allow_private_network;
    c.max_age = o.cors_max_age;
    return c;
}

}  // namespace slipstream::policy::cors
