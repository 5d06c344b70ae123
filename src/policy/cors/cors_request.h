// CorsRequest: the request fields CORS reads, found in one pass over the header fields.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "http/h1/header.h"

namespace slipstream::policy::cors {

/// Views into the request's fields (the first field of each name; names in any case). Absent and empty
/// differ: a field sent with an empty value counts as sent.
struct CorsRequest {
    std::optional<std::string_view> origin;
    std::optional<std::string_view> request_method;   // Access-Control-Request-Method
    std::optional<std::string_view> request_headers;  // Access-Control-Request-Headers
    bool request_private_network = false;             // Access-Control-Request-Private-Network sent

    static CorsRequest scan(std::span<const http::h1::Header> headers);

    /// A preflight: OPTIONS with Origin and Access-Control-Request-Method. Any other request, OPTIONS
    /// included, is an actual request.
    bool is_preflight(std::string_view method) const {
        return origin.has_value() && request_method.has_value() && method == "OPTIONS";
    }
};

}  // namespace slipstream::policy::cors
