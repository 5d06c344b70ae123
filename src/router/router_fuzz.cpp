// libFuzzer target: matches fuzzed paths against a fixed route set, and registers fuzzed patterns.
//
// Input: byte 0 picks the mode (bit 0) and the method (the rest, mod 10, kOther included).
//   mode 0: bytes 1.. are one path, matched against the fixed routes below.
//   mode 1: bytes 1.. are lines; every line but the last is a pattern registered for a method that
//           cycles through the named ones (invalid ones must throw std::invalid_argument), and the
//           last line is a path matched against them. Every registered route must then be found by
//           a path built from its own pattern.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "router/router.h"

namespace slipstream::server {
namespace {

#define FUZZ_CHECK(cond)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            std::fprintf(stderr, "router_fuzz: check failed: %s (line %d)\n", #cond, __LINE__); \
            std::abort();                                                                       \
        }                                                                                       \
    } while (0)

constexpr const char* kFixedRoutes[] = {
    "/",
    "/users",
    "/users/",
    "/users/me",
    "/users/{id}",
    "/users/{id:int}",
    "/users/{id}/posts",
    "/users/{id}/posts/{post:int}",
    "/users/{id}/{rest:path}",
    "/items/{x:float}",
    "/items/{u:uuid}/tags/{tag}",
    "/files/{p:path}",
    "/a//b",
    "/v1/accounts/{a}/orders/{o}/lines/{l:int}",
    "/v1/accounts/search",
    "/caf\xc3\xa9/{name}",
    "/{catch:path}",
};

Router make_fixed_router() {
    Router r;
    RouteId id = 0;
    for (const char* pattern : kFixedRoutes) {
        r.add(Method::kGet, pattern, id++);
        r.add(Method::kPost, pattern, id++);
    }
    r.add(Method::kDelete, "/users/{id}", id++);
    r.add(Method::kOptions, "/users/me", id++);
    r.add(Method::kHead, "/files/{p:path}", id++);
    return r;
}

bool inside(std::string_view part, std::string_view whole) {
    return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void check_match(const Router& r, Method method, std::string_view path) {
    RouteMatch m;
    MatchOutcome outcome = r.match(method, path, &m);
    FUZZ_CHECK(m.param_count <= kMaxParams);
    switch (outcome) {
        case MatchOutcome::kFound:
            FUZZ_CHECK(!m.pattern.empty() && m.pattern[0] == '/');
            for (const RouteParam& p : m.captured()) {
                FUZZ_CHECK(!p.name.empty());
                FUZZ_CHECK(inside(p.value, path));
                if (p.type != ParamType::kPath) {
                    FUZZ_CHECK(!p.value.empty() && p.value.find('/') == std::string_view::npos);
                }
                std::int64_t v = 0;
                if (p.type == ParamType::kInt) FUZZ_CHECK(detail::accept_int(p.value, &v) && v == p.int_value);
                if (p.type == ParamType::kUuid) FUZZ_CHECK(detail::accept_uuid(p.value));
            }
            FUZZ_CHECK(!m.implicit_head || method == Method::kHead);
            break;
        case MatchOutcome::kNotFound:
            FUZZ_CHECK(m.param_count == 0);
            break;
        case MatchOutcome::kMethodNotAllowed:
        case MatchOutcome::kOptions:
            FUZZ_CHECK(m.param_count == 0);
            FUZZ_CHECK(m.allowed.contains(Method::kOptions));
            FUZZ_CHECK((outcome == MatchOutcome::kOptions) == (method == Method::kOptions));
            // A method the matching patterns serve would have been found.
            if (outcome == MatchOutcome::kMethodNotAllowed) FUZZ_CHECK(!m.allowed.contains(method));
            break;
    }
    RouteMatch again;
    FUZZ_CHECK(r.match(method, path, &again) == outcome && again.route_id == m.route_id);
}

// A path that `pattern` matches: each parameter replaced by a value its type accepts.
std::string sample_path(const RoutePattern& pattern) {
    std::string path;
    for (const PatternPart& part : pattern.parts) {
        if (!part.is_param) {
            path += part.text;
            continue;
        }
        switch (part.type) {
            case ParamType::kInt:
                path += "-7";
                break;
            case ParamType::kFloat:
                path += "2.5";
                break;
            case ParamType::kUuid:
                path += "123e4567-e89b-12d3-a456-426614174000";
                break;
            case ParamType::kStr:
                path += "s";
                break;
            case ParamType::kPath:
                path += "p/q";
                break;
        }
    }
    return path;
}

void fuzz_registration(Method method, std::string_view input) {
    Router r;
    std::vector<std::string_view> lines;
    for (std::size_t start = 0;;) {
        std::size_t nl = input.find('\n', start);
        lines.push_back(input.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        try {
            r.add(static_cast<Method>(i % kMethodCount), lines[i], static_cast<RouteId>(i));
        } catch (const std::invalid_argument&) {
            // Invalid and conflicting patterns are expected here; anything else escapes and crashes.
        }
    }
    check_match(r, method, lines.back());
    for (const RouteInfo& route : r.routes()) {
        std::string path = sample_path(route.pattern);
        RouteMatch m;
        FUZZ_CHECK(r.match(route.method, path, &m) == MatchOutcome::kFound);
        check_match(r, route.method, path);
    }
}

}  // namespace
}  // namespace slipstream::server

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace slipstream::server;
    if (size == 0) return 0;
    // Built once per process: a fuzz harness is the one place a function-local static is fine.
    static const Router fixed = make_fixed_router();
    auto method = static_cast<Method>((data[0] >> 1) % (kMethodCount + 1));
    std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
    if ((data[0] & 1) == 0) {
        check_match(fixed, method, input);
    } else {
        fuzz_registration(method, input);
    }
    return 0;
}
