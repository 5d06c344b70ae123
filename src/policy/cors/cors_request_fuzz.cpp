// Fuzz target: CorsRequest::scan over fuzzed header fields, then preflight() and apply() of two policies compiled
// once; answers must follow README.md and never carry a byte that could split a response header.
//
// Input: one field per line, "name:value", OWS around the value trimmed. Only fields the HTTP/1.1 and HTTP/2
// parsers would deliver (a token name, a valid field value) reach the policy, as in the server. A line starting
// with '>' is a field the handler already set on the response that apply() then completes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/h1/header.h"
#include "policy/cors/cors_policy.h"
#include "policy/cors/cors_request.h"
#include "slipstream/response.h"
#include "slipstream/server_options.h"

namespace slipstream::policy::cors {
namespace {

#define FUZZ_CHECK(cond)                                                                              \
    do {                                                                                              \
        if (!(cond)) {                                                                                \
            std::fprintf(stderr, "cors_request_fuzz: check failed: %s (line %d)\n", #cond, __LINE__); \
            std::abort();                                                                             \
        }                                                                                             \
    } while (0)

namespace h1 = http::h1;
using Fields = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kPreflightVary =
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, Access-Control-Request-Private-Network";
constexpr std::string_view kAllowOrigin = "Access-Control-Allow-Origin";
constexpr std::string_view kAllowCredentials = "Access-Control-Allow-Credentials";
constexpr std::string_view kExposeHeaders = "Access-Control-Expose-Headers";

// Listed origins, a regex for preview hosts, a few methods and headers, credentials, private network access.
ServerOptions listed_options() {
    ServerOptions o;
    o.cors_allow_origins = "https://app.example.com, https://admin.example.com";
    o.cors_allow_origin_regex = R"(https://[a-z0-9-]+\.preview\.example\.com)";
    o.cors_allow_methods = "GET, POST, DELETE";
    o.cors_allow_headers = "X-Custom, Authorization";
    o.cors_allow_credentials = true;
    o.cors_expose_headers = "X-Request-Id, X-Total";
    o.cors_allow_private_network = true;
    return o;
}

// Any origin, method and header, with credentials: every origin is named back.
ServerOptions open_options() {
    ServerOptions o;
    o.cors_allow_origins = "*";
    o.cors_allow_methods = "*";
    o.cors_allow_headers = "*";
    o.cors_allow_credentials = true;
    return o;
}

struct Policy {
    std::unique_ptr<const CorsPolicy> policy;
    bool open;  // open_options()
};

// ---- The rules, written out separately ----

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto x = static_cast<unsigned char>(a[i]);
        auto y = static_cast<unsigned char>(b[i]);
        if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
        if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
        if (x != y) return false;
    }
    return true;
}

// https://[a-z0-9-]+\.preview\.example\.com, matched in full.
bool preview_origin(std::string_view origin) {
    constexpr std::string_view kPrefix = "https://";
    constexpr std::string_view kSuffix = ".preview.example.com";
    if (origin.size() <= kPrefix.size() + kSuffix.size()) return false;
    if (!origin.starts_with(kPrefix) || !origin.ends_with(kSuffix)) return false;
    const std::string_view host = origin.substr(kPrefix.size(), origin.size() - kPrefix.size() - kSuffix.size());
    return std::all_of(host.begin(), host.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

bool model_allows_origin(const Policy& p, std::string_view origin) {
    return p.open || origin == "https://app.example.com" || origin == "https://admin.example.com" ||
           preview_origin(origin);
}

bool model_allows_method(const Policy& p, std::string_view method) {
    if (p.open) {
        for (std::string_view m : {"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY"})
            if (method == m) return true;
        return false;
    }
    return method == "GET" || method == "POST" || method == "DELETE";
}

// Python's str.strip() over a latin-1 value: ASCII whitespace, 0x1c-0x1f, NEL and NBSP.
bool py_space(char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0;
}

bool model_allows_headers(const Policy& p, std::string_view list) {
    if (p.open) return true;
    constexpr std::string_view kAllowed[] = {"accept",       "accept-language", "content-language",
                                             "content-type", "x-custom",        "authorization"};
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = list.find(',', start);
        std::string_view item =
            list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!item.empty() && py_space(item.front()))
            item.remove_prefix(1);
        while (!item.empty() && py_space(item.back()))
            item.remove_suffix(1);
        bool found = false;
        for (std::string_view a : kAllowed)
            found = found || iequal(item, a);
        if (!found) return false;
        if (comma == std::string_view::npos) return true;
        start = comma + 1;
    }
}

// ---- Input to fields ----

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

struct Input {
    std::vector<h1::Header> request;
    Fields handler;
};

Input split(std::string_view input) {
    Input out;
    while (!input.empty()) {
        const std::size_t nl = input.find('\n');
        std::string_view line = input.substr(0, nl);
        input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
        const bool handler = !line.empty() && line[0] == '>';
        if (handler) line.remove_prefix(1);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view name = line.substr(0, colon);
        const std::string_view value = trim_ows(line.substr(colon + 1));
        if (!h1::validate_field(name, value).is_ok()) continue;  // the parsers refuse such a field
        if (handler) {
            if (h1::is_framing_field(name)) continue;  // the encoder refuses these from a handler
            out.handler.emplace_back(name, value);
        } else {
            out.request.push_back({name, value});
        }
    }
    return out;
}

// ---- Properties ----

// First value of `name` in the fields, as scan() must find it.
std::optional<std::string_view> first(std::span<const h1::Header> fields, std::string_view name) {
    for (const h1::Header& f : fields)
        if (iequal(f.name, name)) return f.value;
    return std::nullopt;
}

void check_scan(std::span<const h1::Header> fields, const CorsRequest& r) {
    FUZZ_CHECK(r.origin == first(fields, "Origin"));
    FUZZ_CHECK(r.request_method == first(fields, "Access-Control-Request-Method"));
    FUZZ_CHECK(r.request_headers == first(fields, "Access-Control-Request-Headers"));
    FUZZ_CHECK(r.request_private_network == first(fields, "Access-Control-Request-Private-Network").has_value());
    // Views into the request, never copies.
    if (r.origin) FUZZ_CHECK(r.origin->data() == first(fields, "Origin")->data());
    FUZZ_CHECK(r.is_preflight("OPTIONS") == (r.origin.has_value() && r.request_method.has_value()));
    FUZZ_CHECK(!r.is_preflight("GET") && !r.is_preflight("options"));
}

// Every field could be written as is: a token name and a value without CR, LF, NUL or other control bytes.
void check_writable(const Fields& fields) {
    for (const auto& [name, value] : fields) {
        FUZZ_CHECK(value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
        FUZZ_CHECK(name.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
        FUZZ_CHECK(h1::validate_field(name, value).is_ok() && !h1::is_framing_field(name));
    }
}

std::vector<std::string_view> values_of(const Fields& fields, std::string_view name) {
    std::vector<std::string_view> out;
    for (const auto& [n, v] : fields)
        if (iequal(n, name)) out.push_back(v);
    return out;
}

// The one value of `name` (it must not appear twice), or nullopt.
std::optional<std::string_view> only(const Fields& fields, std::string_view name) {
    const std::vector<std::string_view> v = values_of(fields, name);
    FUZZ_CHECK(v.size() <= 1);
    if (v.empty()) return std::nullopt;
    return v[0];
}

void check_preflight(const Policy& p, const CorsRequest& r) {
    const Response answer = p.policy->preflight(r);
    check_writable(answer.headers);
    FUZZ_CHECK(answer.status == 200 || answer.status == 400);
    FUZZ_CHECK(answer.content_type == std::string_view("text/plain; charset=utf-8") && !answer.file_body);

    const std::string_view origin = r.origin.value_or(std::string_view());
    std::string failures;
    auto refuse = [&](std::string_view what) {
        failures += failures.empty() ? "Disallowed CORS " : ", ";
        failures += what;
    };
    const bool origin_ok = model_allows_origin(p, origin);
    if (!origin_ok) refuse("origin");
    if (!model_allows_method(p, r.request_method.value_or(std::string_view()))) refuse("method");
    if (r.request_headers && !model_allows_headers(p, *r.request_headers)) refuse("headers");
    if (r.request_private_network && p.open) refuse("private-network");
    if (failures.empty()) {
        FUZZ_CHECK(answer.status == 200 && answer.body_bytes() == "OK");
    } else {
        FUZZ_CHECK(answer.status == 400 && answer.body_bytes() == failures);
    }

    FUZZ_CHECK(only(answer.headers, "Vary") == kPreflightVary);
    // Both policies name the origin (a listed one; any one with credentials), and only an allowed one.
    const std::optional<std::string_view> allow_origin = only(answer.headers, kAllowOrigin);
    FUZZ_CHECK(origin_ok ? allow_origin == origin : !allow_origin.has_value());
    FUZZ_CHECK(only(answer.headers, kAllowCredentials) == std::string_view("true"));
    FUZZ_CHECK(only(answer.headers, "Access-Control-Max-Age") == std::string_view("600"));
    const std::optional<std::string_view> allow_headers = only(answer.headers, "Access-Control-Allow-Headers");
    if (p.open) {
        FUZZ_CHECK(only(answer.headers, "Access-Control-Allow-Methods") ==
                   std::string_view("DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, QUERY"));
        FUZZ_CHECK(allow_headers == r.request_headers);
        FUZZ_CHECK(!only(answer.headers, "Access-Control-Allow-Private-Network"));
    } else {
        FUZZ_CHECK(only(answer.headers, "Access-Control-Allow-Methods") == std::string_view("GET, POST, DELETE"));
        FUZZ_CHECK(
            allow_headers ==
            std::string_view("Accept, Accept-Language, Authorization, Content-Language, Content-Type, X-Custom"));
        const std::optional<std::string_view> pna = only(answer.headers, "Access-Control-Allow-Private-Network");
        FUZZ_CHECK(r.request_private_network ? pna == std::string_view("true") : !pna.has_value());
    }
    FUZZ_CHECK(!only(answer.headers, kExposeHeaders));
}

// The fields of `fields` whose names are not in `touched`, in order.
Fields untouched(const Fields& fields, std::span<const std::string_view> touched) {
    Fields out;
    for (const auto& f : fields) {
        bool hit = false;
        for (std::string_view t : touched)
            hit = hit || iequal(f.first, t);
        if (!hit) out.push_back(f);
    }
    return out;
}

void check_apply(const Policy& p, const CorsRequest& r, const Fields& handler) {
    Response response;
    response.headers = handler;
    p.policy->apply(r, response);
    check_writable(response.headers);

    // Vary: the handler's values joined, then Origin, as one field.
    std::string vary;
    for (std::string_view v : values_of(handler, "Vary")) {
        vary += v;
        vary += ", ";
    }
    vary += "Origin";
    FUZZ_CHECK(only(response.headers, "Vary") == vary);

    const bool named = r.origin && model_allows_origin(p, *r.origin);
    std::vector<std::string_view> touched = {"Vary"};
    if (r.origin) {
        touched.push_back(kAllowCredentials);
        FUZZ_CHECK(only(response.headers, kAllowCredentials) == std::string_view("true"));
        if (!p.open) {
            touched.push_back(kExposeHeaders);
            FUZZ_CHECK(only(response.headers, kExposeHeaders) == std::string_view("X-Request-Id, X-Total"));
        }
    }
    if (named || (r.origin && p.open)) {
        touched.push_back(kAllowOrigin);
        FUZZ_CHECK(only(response.headers, kAllowOrigin) == r.origin);
    }
    // Every other field the handler set is kept as it was, in its order.
    FUZZ_CHECK(untouched(response.headers, touched) == untouched(handler, touched));
}

}  // namespace
}  // namespace slipstream::policy::cors

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace slipstream::policy::cors;
    // Compiled once per process: a fuzz harness is the one place a function-local static is fine.
    static const Policy policies[] = {{CorsPolicy::compile(listed_options()), false},
                                      {CorsPolicy::compile(open_options()), true}};
    const Input input = split(std::string_view(reinterpret_cast<const char*>(data), size));
    const CorsRequest request = CorsRequest::scan(input.request);
    check_scan(input.request, request);
    for (const Policy& p : policies) {
        FUZZ_CHECK(p.policy != nullptr);
        if (request.origin)
            FUZZ_CHECK(p.policy->allows_origin(*request.origin) == model_allows_origin(p, *request.origin));
        check_preflight(p, request);
        check_apply(p, request, input.handler);
    }
    return 0;
}
