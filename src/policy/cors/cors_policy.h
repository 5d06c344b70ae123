// CorsPolicy: the CORS rules compiled once from ServerOptions; preflight answers and actual responses' headers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/cors/cors_config.h"
#include "policy/cors/cors_request.h"
#include "slipstream/response.h"
#include "slipstream/server_options.h"

namespace re2 {
class RE2;
}

namespace slipstream::policy::cors {

/// Answers as Starlette's CORSMiddleware does, from the same options. Immutable once made: any thread may
/// use it at the same time (RE2 matching is thread-safe).
class CorsPolicy {
  public:
    /// Control plane: null while CORS is off (both origin options empty); throws std::invalid_argument
    /// "<option>: <why>" for a bad option (see parse_cors_config), or "cors_allow_origin_regex: ..." naming
    /// RE2's complaint about the pattern.
    static std::unique_ptr<const CorsPolicy> compile(const ServerOptions& options);
    /// Throws as compile().
    explicit CorsPolicy(CorsConfig config);
    ~CorsPolicy();
    CorsPolicy(const CorsPolicy&) = delete;
    CorsPolicy& operator=(const CorsPolicy&) = delete;

    /// The answer to a preflight (CorsRequest::is_preflight): 200 "OK", or 400 "Disallowed CORS <what>" naming
    /// each refused part (origin, method, headers, private-network), text/plain, with the
    /// Access-Control-Allow-* fields either way.
    Response preflight(const CorsRequest& request) const;

    /// An actual response: with an Origin, the configured Access-Control-Allow-Credentials and -Expose-Headers
    /// (replacing the response's own), and Access-Control-Allow-Origin "*" (any origin allowed, no
    /// credentials) or the request's origin (an allowed one); always "Origin" appended to Vary (the response's
    /// Vary fields joined into one).
    void apply(const CorsRequest& request, Response& response) const;

    /// "*" among the origins, a full match of the regex, or one of the origins exactly.
    bool allows_origin(std::string_view origin) const;

  private:
    bool header_allowed(std::string_view lowercase_name) const;

    std::vector<std::string> origins_;  // sorted
    std::unique_ptr<re2::RE2> regex_;   // null: none
    std::vector<std::string> methods_;
    std::vector<std::string> allowed_headers_;  // lowercase, sorted (the safelisted ones included)
    bool allow_all_origins_ = false;
    bool allow_all_headers_ = false;
    bool allow_credentials_ = false;
    bool allow_private_network_ = false;
    bool preflight_echoes_origin_ = false;  // a preflight names the origin rather than "*"
    // Fields added to every actual response that came with an Origin, and to every preflight answer.
    std::vector<std::pair<std::string, std::string>> simple_fields_;
    std::vector<std::pair<std::string, std::string>> preflight_fields_;
};

}  // namespace slipstream::policy::cors
