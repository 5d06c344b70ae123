// RouteSpec: what a route expects (typed parameters and body as JSON Schema), checked in C++ before its handler runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipstream {

enum class ParamSource : unsigned char { kPath, kQuery, kHeader, kCookie };

/// One parameter. Its raw text (from the path, the query string, a header or a cookie) is coerced to
/// the schema's type the way FastAPI does ("42" -> 42 for an integer, "true"/"1"/"yes"/"on" for a
/// boolean, repeated query keys for an array), then validated.
struct ParamSpec {
    std::string name;   // the key in the validated arguments object
    std::string alias;  // the name on the wire (query key, header name, cookie name); empty: `name`
    ParamSource source = ParamSource::kQuery;
    std::string schema_json;  // JSON Schema of the value (draft 2020-12)
    bool required = true;
    std::string default_json;  // used when absent and not required ("null" when empty)
};

/// The request body, parsed as JSON and validated against `schema_json`.
struct BodySpec {
    std::string name = "body";  // the key in the validated arguments object
    std::string schema_json;
    bool required = true;
    std::string default_json;  // used when the body is empty and not required ("null" when empty)
    /// FastAPI's `Body(embed=True)` / several body parameters: the body is an object and `name` is a key of it.
    bool embed = false;
};

/// Compiled once when the route is registered (a bad schema throws std::invalid_argument there).
/// Invalid requests are answered 422 with FastAPI's body
/// {"detail":[{"type":...,"loc":[...],"msg":...,"input":...}]} and never reach the handler; a valid
/// request's handler sees the coerced values as `Request::arguments()`, an object keyed by `name`.
struct RouteSpec {
    std::vector<ParamSpec> params;
    std::vector<BodySpec> body;  // zero, one, or several embedded body fields
    /// Set when the app handles validation failures itself (a RequestValidationError handler, HTTP middleware):
    /// an invalid request then reaches the handler with Request::arguments() = {kForwardedErrorsKey: text},
    /// `text` being the response body that would have been sent (the 422 {"detail":[...]}, or the 400 of a body
    /// that could not be read), instead of being answered before the handler.
    bool forward_errors = false;
    /// FastAPI's `strict_content_type=False`: a body sent without a Content-Type header (or an empty one) is read as
    /// JSON too. By default (false) only application/json and application/<x>+json bodies are JSON.
    bool json_without_content_type = false;
    /// FastAPI's `max_body_size`: a request whose body (as sent, before any Content-Encoding is undone) is longer
    /// is answered 413 "Content Too Large" before validation and the handler. Empty: no limit of its own (the
    /// server's max_body_bytes still applies).
    std::optional<std::size_t> max_body_bytes;
};

/// The only key of Request::arguments() for a request whose errors were forwarded (RouteSpec::forward_errors);
/// never a parameter name (those are identifiers).
inline constexpr std::string_view kForwardedErrorsKey = "!validation_errors";

}  // namespace slipstream
