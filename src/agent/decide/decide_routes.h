// mount_decide_routes(): the decision service's HTTP routes on any App.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "agent/decide/decide_access.h"
#include "agent/decide/decide_rate_limits.h"
#include "agent/decide/decide_store.h"
#include "slipstream/app.h"

namespace slipstream::agent::decide {

struct DecideRoutesOptions {
    std::size_t default_page = 50;  // decisions per page when ?limit= is absent
    std::string prefix;             // before /v1/tenants/...: "" or a path starting with '/' without a final '/'
    /// Series on /metrics (decide_metrics.h): per-capsule ones for at most this many capsules (0: only the
    /// totals and the latency histograms). Metrics are off when `metrics` is false.
    bool metrics = true;
    std::size_t metrics_capsules = 1000;
    /// Where GET serves the OpenAPI 3.1 document of these routes (e.g. "/openapi.json"); empty: not served (the
    /// document is still returned by mount_decide_routes).
    std::string openapi_path;
    std::string openapi_title = "Slipstream decisions";
    std::string openapi_version = "1";
    /// Who may read and who may learn, per tenant (null: every principal may do everything): a principal with
    /// `read` access is answered 403 on PUT spec, reward (batch) and promote.
    std::shared_ptr<const DecideAccess> access;
    /// Per-principal limits on decisions and rewards (null: none beyond the engine's): 429 with Retry-After and
    /// RateLimit-* fields; in a batch, the items past the limit are answered 429 in their result.
    std::shared_ptr<DecideRateLimits> rate_limits;
};

/// Registers, under /v1/tenants/{tenant}/jobs/{job}/capsules/{capsule} (each name 1-64 of [A-Za-z0-9._-]; bodies
/// validated by JSON Schema; answered from the database's thread; errors as problem+json, decide_problem.h):
///   GET  /spec                   the spec, its version and generation                     200 (404)
///   PUT  /spec                   an RFC 7396 merge patch (the whole spec to create), If-Match  201 / 200
///   POST /decide                 {context?, actions?, excluded?, baselineAction?, eventId?}    200
///   POST /decide/batch           {requests: [...]} -> {results: [{status, body}]}           200
///   POST /reward                 {decisionId, reward | components, idempotencyKey?}         200
///   POST /reward/batch           {rewards: [...]} -> {results: [{status, body}]}            200
///   GET  /decisions?limit=&after=&from=&to=   a page, oldest first, with `next`           200
///   GET  /decisions/{id}         the decision, its context and rewards                       200
///   GET  /model                  the model's state, ETag; If-None-Match -> 304
///   POST /evaluate               {spec? (a patch: the candidate), from?, to?, resamples?, seed?}: off-policy
///                                estimates of the candidate and the current spec on the logged decisions   200
///   POST /promote                the same, plus minSamples?: the candidate becomes the spec if the gate holds,
///                                else 409 with "reasons" and "evaluation"
/// The principal is the request's (auth on; 401 without credentials) or "anonymous" (auth off); it is recorded
/// with each spec version, decision and reward. Throws std::invalid_argument on a route clash.
/// Returns the OpenAPI 3.1 document of the routes (decide_openapi.h): parameters and bodies are the JSON Schemas
/// requests are validated with.
std::string mount_decide_routes(App& app, std::shared_ptr<DecideStore> store, DecideRoutesOptions options = {});

}  // namespace slipstream::agent::decide
