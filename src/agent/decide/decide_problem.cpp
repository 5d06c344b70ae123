// decide_problem(): the one place where a DecideError becomes a status and a body (sessions' problem() plus members).
#include "agent/decide/decide_problem.h"

#include <string>

#include "agent/sessions/session_problem.h"
#include "base/log.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

std::string member(std::string_view name, std::string_view text) {
    std::string out = ",";
    json::Writer w(out);
    w.string(name);
    out += ":";
    json::Writer v(out);
    v.string(text);
    return out;
}

// "<pointer> <message>" (the message alone at the root): the detail reads alone.
std::string located(const DecideError& e) {
    return e.pointer.empty() ? e.detail : e.pointer + " " + e.detail;
}

}  // namespace

// sessions::problem()'s body with `members` (already JSON: ,"name":value...) added before its closing brace.
Response with_members(int status, const std::string& detail, const std::string& members) {
    Response r = sessions::problem(status, detail);
    r.own_body();
    if (!members.empty() && !r.body.empty() && r.body.back() == '}') {
        r.body.pop_back();
        r.body += members;
        r.body += "}";
    }
    return r;
}

Response decide_problem(const DecideError& e) {
    switch (e.code) {
        case DecideErrorCode::kNotFound:
            return sessions::problem(404, e.detail);
        case DecideErrorCode::kBadSpec:
            return with_members(400, located(e), member("pointer", e.pointer));
        case DecideErrorCode::kInvalid:
            return with_members(422, located(e), member("pointer", e.pointer));
        case DecideErrorCode::kConflict:
            if (!e.members.empty()) return with_members(409, e.detail, e.members);
            if (e.current_version > 0)
                return with_members(409, e.detail, ",\"currentVersion\":" + std::to_string(e.current_version));
            return sessions::problem(409, e.detail);
        case DecideErrorCode::kLimit:
            return with_members(e.limit == "capsules" ? 409 : 413, e.detail,
                                member("limit", e.limit) + ",\"max\":" + std::to_string(e.limit_value));
        case DecideErrorCode::kUnavailable:
            base::log_message(base::LogLevel::kWarn, "decision store unavailable: " + e.detail);
            return sessions::problem(503, "the decision store is unavailable; try again")
                .with_header("Retry-After", "1");
        case DecideErrorCode::kInternal:
            break;
    }
    base::log_message(base::LogLevel::kError, "decision store error: " + e.detail);
    return sessions::problem(500, "internal error");
}

}  // namespace slipstream::agent::decide
