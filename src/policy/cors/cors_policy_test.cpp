// CorsPolicy: preflight answers and actual responses' fields, exactly as Starlette 1.x's CORSMiddleware gives
// them for the same options and requests (expected values taken from it), and the option errors.
#include "policy/cors/cors_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace slipstream::policy::cors {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

constexpr const char* kPreflightVary =
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, Access-Control-Request-Private-Network";
constexpr const char* kSafelisted = "Accept, Accept-Language, Content-Language, Content-Type";

// Two origins, everything else default.
ServerOptions listed() {
    ServerOptions o;
    o.cors_allow_origins = "https://a.example, https://b.example";
    return o;
}
// Any origin, method and header; exposed headers; a longer max age.
ServerOptions open_policy() {
    ServerOptions o;
    o.cors_allow_origins = "*";
    o.cors_allow_methods = "*";
    o.cors_allow_headers = "*";
    o.cors_expose_headers = "X-Total,X-Page";
    o.cors_max_age = 3600;
    return o;
}
// Any origin with credentials: the origin is named, never "*".
ServerOptions wildcard_credentials() {
    ServerOptions o;
    o.cors_allow_origins = "*";
    o.cors_allow_credentials = true;
    return o;
}
// A regex beside a listed origin; extra allowed headers (kept in their case, sorted by byte value).
ServerOptions regex_policy() {
    ServerOptions o;
    o.cors_allow_origins = "https://fixed.example";
    o.cors_allow_origin_regex = R"(https://[a-z]+\.example\.org)";
    o.cors_allow_headers = "X-Custom,authorization";
    o.cors_allow_methods = "GET,POST";
    return o;
}
// One origin, credentials, exposed headers, private network access.
ServerOptions credentials_policy() {
    ServerOptions o;
    o.cors_allow_origins = "https://a.example";
    o.cors_allow_credentials = true;
    o.cors_expose_headers = "X-Id";
    o.cors_allow_private_network = true;
    return o;
}

std::vector<http::h1::Header> views(const Fields& fields) {
    std::vector<http::h1::Header> out;
    for (const auto& [name, value] : fields)
        out.push_back({name, value});
    return out;
}

// Lowercase names, sorted: the order of fields is not part of the behaviour.
Fields normalized(Fields fields) {
    for (auto& [name, value] : fields)
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::sort(fields.begin(), fields.end());
    return fields;
}

struct PreflightCase {
    const char* name;
    ServerOptions (*options)();
    Fields request;
    int status;
    std::string body;
    Fields fields;  // besides Content-Type
};

