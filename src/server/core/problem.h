// HttpError and the one place where an engine error becomes a response (application/problem+json).
#pragma once

#include <string>
#include <string_view>

namespace slipstream::server {

/// An error the engine answers itself. `detail` is client-safe text: never internals.
struct HttpError {
    int status = 500;
    std::string_view detail;
};

/// The problem+json body for `error`: {"type":"about:blank","title":<reason phrase>,"status":N,"detail":...}.
std::string problem_body(const HttpError& error);

inline constexpr std::string_view kProblemContentType = "application/problem+json";

}  // namespace slipstream::server
