// Micro-benchmark: Router::match cost over 500 REST-style routes, for hits, 404s and 405s.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "router/router.h"

namespace slipstream::server {
namespace {

constexpr const char* kResources[] = {
    "users",     "accounts",  "orders",    "invoices",    "products",   "carts",     "payments",   "refunds",
    "shipments", "addresses", "customers", "suppliers",   "warehouses", "inventory", "categories", "tags",
    "reviews",   "ratings",   "coupons",   "discounts",   "campaigns",  "emails",    "messages",   "threads",
    "channels",  "teams",     "projects",  "tasks",       "milestones", "sprints",   "boards",     "columns",
    "cards",     "files",     "folders",   "documents",   "templates",  "webhooks",  "events",     "logs",
    "metrics",   "alerts",    "incidents", "deployments", "releases",   "builds",    "pipelines",  "jobs",
    "secrets",   "tokens",
};

// Ten routes per resource: 50 resources, 500 routes. Fills `hits` with one path per route.
Router make_router(std::vector<std::pair<Method, std::string>>* hits) {
    Router r;
    RouteId id = 0;
    for (const char* res : kResources) {
        std::string b = std::string("/v1/") + res;
        auto add = [&](Method m, const std::string& pattern, std::string path) {
            r.add(m, pattern, id++);
            hits->emplace_back(m, std::move(path));
        };
        add(Method::kGet, b, b);
        add(Method::kPost, b, b);
        add(Method::kGet, b + "/search", b + "/search");
        add(Method::kGet, b + "/{id}", b + "/a1b2c3");
        add(Method::kPut, b + "/{id}", b + "/a1b2c3");
        add(Method::kDelete, b + "/{id}", b + "/a1b2c3");
        add(Method::kGet, b + "/{id}/comments", b + "/a1b2c3/comments");
        add(Method::kGet, b + "/{id}/history", b + "/a1b2c3/history");
        add(Method::kGet, b + "/{id:int}/comments/{comment_id}", b + "/12345/comments/987");
        add(Method::kGet, b + "/{id}/files/{path:path}", b + "/a1b2c3/files/docs/2024/report.pdf");
    }
    return r;
}

void run(benchmark::State& state, const Router& r, const std::vector<std::pair<Method, std::string>>& paths,
         MatchOutcome expected) {
    RouteMatch m;
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& [method, path] = paths[i];
        MatchOutcome o = r.match(method, path, &m);
        if (o != expected) state.SkipWithError("unexpected outcome");
        benchmark::DoNotOptimize(m);
        if (++i == paths.size()) i = 0;
    }
}

void BM_MatchHit(benchmark::State& state) {
    std::vector<std::pair<Method, std::string>> hits;
    Router r = make_router(&hits);
    run(state, r, hits, MatchOutcome::kFound);
}
BENCHMARK(BM_MatchHit);

void BM_MatchHitStatic(benchmark::State& state) {
    std::vector<std::pair<Method, std::string>> hits;
    Router r = make_router(&hits);
    run(state, r, {{Method::kGet, "/v1/deployments/search"}}, MatchOutcome::kFound);
}
BENCHMARK(BM_MatchHitStatic);

void BM_MatchHitDeep(benchmark::State& state) {
    std::vector<std::pair<Method, std::string>> hits;
    Router r = make_router(&hits);
    run(state, r, {{Method::kGet, "/v1/deployments/12345/comments/987"}}, MatchOutcome::kFound);
}
BENCHMARK(BM_MatchHitDeep);

void BM_MatchMiss404(benchmark::State& state) {
    std::vector<std::pair<Method, std::string>> hits;
    Router r = make_router(&hits);
    std::vector<std::pair<Method, std::string>> misses;
    for (const char* res : kResources) {
        std::string b = std::string("/v1/") + res;
        misses.emplace_back(Method::kGet, b + "x");
        misses.emplace_back(Method::kGet, b + "/a1b2c3/unknown");
        misses.emplace_back(Method::kGet, b + "/x/comments/987");  // backtracks out of {id:int}
        misses.emplace_back(Method::kGet, "/v2/" + std::string(res) + "/1");
    }
    run(state, r, misses, MatchOutcome::kNotFound);
}
BENCHMARK(BM_MatchMiss404);

void BM_MatchMiss405(benchmark::State& state) {
    std::vector<std::pair<Method, std::string>> hits;
    Router r = make_router(&hits);
    std::vector<std::pair<Method, std::string>> misses;
    for (const char* res : kResources) {
        std::string b = std::string("/v1/") + res;
        misses.emplace_back(Method::kPatch, b);
        misses.emplace_back(Method::kPost, b + "/a1b2c3");
    }
    run(state, r, misses, MatchOutcome::kMethodNotAllowed);
}
BENCHMARK(BM_MatchMiss405);

void BM_ParseMethod(benchmark::State& state) {
    const std::string_view tokens[] = {"GET", "POST", "DELETE", "OPTIONS", "PROPFIND"};
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(parse_method(tokens[i]));
        if (++i == std::size(tokens)) i = 0;
    }
}
BENCHMARK(BM_ParseMethod);

}  // namespace
}  // namespace slipstream::server

BENCHMARK_MAIN();