TEST(CorsPolicy, Preflights) {
    const Fields listed_common = {{"Vary", kPreflightVary},
                                  {"Access-Control-Allow-Methods", "GET"},
                                  {"Access-Control-Max-Age", "600"},
                                  {"Access-Control-Allow-Headers", kSafelisted}};
    auto with = [](Fields base, Fields more) {
        base.insert(base.end(), more.begin(), more.end());
        return base;
    };
    const Fields regex_common = {
        {"Vary", kPreflightVary},
        {"Access-Control-Allow-Methods", "GET, POST"},
        {"Access-Control-Max-Age", "600"},
        {"Access-Control-Allow-Headers", std::string(kSafelisted) + ", X-Custom, authorization"}};
    const PreflightCase cases[] = {
        {"listed origin",
         listed,
         {{"Origin", "https://a.example"}, {"Access-Control-Request-Method", "GET"}},
         200,
         "OK",
         with(listed_common, {{"Access-Control-Allow-Origin", "https://a.example"}})},
        {"other origin",
         listed,
         {{"Origin", "https://c.example"}, {"Access-Control-Request-Method", "GET"}},
         400,
         "Disallowed CORS origin",
         listed_common},
        {"method not allowed (GET only by default)",
         listed,
         {{"origin", "https://a.example"}, {"access-control-request-method", "POST"}},
         400,
         "Disallowed CORS method",
         with(listed_common, {{"Access-Control-Allow-Origin", "https://a.example"}})},
        {"everything refused, in order",
         listed,
         {{"Origin", "https://c.example"},
          {"Access-Control-Request-Method", "PUT"},
          {"Access-Control-Request-Headers", "X-Custom"}},
         400,
         "Disallowed CORS origin, method, headers",
         listed_common},
        {"safelisted headers in any case",
         listed,
         {{"Origin", "https://b.example"},
          {"Access-Control-Request-Method", "GET"},
          {"Access-Control-Request-Headers", "content-type, ACCEPT"}},
         200,
         "OK",
         with(listed_common, {{"Access-Control-Allow-Origin", "https://b.example"}})},
        {"an empty item in the requested headers",
         listed,
         {{"Origin", "https://b.example"},
          {"Access-Control-Request-Method", "GET"},
          {"Access-Control-Request-Headers", "Content-Type,"}},
         400,
         "Disallowed CORS headers",
         with(listed_common, {{"Access-Control-Allow-Origin", "https://b.example"}})},
        {"private network not allowed",
         listed,
         {{"Origin", "https://b.example"},
          {"Access-Control-Request-Method", "GET"},
          {"Access-Control-Request-Private-Network", "true"}},
         400,
         "Disallowed CORS private-network",
         with(listed_common, {{"Access-Control-Allow-Origin", "https://b.example"}})},
        {"empty requested method",
         listed,
         {{"Origin", "https://a.example"}, {"Access-Control-Request-Method", ""}},
         400,
         "Disallowed CORS method",
         with(listed_common, {{"Access-Control-Allow-Origin", "https://a.example"}})},
        {"any header: the requested ones are named",
         open_policy,
         {{"Origin", "https://any.example"},
          {"Access-Control-Request-Method", "PATCH"},
          {"Access-Control-Request-Headers", "X-Foo, X-Bar"}},
         200,
         "OK",
         {{"Vary", kPreflightVary},
          {"Access-Control-Allow-Origin", "*"},
          {"Access-Control-Allow-Methods", "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, QUERY"},
          {"Access-Control-Max-Age", "3600"},
          {"Access-Control-Allow-Headers", "X-Foo, X-Bar"}}},
        {"any header, none requested: no Allow-Headers",
         open_policy,
         {{"Origin", "https://any.example"}, {"Access-Control-Request-Method", "QUERY"}},
         200,
         "OK",
         {{"Vary", kPreflightVary},
          {"Access-Control-Allow-Origin", "*"},
          {"Access-Control-Allow-Methods", "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, QUERY"},
          {"Access-Control-Max-Age", "3600"}}},
        {"wildcard with credentials names the origin",
         wildcard_credentials,
         {{"Origin", "https://any.example"}, {"Access-Control-Request-Method", "GET"}},
         200,
         "OK",
         with(listed_common,
              {{"Access-Control-Allow-Credentials", "true"}, {"Access-Control-Allow-Origin", "https://any.example"}})},
        {"regex origin, configured headers in any case",
         regex_policy,
         {{"Origin", "https://api.example.org"},
          {"Access-Control-Request-Method", "POST"},
          {"Access-Control-Request-Headers", "x-custom,Authorization"}},
         200,
         "OK",
         with(regex_common, {{"Access-Control-Allow-Origin", "https://api.example.org"}})},
        {"the regex must match the whole origin",
         regex_policy,
         {{"Origin", "https://api.example.org.evil.com"}, {"Access-Control-Request-Method", "POST"}},
         400,
         "Disallowed CORS origin",
         regex_common},
        {"private network allowed",
         credentials_policy,
         {{"Origin", "https://a.example"},
          {"Access-Control-Request-Method", "GET"},
          {"Access-Control-Request-Private-Network", "true"}},
         200,
         "OK",
         with(listed_common, {{"Access-Control-Allow-Credentials", "true"},
                              {"Access-Control-Allow-Origin", "https://a.example"},
                              {"Access-Control-Allow-Private-Network", "true"}})},
    };
    for (const PreflightCase& c : cases) {
        SCOPED_TRACE(c.name);
        std::unique_ptr<const CorsPolicy> policy = CorsPolicy::compile(c.options());
        ASSERT_NE(policy, nullptr);
        std::vector<http::h1::Header> headers = views(c.request);
        CorsRequest request = CorsRequest::scan(headers);
        ASSERT_TRUE(request.is_preflight("OPTIONS"));
        Response r = policy->preflight(request);
        EXPECT_EQ(r.status, c.status);
        EXPECT_EQ(r.body_bytes(), c.body);
        EXPECT_EQ(r.content_type.view(), "text/plain; charset=utf-8");
        EXPECT_EQ(normalized(r.headers), normalized(c.fields));
    }
}

