// AccessPolicy: option errors, public routes, and which requests share a rate-limit bucket (principal, IPv4
// address, IPv6 /64).
#include "server/conn/access_policy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "metrics/registry.h"

namespace slipstream::server {
namespace {

constexpr base::MonoNanos kNow = 1'000'000'000;

net::SocketAddress address(const char* host) {
    auto a = net::SocketAddress::from_host_port(host, 40000);
    EXPECT_TRUE(a.is_ok()) << host;
    return a.is_ok() ? *a : net::SocketAddress();
}

int status_of(AccessPolicy& policy, const net::SocketAddress& peer, std::vector<http::h1::Header> headers = {}) {
    base::Arena arena;
    Admission a = policy.admit(headers, &peer, kNow, arena);
    return a.refusal ? a.refusal->status : 200;
}

// A key file in the test's temp directory; returns its path.
std::string key_file(const char* name, const char* text) {
    std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

std::string error_of(const ServerOptions& o) {
    metrics::Registry registry;
    try {
        AccessPolicy policy(o, registry);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(AccessPolicy, OffCostsNothingAndRegistersNothing) {
    metrics::Registry registry;
    AccessPolicy policy(ServerOptions{}, registry);
    EXPECT_FALSE(policy.active());
    std::string text;
    registry.render(text);
    EXPECT_EQ(text.find("slipstream_auth"), std::string::npos);
    EXPECT_EQ(text.find("slipstream_rate_limited"), std::string::npos);
}

TEST(AccessPolicy, EveryRefusalReasonIsASeriesOnceAuthIsOn) {
    std::string path = key_file("access_policy_one_key.txt", "alice alice-key-0123456789abcdef\n");
    ServerOptions o;
    o.auth = "required";
    o.api_keys_file = path;
    metrics::Registry registry;
    AccessPolicy policy(o, registry);
    net::SocketAddress peer = address("192.0.2.9");
    EXPECT_EQ(status_of(policy, peer), 401);
    std::string text;
    registry.render(text);
    EXPECT_NE(text.find("slipstream_auth_refused_total{reason=\"missing_credentials\"} 1"), std::string::npos) << text;
    EXPECT_NE(text.find("slipstream_auth_refused_total{reason=\"token_expired\"} 0"), std::string::npos);
    EXPECT_EQ(text.find("slipstream_rate_limited"), std::string::npos);
}

TEST(AccessPolicy, BadOptionsNameTheOption) {
    ServerOptions o;
    o.auth = "sometimes";
    EXPECT_EQ(error_of(o), "auth: must be off, optional or required, not 'sometimes'");
    o = {};
    o.auth = "required";
    EXPECT_EQ(error_of(o),
              "auth: needs api-keys-file, jwt-secret-file or jwt-public-key-file (or issued tokens: --tokens)");
    o = {};
    o.api_keys_file = "/nonexistent";
    EXPECT_EQ(error_of(o), "auth: API keys or a JWT key are configured while auth is off (set optional or required)");
    o = {};
    o.rate_limit = "5/fortnight";
    EXPECT_NE(error_of(o).find("rate-limit: invalid rate \"5/fortnight\""), std::string::npos) << error_of(o);
    o = {};
    o.rate_limit = "5/s";
    o.auth_public_paths = "/docs, openapi.json";
    EXPECT_EQ(error_of(o), "auth-public-paths: route templates start with '/'");
    o = {};
    o.auth = "optional";
    o.jwt_secret_file = "/nonexistent/secret";
    EXPECT_EQ(error_of(o), "jwt-secret-file: cannot read /nonexistent/secret");
}

TEST(AccessPolicy, PublicPathsAreTrimmedTemplates) {
    ServerOptions o;
    o.rate_limit = "1/m";
    o.auth_public_paths = " /docs ,/openapi.json,, /users/{id} ";
    metrics::Registry registry;
    AccessPolicy policy(o, registry);
    EXPECT_TRUE(policy.is_public("/docs"));
    EXPECT_TRUE(policy.is_public("/openapi.json"));
    EXPECT_TRUE(policy.is_public("/users/{id}"));
    EXPECT_FALSE(policy.is_public("/users/42"));
    EXPECT_FALSE(policy.is_public(""));
}

TEST(AccessPolicy, AnonymousClientsAreLimitedByAddressAndIpv6ByItsSlash64) {
    ServerOptions o;
    o.rate_limit = "1/m";
    metrics::Registry registry;
    AccessPolicy policy(o, registry);
    EXPECT_EQ(status_of(policy, address("192.0.2.1")), 200);
    EXPECT_EQ(status_of(policy, address("192.0.2.1")), 429);
    EXPECT_EQ(status_of(policy, address("192.0.2.2")), 200);  // another address, another bucket
    EXPECT_EQ(status_of(policy, address("2001:db8:1:2::1")), 200);
    EXPECT_EQ(status_of(policy, address("2001:db8:1:2:ffff::9")), 429);  // same /64
    EXPECT_EQ(status_of(policy, address("2001:db8:1:3::1")), 200);       // next /64
}

TEST(AccessPolicy, PrincipalsHaveTheirOwnBucketsAndRates) {
    std::string path =
        key_file("access_policy_keys.txt", "alice alice-key-0123456789abcdef\nbob bob-key-0123456789abcdef00 2/m\n");
    ServerOptions o;
    o.auth = "optional";
    o.api_keys_file = path;
    o.rate_limit = "1/m";
    metrics::Registry registry;
    AccessPolicy policy(o, registry);
    net::SocketAddress peer = address("192.0.2.7");
    std::vector<http::h1::Header> alice{{"X-API-Key", "alice-key-0123456789abcdef"}};
    std::vector<http::h1::Header> bob{{"authorization", "Bearer bob-key-0123456789abcdef00"}};
    // One address, three buckets: anonymous (the address), alice (1/m), bob (his own 2/m).
    EXPECT_EQ(status_of(policy, peer), 200);
    EXPECT_EQ(status_of(policy, peer), 429);
    EXPECT_EQ(status_of(policy, peer, alice), 200);
    EXPECT_EQ(status_of(policy, peer, alice), 429);
    EXPECT_EQ(status_of(policy, peer, bob), 200);
    EXPECT_EQ(status_of(policy, peer, bob), 200);
    EXPECT_EQ(status_of(policy, peer, bob), 429);
    base::Arena arena;
    Admission a = policy.admit(bob, &peer, kNow, arena);
    ASSERT_TRUE(a.refusal.has_value());
    EXPECT_EQ(a.principal, "bob");
    std::vector<http::h1::Header> wrong{{"X-API-Key", "wrong-key-0123456789abcdef"}};
    EXPECT_EQ(status_of(policy, peer, wrong), 401);
}

TEST(AccessPolicy, WithoutARateOnlyKeysWithTheirOwnRateAreLimited) {
    std::string path = key_file("access_policy_rated_keys.txt",
                                "alice alice-key-0123456789abcdef\nbob bob-key-0123456789abcdef00 1/m\n");
    ServerOptions o;
    o.auth = "required";
    o.api_keys_file = path;
    metrics::Registry registry;
    AccessPolicy policy(o, registry);
    net::SocketAddress peer = address("192.0.2.8");
    std::vector<http::h1::Header> alice{{"X-API-Key", "alice-key-0123456789abcdef"}};
    std::vector<http::h1::Header> bob{{"X-API-Key", "bob-key-0123456789abcdef00"}};
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(status_of(policy, peer, alice), 200);
    EXPECT_EQ(status_of(policy, peer, bob), 200);
    EXPECT_EQ(status_of(policy, peer, bob), 429);
    EXPECT_EQ(status_of(policy, peer), 401);  // required: no credentials
}

}  // namespace
}  // namespace slipstream::server

namespace slipstream::server {
namespace {

std::string challenge_of(AccessPolicy& policy, std::vector<http::h1::Header> headers = {}) {
    base::Arena arena;
    net::SocketAddress peer = address("192.0.2.10");
    Admission a = policy.admit(headers, &peer, kNow, arena);
    if (!a.refusal) return "(admitted)";
    for (const auto& [name, value] : a.refusal->headers)
        if (name == "WWW-Authenticate") return value;
    return "(none)";
}

TEST(AccessPolicy, UnauthorizedNamesTheResourceMetadata) {
    ServerOptions o;
    o.auth = "required";
    o.api_keys_file = key_file("access_policy_metadata_key.txt", "alice alice-key-0123456789abcdef\n");
    metrics::Registry registry;
    AccessPolicy plain(o, registry);
    EXPECT_EQ(challenge_of(plain), "Bearer");
    o.auth_resource_metadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
    metrics::Registry registry2;
    AccessPolicy policy(o, registry2);
    EXPECT_EQ(challenge_of(policy),
              R"(Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp")");
    EXPECT_EQ(challenge_of(policy, {{"Authorization", "Bearer wrong-key-0123456789abcdef"}}),
              R"(Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", )"
              R"(error="invalid_token")");
    policy.set_resource_metadata("");
    EXPECT_EQ(challenge_of(policy), "Bearer");

    o.auth_resource_metadata = "/relative";
    EXPECT_EQ(error_of(o), "auth-resource-metadata: must be an absolute http(s) URL");
    o.auth_resource_metadata = "https://a/\"x";
    EXPECT_EQ(error_of(o), "auth-resource-metadata: must not hold quotes, backslashes, spaces or controls");
    EXPECT_THROW(AccessPolicy::check_resource_metadata("https://a/ b"), std::invalid_argument);
}

}  // namespace
}  // namespace slipstream::server
