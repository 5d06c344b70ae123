// Response: what a handler answers; plain data, built with small helpers.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace slipstream {

/// A complete response. The server adds Date, Server, Content-Length and Connection; a handler
/// sets the rest. Header names and values with CR, LF or NUL are refused (answered as 500).
struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    /// Content-Type of the body; empty means none is sent.
    std::string content_type;

    Response() = default;
    explicit Response(int status_code) : status(status_code) {}

    /// `body` must already be JSON text: sent as application/json.
    static Response json(std::string body, int status_code = 200) {
        Response r(status_code);
        r.body = std::move(body);
        r.content_type = "application/json";
        return r;
    }
    /// A text/plain; charset=utf-8 response.
    static Response text(std::string body, int status_code = 200) {
        Response r(status_code);
        r.body = std::move(body);
        r.content_type = "text/plain; charset=utf-8";
        return r;
    }
    Response& with_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
};

}  // namespace slipstream