struct ActualCase {
    const char* name;
    ServerOptions (*options)();
    Fields request;
    Fields response;  // the handler's fields
    Fields expected;  // after apply()
};

TEST(CorsPolicy, ActualResponses) {
    const ActualCase cases[] = {
        {"listed origin: named, Vary",
         listed,
         {{"Origin", "https://a.example"}},
         {},
         {{"Access-Control-Allow-Origin", "https://a.example"}, {"Vary", "Origin"}}},
        {"other origin: Vary only", listed, {{"Origin", "https://c.example"}}, {}, {{"Vary", "Origin"}}},
        {"no Origin: Vary merged, nothing else",
         listed,
         {{"Accept", "*/*"}},
         {{"Vary", "Accept-Encoding"}},
         {{"Vary", "Accept-Encoding, Origin"}}},
        {"any origin: *, exposed headers, Vary fields joined",
         open_policy,
         {{"Origin", "https://x.example"}},
         {{"Vary", "Accept-Encoding"}, {"Vary", "Cookie"}},
         {{"Vary", "Accept-Encoding, Cookie, Origin"},
          {"Access-Control-Allow-Origin", "*"},
          {"Access-Control-Expose-Headers", "X-Total, X-Page"}}},
        {"wildcard with credentials: the origin replaces the handler's field",
         wildcard_credentials,
         {{"Origin", "https://x.example"}},
         {{"Access-Control-Allow-Origin", "https://mine"}},
         {{"Access-Control-Allow-Origin", "https://x.example"},
          {"Access-Control-Allow-Credentials", "true"},
          {"Vary", "Origin"}}},
        {"regex origin",
         regex_policy,
         {{"Origin", "https://api.example.org"}},
         {{"vary", "Accept-Encoding"}},
         {{"Vary", "Accept-Encoding, Origin"}, {"Access-Control-Allow-Origin", "https://api.example.org"}}},
        {"listed origin beside the regex",
         regex_policy,
         {{"Origin", "https://fixed.example"}},
         {},
         {{"Access-Control-Allow-Origin", "https://fixed.example"}, {"Vary", "Origin"}}},
        {"scheme differs: not allowed", regex_policy, {{"Origin", "http://api.example.org"}}, {}, {{"Vary", "Origin"}}},
        {"refused origin still gets credentials and exposed headers",
         credentials_policy,
         {{"Origin", "https://evil.example"}},
         {},
         {{"Access-Control-Allow-Credentials", "true"}, {"Access-Control-Expose-Headers", "X-Id"}, {"Vary", "Origin"}}},
        {"Origin already in Vary is listed again",
         credentials_policy,
         {{"Origin", "https://a.example"}},
         {{"Vary", "Origin"}},
         {{"Vary", "Origin, Origin"},
          {"Access-Control-Allow-Credentials", "true"},
          {"Access-Control-Expose-Headers", "X-Id"},
          {"Access-Control-Allow-Origin", "https://a.example"}}},
        {"first Origin field counts",
         listed,
         {{"Origin", "https://a.example"}, {"origin", "https://c.example"}},
         {},
         {{"Access-Control-Allow-Origin", "https://a.example"}, {"Vary", "Origin"}}},
    };
    for (const ActualCase& c : cases) {
        SCOPED_TRACE(c.name);
        std::unique_ptr<const CorsPolicy> policy = CorsPolicy::compile(c.options());
        ASSERT_NE(policy, nullptr);
        std::vector<http::h1::Header> headers = views(c.request);
        Response r = Response::text("x");
        r.headers = c.response;
        policy->apply(CorsRequest::scan(headers), r);
        EXPECT_EQ(normalized(r.headers), normalized(c.expected));
        EXPECT_EQ(r.body, "x");
        EXPECT_EQ(r.status, 200);
    }
}

