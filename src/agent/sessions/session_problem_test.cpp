// Session errors as HTTP answers: status, content type, exact problem+json body, headers; nothing internal leaks.
#include "agent/sessions/session_problem.h"

#include <gtest/gtest.h>

namespace slipstream::agent::sessions {
namespace {

std::string header(const Response& r, std::string_view name) {
    for (const auto& [k, v] : r.headers)
        if (k == name) return v;
    return "";
}

TEST(SessionProblem, EachErrorHasItsStatusAndBody) {
    struct Case {
        SessionError error;
        int status;
        std::string body;
    };
    const Case kCases[] = {
        {SessionError::not_found(), 404,
         R"({"type":"about:blank","title":"Not Found","status":404,"detail":"no such session"})"},
        {SessionError::forbidden(), 403,
         R"({"type":"about:blank","title":"Forbidden","status":403,"detail":"the session belongs to another principal"})"},
        {SessionError::conflict(7), 409,
         R"({"type":"about:blank","title":"Conflict","status":409,"detail":"the state changed: version 7 is current","current_version":7})"},
        {SessionError::over_limit("event_bytes", 64, "event 0 is larger than 64 bytes"), 413,
         R"({"type":"about:blank","title":"Content Too Large","status":413,"detail":"event 0 is larger than 64 bytes","limit":"event_bytes","max":64})"},
        {SessionError::over_limit("events_per_session", 2, "full"), 409,
         R"({"type":"about:blank","title":"Conflict","status":409,"detail":"full","limit":"events_per_session","max":2})"},
        {SessionError::invalid("ttl_ms must be within 1..5"), 422,
         R"({"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"ttl_ms must be within 1..5"})"},
        {SessionError::unavailable("kUnavailable: connection refused (host=/tmp/secret)"), 503,
         R"({"type":"about:blank","title":"Service Unavailable","status":503,"detail":"the session store is unavailable; try again"})"},
        {SessionError::internal("kInvalidArgument: syntax error at or near \"SELEC\" (SQLSTATE 42601)"), 500,
         R"({"type":"about:blank","title":"Internal Server Error","status":500,"detail":"internal error"})"},
    };
    for (const Case& c : kCases) {
        Response r = problem_for(c.error);
        EXPECT_EQ(r.status, c.status) << c.body;
        EXPECT_EQ(r.content_type, "application/problem+json");
        EXPECT_EQ(r.body, c.body);
    }
    EXPECT_EQ(header(problem_for(SessionError::conflict(7)), "ETag"), "\"7\"");
    EXPECT_EQ(header(problem_for(SessionError::unavailable("x")), "Retry-After"), "1");
}

TEST(SessionProblem, ForwardedValidationErrors) {
    Response invalid = validation_problem(R"({"detail":[{"type":"missing","loc":["body","role"]}]})");
    EXPECT_EQ(invalid.status, 422);
    EXPECT_EQ(invalid.body,
              R"({"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request did not )"
              R"(validate; see errors","errors":[{"type":"missing","loc":["body","role"]}]})");
    Response unreadable = validation_problem(R"({"detail":"There was an error parsing the body"})");
    EXPECT_EQ(unreadable.status, 400);
    EXPECT_EQ(unreadable.content_type, "application/problem+json");
}

}  // namespace
}  // namespace slipstream::agent::sessions