TEST(CorsPolicy, WhatIsAPreflight) {
    struct Case {
        const char* method;
        Fields request;
        bool preflight;
    };
    const Case cases[] = {
        {"OPTIONS", {{"Origin", "https://a.example"}, {"Access-Control-Request-Method", "GET"}}, true},
        {"OPTIONS", {{"Origin", ""}, {"Access-Control-Request-Method", ""}}, true},  // empty values count
        {"OPTIONS", {{"Origin", "https://a.example"}}, false},
        {"OPTIONS", {{"Access-Control-Request-Method", "GET"}}, false},
        {"options", {{"Origin", "https://a.example"}, {"Access-Control-Request-Method", "GET"}}, false},
        {"GET", {{"Origin", "https://a.example"}, {"Access-Control-Request-Method", "GET"}}, false},
    };
    for (const Case& c : cases) {
        std::vector<http::h1::Header> headers = views(c.request);
        EXPECT_EQ(CorsRequest::scan(headers).is_preflight(c.method), c.preflight) << c.method;
    }
}

TEST(CorsPolicy, OffWhileNoOriginIsConfigured) {
    ServerOptions o;
    o.cors_allow_methods = "*";
    o.cors_allow_credentials = true;
    EXPECT_EQ(CorsPolicy::compile(o), nullptr);
    o.cors_allow_origin_regex = "https://.*";
    std::unique_ptr<const CorsPolicy> policy = CorsPolicy::compile(o);
    ASSERT_NE(policy, nullptr);
    EXPECT_TRUE(policy->allows_origin("https://x"));
    EXPECT_FALSE(policy->allows_origin("http://x"));
}

TEST(CorsPolicy, BadOptionsAreRefusedWithTheirName) {
    struct Case {
        void (*set)(ServerOptions&);
        std::string message;
    };
    const Case cases[] = {
        {[](ServerOptions& o) { o.cors_allow_origin_regex = "https://(a"; },
         "cors_allow_origin_regex: 'https://(a' is not a valid RE2 pattern: missing ): https://(a"},
        {[](ServerOptions& o) { o.cors_allow_origin_regex = "https://(?=a).*"; },
         "cors_allow_origin_regex: 'https://(?=a).*' is not a valid RE2 pattern: invalid perl operator: (?="},
        {[](ServerOptions& o) { o.cors_allow_origins = " , "; }, "cors_allow_origins: ' , ' names no origin"},
        {[](ServerOptions& o) { o.cors_allow_origins = "https://a.example,https://b .example"; },
         "cors_allow_origins: 'https://b .example' is not an origin (it holds whitespace or control characters)"},
        {[](ServerOptions& o) {
             o.cors_allow_origins = "*";
             o.cors_allow_methods = "GET,PO ST";
         },
         "cors_allow_methods: 'PO ST' is not a method (an HTTP token)"},
        {[](ServerOptions& o) {
             o.cors_allow_origins = "*";
             o.cors_allow_headers = "X-Ok,X(Bad)";
         },
         "cors_allow_headers: 'X(Bad)' is not a header name (an HTTP token)"},
        {[](ServerOptions& o) {
             o.cors_allow_origins = "*";
             o.cors_expose_headers = "X:Id";
         },
         "cors_expose_headers: 'X:Id' is not a header name (an HTTP token)"},
    };
    for (const Case& c : cases) {
        ServerOptions o;
        c.set(o);
        try {
            (void)CorsPolicy::compile(o);
            ADD_FAILURE() << "accepted: " << c.message;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), c.message);
        }
    }
}

}  // namespace
}  // namespace slipstream::policy::cors
